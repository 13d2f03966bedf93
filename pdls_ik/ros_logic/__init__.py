"""ROS-free logic of the ROS 2 nodes: everything in :mod:`pdls_ik.ros` that is not plumbing.

- :mod:`.robot` — robot description + config -> linkage and solvers (rebuilt atomically);
- :mod:`.frames` — goal frames (empty, base link, any model link through FK);
- :mod:`.tracker` — latest goal / joint state and one tracking cycle (newest goal wins);
- :mod:`.ik_service` — the GetPositionIK service answer;
- :mod:`.board` — the diagnostic statuses the node publishes;
- :mod:`.parameters` — node parameters from the :class:`~pdls_ik.config.IKConfig` table;
- :mod:`.markers` — interactive-marker helpers (rate limiting).

Nothing here imports rclpy: all of it is tested without ROS.
"""
