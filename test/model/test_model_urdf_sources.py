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

"""Sources and encodings: BOM, a declared non-UTF-8 encoding, bytes, text vs path."""
from __future__ import annotations

import codecs
import os

import numpy as np
from pdls_ik.cli import main
from pdls_ik.errors import URDFError
from pdls_ik.model import load_urdf
import pytest

# names and a comment outside ASCII: the encoding matters
BODY = """<robot name="Gelenkarm-Müller">
  <!-- Schulter über dem Sockel, Ellbogen für 0,3 m -->
  <link name="Sockel"/><link name="Oberarm_ä"/><link name="Werkzeug_ß"/>
  <joint name="Schulter_é" type="revolute"><parent link="Sockel"/><child link="Oberarm_ä"/>
    <origin xyz="0 0 0.1"/><axis xyz="0 0 1"/>
    <limit lower="-1" upper="1" effort="5" velocity="2"/></joint>
  <joint name="Flansch" type="fixed"><parent link="Oberarm_ä"/><child link="Werkzeug_ß"/>
    <origin xyz="0.3 0 0"/></joint>
</robot>"""


def _declared(encoding):
    return f'<?xml version="1.0" encoding="{encoding}"?>\n{BODY}'


def _check(robot):
    assert robot.name == 'Gelenkarm-Müller' and robot.joint_names == ['Schulter_é']
    assert robot.link_names == ['Sockel', 'Oberarm_ä', 'Werkzeug_ß']
    np.testing.assert_allclose(robot.forward_kinematics([np.pi / 2], 'Werkzeug_ß')[:3, 3],
                               [0, 0.3, 0.1], atol=1e-15)


@pytest.mark.parametrize('data', [
    BODY.encode('utf-8'),
    codecs.BOM_UTF8 + BODY.encode('utf-8'),
    _declared('ISO-8859-1').encode('latin-1'),
    _declared('windows-1252').encode('cp1252'),
    _declared('UTF-16').encode('utf-16'),               # with its BOM
    codecs.BOM_UTF8 + _declared('UTF-8').encode('utf-8'),
], ids=['utf8', 'utf8-bom', 'latin1-declared', 'cp1252-declared', 'utf16-bom', 'bom+decl'])
def test_files_and_bytes_follow_their_bom_or_declared_encoding(tmp_path, data):
    path = tmp_path / 'arm.urdf'
    path.write_bytes(data)
    for source in (path, str(path), os.fsencode(path), data):
        _check(load_urdf(source))


@pytest.mark.parametrize('text', [BODY, '\ufeff' + BODY, _declared('ISO-8859-1'),
                                  '\ufeff\n  ' + _declared('UTF-16')],
                         ids=['plain', 'bom', 'declared-latin1', 'bom+blank+declared-utf16'])
def test_text_is_already_decoded(text):
    _check(load_urdf(text))


def test_text_is_xml_and_anything_else_a_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / 'arm.urdf').write_bytes(BODY.encode())
    _check(load_urdf('arm.urdf'))
    _check(load_urdf(b'arm.urdf'))
    with pytest.raises(URDFError, match="'robot.urdf': cannot read it: No such file"):
        load_urdf('robot.urdf')
    with pytest.raises(URDFError, match="as text must start with '<'"):
        load_urdf(b'robot')


@pytest.mark.parametrize('data,position', [
    ('<robot name="x">\n  <link name="S\u00e9"/></robot>'.encode('latin-1'),
     'byte 0xE9 at line 2, column 16 (byte offset 32) is not valid utf-8'),
    ('<?xml version="1.0" encoding="UTF-8"?>\n<robot name="\u00e9"/>'.encode('latin-1'),
     'byte 0xE9 at line 2, column 14 (byte offset 52) is not valid UTF-8'),
    (codecs.BOM_UTF8 + b'<robot name="\xff"/>',
     'byte 0xFF at line 1, column 14 (byte offset 16) is not valid utf-8 text (the byte-order'),
])
def test_undecodable_bytes_name_their_position(tmp_path, data, position):
    path = tmp_path / 'bad.urdf'
    path.write_bytes(data)
    for source, label in ((path, "URDF file '"), (data, 'URDF bytes')):
        with pytest.raises(URDFError, match=label) as info:
            load_urdf(source)
        assert position in str(info.value)


def test_unknown_encoding_is_named():
    with pytest.raises(URDFError, match="declares encoding 'klingon-8'"):
        load_urdf(_declared('klingon-8').encode('utf-8'))


def test_cli_reads_any_encoding_and_refuses_bad_bytes_in_one_line(tmp_path, capsys):
    good, bad = tmp_path / 'latin1.urdf', tmp_path / 'bad.urdf'
    good.write_bytes(_declared('ISO-8859-1').encode('latin-1'))
    bad.write_bytes(BODY.encode('latin-1'))   # no declaration: must be UTF-8, is not
    assert main(['info', str(good)]) == 0
    assert 'Schulter_é' in capsys.readouterr().out
    assert main(['info', str(bad)]) == 2
    out, err = capsys.readouterr()
    assert out == '' and len(err.strip().splitlines()) == 1
    assert 'byte 0xFC at line 1, column 25 (byte offset 24) is not valid utf-8' in err


@pytest.mark.parametrize('source,match', [
    (None, 'expected a path, XML text or bytes, got NoneType'), (3, 'got int'),
    ('arm\x00.urdf', 'embedded null byte'), ('x' * 5000, r"'x{200}\.\.\.': cannot read it"),
])
def test_odd_sources_are_named(source, match):
    with pytest.raises(URDFError, match=match):
        load_urdf(source)


def test_text_with_undecodable_characters_names_the_position():
    text = '<robot name="x">\n  <link name="S\udce9"/></robot>'   # surrogateescape of 0xE9
    with pytest.raises(URDFError, match=r"'\\udce9' at line 2, column 16 is a lone surrogate"):
        load_urdf(text)
