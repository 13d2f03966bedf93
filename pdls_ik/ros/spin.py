"""The few lines every ``main()`` of this package shares: init, construct, spin, shut down."""
from __future__ import annotations

from typing import Callable, Optional

import rclpy
from rclpy.executors import ExternalShutdownException, SingleThreadedExecutor
from rclpy.logging import get_logger

from pdls_ik.errors import PDLSIKError


def run_node(factory: Callable[[], object], name: str, args=None,
             executor_factory: Optional[Callable[[], object]] = None) -> int:
    """Runs one node until Ctrl-C or shutdown.

    Returns:
        0 after a clean shutdown; 1 when the node cannot start (a
        :class:`~pdls_ik.errors.PDLSIKError` from ``factory``, logged in one line).
    """
    rclpy.init(args=args)
    try:
        node = factory()
    except PDLSIKError as exc:
        get_logger(name).fatal(f"cannot start: {exc}")
        rclpy.try_shutdown()
        return 1
    executor = executor_factory() if executor_factory else SingleThreadedExecutor()
    executor.add_node(node)
    try:
        executor.spin()
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    finally:
        executor.shutdown()
        node.destroy_node()
        rclpy.try_shutdown()
    return 0
