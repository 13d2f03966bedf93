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
One exception family for pdls_ik.

Every message names the offending element (joint, link, parameter, field, row) so that a user can
fix the input without reading a traceback. A solver that does not converge is *not* an error: it
returns a result with a status.
"""
from __future__ import annotations


class PDLSIKError(Exception):
    """Base class of every error raised by pdls_ik."""


class URDFError(PDLSIKError, ValueError):
    """A robot description cannot be loaded: malformed XML, empty, broken tree, xacro leftovers."""


class JointError(URDFError):
    """
    A joint of the description is invalid (type, axis, limits, mimic, parent/child).

    :ivar joint: name of the offending joint.
    """

    def __init__(self, joint: str, message: str):
        self.joint = joint
        super().__init__(f"joint '{joint}': {message}")


class LinkError(PDLSIKError, ValueError):
    """
    A link name is unknown to the model, or a link is invalid in the description.

    :ivar link: the offending link name.
    """

    def __init__(self, link: str, message: str):
        self.link = link
        super().__init__(f"link '{link}': {message}")


class InputError(PDLSIKError, ValueError):
    """A numeric input is invalid: wrong shape, NaN/inf, zero quaternion, bad option value."""


class ConfigError(PDLSIKError, ValueError):
    """A configuration (YAML file, node parameter, task definition) is invalid; names the key."""
