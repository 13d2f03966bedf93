# Copyright 2026 pdls_ik developers
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

"""The few lines every ``main()`` of this package shares: init, construct, spin, shut down."""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Callable, Optional

from pdls_ik.errors import PDLSIKError
from pdls_ik.ros_logic.lifetime import ExitGuard
import rclpy
from rclpy.executors import ExternalShutdownException, SingleThreadedExecutor
from rclpy.logging import get_logger


def run_node(factory: Callable[[], object], name: str, args=None,
             executor_factory: Optional[Callable[[], object]] = None,
             guard: Optional[ExitGuard] = None) -> int:
    """
    Run one node until Ctrl-C or shutdown.

    :param guard: the process's :class:`~pdls_ik.ros_logic.lifetime.ExitGuard` (a node's
        ``main``): its signal handlers installed before ``rclpy.init``, the parent watched, and
        its deadline armed once spinning ends, so that the process exits within
        ``guard.grace`` seconds whatever still runs (a kernel load, a callback). None (a node
        run inside another program, e.g. a test): none of that.
    :return: 0 after a clean shutdown (also when Ctrl-C races the executor or comes while the
        node is built); 1 when the node cannot start (a :class:`~pdls_ik.errors.PDLSIKError`
        from ``factory``, logged in one line).
    """
    if guard is not None:
        guard.install()
    rclpy.init(args=args)
    if guard is not None:
        guard.watch_parent()
    try:
        node = factory()
    except PDLSIKError as exc:
        get_logger(name).fatal(f'cannot start: {exc}')
        rclpy.try_shutdown()
        return 1
    except KeyboardInterrupt:
        rclpy.try_shutdown()
        return 0
    executor = executor_factory() if executor_factory else SingleThreadedExecutor()
    executor.add_node(node)
    try:
        executor.spin()
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    except RuntimeError:
        # Ctrl-C can shut the context down while the executor builds its wait set: rclpy then
        # raises RCLError (a RuntimeError) "context is not valid" instead of the exceptions above
        if rclpy.ok():
            raise
    finally:
        if guard is not None:
            guard.arm()
        # rclpy's MultiThreadedExecutor (Humble, Jazzy) hands callbacks to a thread pool and its
        # shutdown() neither waits for them nor stops them: it destroys the guard condition that
        # a queued callback triggers, whose task then ends in "cannot use Destroyable" printed
        # as an exception never retrieved. So: close the node's callbacks (those still queued
        # return at once, the running ones are waited for), let the pool finish (spin has
        # stopped: nothing new is queued), then shut the executor down and destroy the node.
        close = getattr(node, 'close', None)
        if callable(close):
            close()
        pool = getattr(executor, '_executor', None)
        if isinstance(pool, ThreadPoolExecutor):
            pool.shutdown(wait=True)
        executor.shutdown()
        node.destroy_node()
        rclpy.try_shutdown()
    return 0
