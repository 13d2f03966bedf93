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

"""The package's public names: every lazy export resolves, and ``import pdls_ik`` stays light."""
import subprocess
import sys

import pdls_ik
import pytest


@pytest.mark.parametrize('name', sorted(pdls_ik.__all__))
def test_every_public_name_resolves(name):
    obj = getattr(pdls_ik, name)
    assert getattr(obj, '__name__', name) == name


def test_unknown_attribute_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        pdls_ik.nope  # noqa: B018


def test_import_does_not_load_the_solver():
    code = ('import sys, pdls_ik; '
            "print(sorted(m for m in ('pdls_ik.ik', 'pdls_ik.model', 'scipy') "
            'if m in sys.modules))')
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == '[]'
