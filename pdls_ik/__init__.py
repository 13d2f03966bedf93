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
pdls_ik: inverse kinematics by Prioritized Damped Least Squares (Baerlocher & Boulic 2004).

Public entry points (imported lazily, so that ``import pdls_ik`` stays cheap):
    load_urdf(source, base_link=None) -> Linkage    (pdls_ik.model)
    FloatingBase, CenterOfMass                       (pdls_ik.model: floating root, CoM)
    IKSolver, IKResult                               (pdls_ik.ik: one tip, one-shot and tracking)
    IKConfig, load_config                            (pdls_ik.config: options, YAML)
    TaskSolver, TaskResult, load_task_config         (any stack of tasks, closures)
    reachability_map, ReachMap                       (pdls_ik.ik.reachability: on Dask)
    pdls.step, pdls.solve                            (pdls_ik.pdls, the robot-agnostic core)
"""
from importlib import import_module

from pdls_ik.errors import (ConfigError, InputError, JointError, LinkError,  # noqa: F401
                            PDLSIKError, URDFError)

__version__ = '0.1.0'

_LAZY = {
    'load_urdf': 'pdls_ik.model',
    'Linkage': 'pdls_ik.model',
    'FloatingBase': 'pdls_ik.model.floating',
    'CenterOfMass': 'pdls_ik.model.com',
    'IKSolver': 'pdls_ik.ik',
    'IKResult': 'pdls_ik.ik',
    'IKConfig': 'pdls_ik.config',
    'load_config': 'pdls_ik.config',
    'TaskSolver': 'pdls_ik.ik.task_solver',
    'TaskResult': 'pdls_ik.ik.task_solver',
    'load_task_config': 'pdls_ik.ik.task_config',
    'reachability_map': 'pdls_ik.ik.reachability',
    'ReachMap': 'pdls_ik.ik.reachability',
}

__all__ = ['ConfigError', 'InputError', 'JointError', 'LinkError', 'PDLSIKError', 'URDFError',
           *_LAZY]


def __getattr__(name):
    if name in _LAZY:
        return getattr(import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'pdls_ik' has no attribute '{name}'")
