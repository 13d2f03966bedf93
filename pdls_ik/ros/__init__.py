"""rclpy shells of pdls_ik: ``pdls_ik_node`` (:mod:`.node`) and ``pdls_ik_markers``
(:mod:`.markers`). All logic lives in the ROS-free :mod:`pdls_ik.ros_logic` and
:mod:`pdls_ik.msgs`; this package only connects them to topics, services and parameters."""
