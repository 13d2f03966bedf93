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
The pip-installable library; colcon builds the same tree through CMakeLists.txt (ament_cmake).

The console scripts are in setup.cfg ([options.entry_points]), which both read.
"""
from glob import glob
import os

from setuptools import find_packages, setup

package_name = 'pdls_ik'


def share(folder, pattern='*'):
    return (os.path.join('share', package_name, folder),
            [f for f in glob(os.path.join(folder, pattern)) if os.path.isfile(f)])


#: test dependencies: flake8 with ament_flake8's plugins and pydocstyle apply the ament linters'
#: checks without ROS (test/test_style.py); numba (a dependency) lets tests cover both backends;
#: example-robot-data: 69 real URDFs (PR2, Talos, iCub, ...) loaded against Pinocchio, and the
#: Panda's collision meshes; dask and zarr: reachability maps; setuptools and wheel:
#: test_editable_install builds the editable wheel (PEP 660)
TEST_REQUIRES = ['pytest>=7', 'pin>=2.6', 'trimesh>=4', 'example-robot-data>=4.1', 'flake8>=6',
                 'flake8-builtins>=2.1', 'flake8-comprehensions>=3.10', 'flake8-docstrings>=1.6',
                 'flake8-import-order>=0.18', 'flake8-quotes>=3.3', 'pydocstyle>=6.1',
                 'dask[distributed]>=2022.1', 'zarr>=2.11', 'setuptools>=64', 'wheel>=0.38']

setup(
    name=package_name,
    version='0.1.0',
    packages=find_packages(exclude=['test', 'test.*', 'benchmarks', 'benchmarks.*']),
    # the package stays at the repository root (the ROS package's layout); declaring that root explicitly
    # makes `pip install -e` put it on sys.path (a static .pth) instead of setuptools' import
    # hook, which comes after the current folder: a script run from the folder holding the clone
    # (named pdls_ik) would otherwise import the clone's folder as an empty namespace package
    package_dir={'': '.'},
    data_files=[
        ('share/ament_index/resource_index/packages', ['resource/' + package_name]),
        ('share/' + package_name, ['package.xml']),
        share('launch'),
        share('config'),
        share('urdf'),
    ],
    python_requires='>=3.10',
    install_requires=[
        'numpy>=1.21',
        'scipy>=1.8',
        'urdfdom-py>=1.2',
        'PyYAML>=5.4',
        'rosbags>=0.9.15',
        'matplotlib>=3.5',
        'tqdm>=4.60',
        # compiled backend of the one-shot solve (IKConfig.backend); without it the NumPy
        # reference implementation runs (e.g. a ROS install from apt without python3-numba)
        'numba>=0.59',
    ],
    extras_require={
        # self-collision: trimesh fits capsules to collision meshes (pdls_ik.model.collision)
        'collision': ['trimesh>=4'],
        # coal checks the collision distances (the distributions' passes of .ci/distro-deps
        # install TEST_REQUIRES without it: its wheels need a newer NumPy)
        'test': TEST_REQUIRES + ['coal>=3'],
        # reachability maps (pdls-ik reach): spread over cores and machines, chunked results
        'reach': ['dask[distributed]>=2022.1', 'zarr>=2.11'],
        'bench': ['pin>=2.6', 'ikpy>=3.3', 'roboticstoolbox-python>=1.1', 'coal>=3'],
    },
    zip_safe=True,
    maintainer='pdls_ik developers',
    maintainer_email='dev@pdls-ik.invalid',
    description=('Inverse kinematics by Prioritized Damped Least Squares, '
                 'for ROS 2 and plain Python'),
    license='Apache-2.0',
    tests_require=['pytest'],
)
