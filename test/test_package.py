"""The package's public names: every lazy export resolves, and ``import pdls_ik`` stays light."""
import subprocess
import sys

import pytest

import pdls_ik


@pytest.mark.parametrize("name", sorted(pdls_ik.__all__))
def test_every_public_name_resolves(name):
    obj = getattr(pdls_ik, name)
    assert getattr(obj, "__name__", name) == name


def test_unknown_attribute_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        pdls_ik.nope  # noqa: B018


def test_import_does_not_load_the_solver():
    code = ("import sys, pdls_ik; "
            "print(sorted(m for m in ('pdls_ik.ik', 'pdls_ik.model', 'scipy') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
