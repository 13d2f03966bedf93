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

"""
The IK facade: goals → tasks → priority levels → the PDLS core; results.

    from pdls_ik.ik import IKSolver
    solver = IKSolver(load_urdf("panda.urdf"), "panda_link8")
    result = solver.solve(T_goal)                   # one-shot, random restarts
    result = solver.track(T_goal, q_current, dt)    # one bounded tracking cycle

Modules: :mod:`~pdls_ik.ik.ik_solver` (:class:`IKSolver`, one tip), :mod:`~pdls_ik.ik.task_solver`
(:class:`TaskSolver`, any stack of tasks), :mod:`~pdls_ik.ik.batch` (many goals at once),
:mod:`~pdls_ik.ik.task_levels` (tasks → strict priority levels), :mod:`~pdls_ik.ik.task_problem`
(extra tasks beside the tip pose), :mod:`~pdls_ik.ik.solve_groups` (independent sub-problems),
:mod:`~pdls_ik.ik.task_config` (tasks from YAML).
"""
from pdls_ik.ik.batch import BatchResult, BatchSolver, solve_batch
from pdls_ik.ik.ik_solver import (FIRST_SOLVE_MIN_ITERATIONS, IKResult, IKSolver, MAX_SEEDS,
                                  TRACK_MIN_ITERATIONS)
from pdls_ik.ik.task_config import load_task_config, TaskConfig
from pdls_ik.ik.task_solver import TaskResult, TaskSolver
from pdls_ik.model.joint_vector import periodic_variables

__all__ = ['IKSolver', 'IKResult', 'FIRST_SOLVE_MIN_ITERATIONS', 'TRACK_MIN_ITERATIONS',
           'MAX_SEEDS', 'periodic_variables', 'TaskSolver', 'TaskResult', 'BatchSolver',
           'BatchResult', 'solve_batch', 'TaskConfig', 'load_task_config']
