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

"""The problem interface of :func:`pdls_ik.pdls.solve` (MSim PDLS's ``updateProblem``, split)."""
from __future__ import annotations

from typing import List, Optional

import numpy as np
from numpy.typing import NDArray
from pdls_ik.pdls.levels import LevelLike


class PDLSProblem:
    """
    Base class of a PDLS problem: override :meth:`levels`, optionally the other hooks.

    :func:`pdls_ik.pdls.solve` also accepts a plain callable ``problem(theta) -> levels`` or any
    object with these methods (duck typing); missing hooks take the defaults below.
    """

    #: True promises :class:`Level` objects with float arrays of the right shapes and finite
    #: values, used without validation (for problems built from validated inputs)
    trusted_levels = False

    def levels(self, theta: NDArray[np.float64]) -> List[LevelLike]:
        """Priority levels at θ (n,), highest first: :class:`Level` or ``(e_k, J_k)`` pairs."""
        raise NotImplementedError

    def posture_variation(self, theta: NDArray[np.float64]) -> Optional[NDArray[np.float64]]:
        """Desired variation (n,) applied as the lowest priority, or None for none."""
        return None

    def converged(self, theta: NDArray[np.float64], levels: List[LevelLike]) -> Optional[bool]:
        """
        Test convergence on the levels just returned; None for the default test.

        The default: each counted level's residual norm within its tolerance.
        """
        return None

    def normalize(self, theta: NDArray[np.float64]) -> NDArray[np.float64]:
        """θ after an update, e.g. with continuous joint angles wrapped to (−π, π]."""
        return theta

    def integrate(self, theta: NDArray[np.float64], step: NDArray[np.float64]
                  ) -> NDArray[np.float64]:
        """
        θ ⊕ step (n,).

        apply a step (n,) to θ. Override for variables on a Lie group (a floating root's rotation,
        integrated as in hpp-constraints' hierarchical Newton solver), whose Jacobians are taken
        with respect to the step in the tangent space; the default is plain addition.
        """
        return theta + step
