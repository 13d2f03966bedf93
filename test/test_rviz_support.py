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

"""The rviz test's eyes without rviz: status colours in an image, the Orbit view's projection."""
import math

import numpy as np
import pytest
from rviz_support import ERROR_RGB, OK_RGB, orbit_projection, status_pixels, WARN_RGB

Image = pytest.importorskip('PIL.Image', reason='Pillow not installed')


def test_status_pixels_counts_exact_colours_in_the_box():
    image = Image.new('RGB', (40, 20), (255, 255, 255))
    image.paste(OK_RGB, (0, 0, 10, 2))       # 20 px of an OK display name
    image.paste(ERROR_RGB, (20, 0, 23, 3))   # 9 px of an error
    image.paste(WARN_RGB, (30, 10, 32, 11))  # 2 px of a warning, outside the box below
    image.paste((193, 32, 32), (0, 15, 5, 16))  # near the error colour: not counted
    assert status_pixels(image) == {'ok': 20, 'warn': 2, 'error': 9}
    assert status_pixels(image, (0, 0, 25, 10)) == {'ok': 20, 'warn': 0, 'error': 9}


def test_orbit_projection_centres_the_focal_point_and_keeps_z_up():
    project = orbit_projection(2.0, 0.8, 0.5, (0.0, 0.0, 0.4), (800, 600))
    np.testing.assert_allclose(project((0.0, 0.0, 0.4)), (400.0, 300.0), atol=1e-9)
    x, y = project((0.0, 0.0, 0.5))
    assert x == pytest.approx(400.0) and y < 300.0            # above: higher on the screen
    # at the focal distance, the half height of the image spans tan(22.5 deg) x 2 m
    up = np.array([-math.cos(0.8) * math.sin(0.5), -math.sin(0.8) * math.sin(0.5),
                   math.cos(0.5)])
    top = (0.0, 0.0, 0.4) + up * 2.0 * math.tan(math.pi / 8)
    np.testing.assert_allclose(project(top), (400.0, 0.0), atol=1e-6)
