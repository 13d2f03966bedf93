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
rviz2 under Xvfb, seen and driven from outside: what the rviz launch test needs, without ROS.

- :func:`start_xvfb` — a virtual X screen on a free display number;
- :func:`status_pixels` — pixels of rviz's warning and error colours in an image region: rviz
  draws the name of a display whose status is Warn or Error (and "Global Status") in
  ``StatusProperty::statusColor`` (rviz_common/properties/status_property.cpp), and an enabled
  display that is OK in blue, so a screenshot of the Displays panel tells whether any display
  reports a problem;
- :func:`orbit_projection` — where rviz's Orbit view draws a point of the fixed frame (its
  camera: ``OrbitViewController``'s spherical position, looking at the focal point, Z up, OGRE's
  default vertical field of view of 45 degrees);
- :class:`Screen` — python-xlib: rviz's window and its 3D render window, screenshots (Pillow's
  ``ImageGrab``) and mouse drags through the XTEST extension (what xdotool does).
"""
from __future__ import annotations

import math
import os
from pathlib import Path
import shutil
import subprocess
import time
from typing import Callable, Dict, Optional, Sequence, Tuple

import numpy as np

#: rviz_common StatusProperty::statusColor: Warn, Error (RGB)
WARN_RGB = (192, 128, 0)
ERROR_RGB = (192, 32, 32)
#: the colour of an enabled display's name whose status is OK (rviz_common Display::getViewData)
OK_RGB = (40, 120, 197)
#: OGRE's default vertical field of view, which rviz's render panel keeps [rad]
OGRE_FOVY = math.pi / 4


def status_pixels(image, box: Optional[Tuple[int, int, int, int]] = None) -> Dict[str, int]:
    """
    Count the pixels of rviz's status colours in ``box`` (left, top, right, bottom) of ``image``.

    :param image: a PIL image (RGB or RGBA).
    :return: {'ok': n, 'warn': n, 'error': n}, exact colour matches (anti-aliased edges of the
        text are not counted, its strokes are).
    """
    region = image.convert('RGB') if box is None else image.convert('RGB').crop(box)
    pixels = np.asarray(region).reshape(-1, 3)
    return {name: int(np.count_nonzero(np.all(pixels == rgb, axis=1)))
            for name, rgb in (('ok', OK_RGB), ('warn', WARN_RGB), ('error', ERROR_RGB))}


def orbit_projection(distance: float, yaw: float, pitch: float,
                     focal_point: Sequence[float], size: Tuple[int, int],
                     fovy: float = OGRE_FOVY) -> Callable[[Sequence[float]], Tuple[float, float]]:
    """
    Return the projection of rviz's Orbit view: where it draws a point.

    :param distance, yaw, pitch, focal_point: the view's properties ([m], [rad], [rad], (3,) m in
        the fixed frame), as the .rviz file gives them.
    :param size: (width, height) of the render window [px].
    :return: a function of a point (3,) in the fixed frame [m] -> (x, y) [px] in the render
        window (x right, y down).
    """
    focal = np.asarray(focal_point, dtype=float)
    eye = focal + distance * np.array([math.cos(yaw) * math.cos(pitch),
                                       math.sin(yaw) * math.cos(pitch), math.sin(pitch)])
    forward = (focal - eye) / np.linalg.norm(focal - eye)
    right = np.cross(forward, (0.0, 0.0, 1.0))
    right /= np.linalg.norm(right)
    up = np.cross(right, forward)
    width, height = size
    f = 1.0 / math.tan(fovy / 2.0)

    def project(point):
        v = np.asarray(point, dtype=float) - eye
        depth = float(v @ forward)
        x_ndc = f * height / width * float(v @ right) / depth
        y_ndc = f * float(v @ up) / depth
        return (x_ndc + 1.0) / 2.0 * width, (1.0 - y_ndc) / 2.0 * height

    return project


def free_display(first: int = 90) -> int:
    """Return a display number with no X server (no lock file, no socket), from ``first`` on."""
    for number in range(first, first + 100):
        if not (Path(f'/tmp/.X{number}-lock').exists()
                or Path(f'/tmp/.X11-unix/X{number}').exists()):
            return number
    raise RuntimeError(f'no free X display number in {first}..{first + 99}')


def start_xvfb(size: Tuple[int, int] = (1600, 1024), wait: float = 10.0):
    """
    Start Xvfb on a free display.

    :return: (process, ':N'); the caller terminates the process.
    :raises RuntimeError: Xvfb not found, or its socket not there within ``wait`` [s].
    """
    command = shutil.which('Xvfb')
    if command is None:
        raise RuntimeError('Xvfb not found')
    number = free_display()
    proc = subprocess.Popen([command, f':{number}', '-screen', '0', f'{size[0]}x{size[1]}x24',
                             '-nolisten', 'tcp'], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    end = time.monotonic() + wait
    while not Path(f'/tmp/.X11-unix/X{number}').exists():
        if proc.poll() is not None or time.monotonic() > end:
            proc.kill()
            raise RuntimeError(f'Xvfb :{number} did not start')
        time.sleep(0.05)
    return proc, f':{number}'


class Screen:
    """
    An X display seen and driven through python-xlib (XTEST) and Pillow.

    :param display: ':N'.
    :raises ImportError: python-xlib not installed.
    """

    def __init__(self, display: str):
        from Xlib import display as xdisplay
        self.name = display
        self._display = xdisplay.Display(display)
        self._root = self._display.screen().root

    def close(self) -> None:
        """Close the connection to the X server."""
        self._display.close()

    def grab(self, box: Optional[Tuple[int, int, int, int]] = None):
        """Screenshot (PIL RGB image) of the screen or of ``box`` (left, top, right, bottom)."""
        from PIL import ImageGrab
        image = ImageGrab.grab(xdisplay=self.name).convert('RGB')
        return image if box is None else image.crop(box)

    def _windows(self, window=None, origin=(0, 0)):
        from Xlib import X
        from Xlib.error import XError
        window = window or self._root
        try:
            children = window.query_tree().children
        except XError:  # gone meanwhile (a window of a starting program)
            return
        for child in children:
            try:
                geometry = child.get_geometry()
                if child.get_attributes().map_state != X.IsViewable:
                    continue
            except XError:
                continue
            x, y = origin[0] + geometry.x, origin[1] + geometry.y
            yield child, (x, y, geometry.width, geometry.height)
            yield from self._windows(child, (x, y))

    def rviz_boxes(self):
        """
        Find rviz's main window and its 3D render window on the screen.

        :return: ((left, top, right, bottom) of the main window, the same of the render
            window), or None when no window named "... - RViz" is mapped.

        The render window is the largest native child window (OGRE draws into it).
        """
        from Xlib.error import XError
        for window, (x, y, w, h) in self._windows():
            try:
                name = window.get_wm_name() or ''
            except XError:
                continue
            if name.endswith('RViz') or name.endswith('RViz*'):
                children = [g for _, g in self._windows(window, (x, y))]
                if not children:
                    return None
                cx, cy, cw, ch = max(children, key=lambda g: g[2] * g[3])
                return (x, y, x + w, y + h), (cx, cy, cx + cw, cy + ch)
        return None

    def drag(self, start: Tuple[float, float], end: Tuple[float, float], steps: int = 30,
             pause: float = 0.03, on_step: Optional[Callable[[int], None]] = None) -> None:
        """
        Press the left button at ``start``, move to ``end`` in ``steps``, release there.

        :param on_step: called with the step number (1..steps) after each move (e.g. to grab a
            frame of an animation).
        """
        from Xlib import X
        from Xlib.ext import xtest

        def move(x, y):
            xtest.fake_input(self._display, X.MotionNotify, x=int(round(x)), y=int(round(y)))
            self._display.sync()
            time.sleep(pause)

        move(*start)
        time.sleep(0.3)  # rviz picks the control under the pointer (focus) before the press
        xtest.fake_input(self._display, X.ButtonPress, 1)
        self._display.sync()
        time.sleep(0.2)
        for i in range(1, steps + 1):
            t = i / steps
            move(start[0] + t * (end[0] - start[0]), start[1] + t * (end[1] - start[1]))
            if on_step is not None:
                on_step(i)
        time.sleep(0.2)
        xtest.fake_input(self._display, X.ButtonRelease, 1)
        self._display.sync()


def xlib_missing() -> Optional[str]:
    """Why :class:`Screen` cannot work here (python-xlib or Pillow's XCB grab), or None."""
    try:
        import Xlib  # noqa: F401
    except ImportError:
        return 'python-xlib not installed (pip install python-xlib): no X input nor windows'
    try:
        from PIL import features
    except ImportError:
        return 'Pillow not installed: no screenshots'
    if not features.check('xcb'):
        return 'Pillow built without XCB: no X screenshots'
    return None


def save_small(image, path: os.PathLike, width: int = 900) -> Path:
    """Save ``image`` as a PNG of ``width`` pixels (aspect kept, 256-colour palette)."""
    from PIL import Image
    path = Path(path)
    height = round(image.height * width / image.width)
    small = image.resize((width, height), Image.LANCZOS).quantize(256, dither=Image.NONE)
    small.save(path, optimize=True)
    return path


def save_gif(frames, path: os.PathLike, width: int = 480, duration: int = 120) -> Path:
    """Save PIL images as a looping GIF of ``width`` pixels, ``duration`` ms per frame."""
    from PIL import Image
    path = Path(path)
    small = [f.resize((width, round(f.height * width / f.width)), Image.LANCZOS)
             .quantize(128, dither=Image.NONE) for f in frames]
    small[0].save(path, save_all=True, append_images=small[1:], duration=duration, loop=0,
                  optimize=True)
    return path
