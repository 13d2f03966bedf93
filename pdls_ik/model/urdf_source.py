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
Robot description sources: a path, XML text or XML bytes, in whatever encoding they declare.

A file is read as bytes and handed to the XML parser (expat) unchanged, so the encoding follows
the XML rules (XML 1.0 §4.3.3, Appendix F): a byte-order mark (UTF-8, UTF-16), else the
``encoding`` of the XML declaration (e.g. ``ISO-8859-1``), else UTF-8. XML given as a ``str`` is
already decoded: its declaration is ignored and a leading byte-order mark is dropped.
"""
from __future__ import annotations

import codecs
import os
from pathlib import Path
import re
from typing import Optional, Tuple, Union
import xml.etree.ElementTree as ET

from pdls_ik.errors import URDFError

Source = Union[str, bytes, os.PathLike]
XMLData = Union[str, bytes]

_BOMS = (codecs.BOM_UTF8, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)
_DECLARED = re.compile(rb'^\s*<\?xml[^>]*?encoding\s*=\s*["\']([A-Za-z0-9._-]+)["\']')


def _looks_like_xml(data: XMLData) -> bool:
    if isinstance(data, bytes):
        if data.startswith(_BOMS):
            return True
        return data.lstrip().startswith(b'<')
    return data.lstrip('\ufeff \t\r\n').startswith('<')


def read_source(source: Source) -> Tuple[XMLData, str]:
    """
    Return (XML data, label) for a file path, XML text, XML bytes or robot_description contents.

    A ``str`` or ``bytes`` whose first character after blanks (and a byte-order mark) is ``<``
    is XML; any other ``str``/``bytes``, and any ``os.PathLike``, is a path. Files are read as
    bytes: the XML parser applies their byte-order mark or declared encoding.

    :return: the XML as ``str`` (text given as text, leading blanks and BOM removed) or
        ``bytes`` (files and bytes input), and a label for messages ("URDF file 'x.urdf'").
    :raises URDFError: an empty source; a file that cannot be read (missing, a folder, no
        permission, a name too long or with a NUL), naming the path; a source of another type.
    """
    if isinstance(source, (str, bytes)) and (_looks_like_xml(source) or not source.strip()):
        if isinstance(source, str):
            return source.lstrip('\ufeff \t\r\n'), 'URDF string'
        return source, 'URDF bytes'
    try:
        path = Path(os.fsdecode(source))
    except TypeError:
        raise URDFError(f'robot description: expected a path, XML text or bytes, got '
                        f'{type(source).__name__}') from None
    shown = str(path) if len(str(path)) <= 200 else f'{str(path)[:200]}...'
    try:
        return path.read_bytes(), f"URDF file '{shown}'"
    except (OSError, ValueError) as exc:  # ValueError: a NUL character in the path
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        hint = '' if path.suffix or path.parent != Path('.') else \
            " (a URDF given as text must start with '<')"
        raise URDFError(f"URDF file '{shown}': cannot read it: {reason}{hint}") from None


def _is_blank(data: XMLData) -> bool:
    if isinstance(data, str):
        return not data.strip('\ufeff \t\r\n')
    for bom in _BOMS:
        if data.startswith(bom):
            return not data[len(bom):].decode('utf-8' if bom == _BOMS[0] else 'utf-16',
                                              errors='replace').strip()
    return not data.strip()


def _encoding_of(data: bytes) -> Tuple[str, int]:
    """Return (encoding, BOM length) by the XML rules: BOM, else declaration, else UTF-8."""
    if data.startswith(codecs.BOM_UTF8):
        return 'utf-8', len(codecs.BOM_UTF8)
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return ('utf-16-le' if data.startswith(codecs.BOM_UTF16_LE) else 'utf-16-be'), 2
    declared = _DECLARED.match(data)
    return (declared.group(1).decode('ascii') if declared else 'utf-8'), 0


def _undecodable(data: bytes, label: str) -> Optional[URDFError]:
    """Name the first byte that is not valid in the document's encoding (None if none is)."""
    encoding, skip = _encoding_of(data)
    try:
        data[skip:].decode(encoding)
    except LookupError:
        return URDFError(f"{label} declares encoding '{encoding}', which is not a known "
                         'character encoding')
    except UnicodeDecodeError as exc:
        at = skip + exc.start
        line_start = max(data.rfind(b'\n', 0, at) + 1, skip)
        line = data.count(b'\n', 0, at) + 1
        column = len(data[line_start:at].decode(encoding, errors='replace')) + 1
        source = 'declared' if _DECLARED.match(data) and not skip else \
            ('byte-order mark' if skip else 'XML default')
        return URDFError(f'{label}: byte 0x{data[at]:02X} at line {line}, column {column} '
                         f'(byte offset {at}) is not valid {encoding} text (the {source} '
                         'encoding); save the file in the encoding it declares')
    return None


def parse_xml(data: XMLData, label: str) -> ET.Element:
    """
    Parse ``data`` as XML whose root element is ``<robot>``.

    :raises URDFError: empty, not well-formed (with line and column), bytes not valid in the
        declared encoding (naming the byte and its position), unknown encoding, another root.
    """
    if _is_blank(data):
        raise URDFError(f'{label} is empty: no robot description')
    try:
        root = ET.fromstring(data)
    except ET.ParseError as exc:
        bad = _undecodable(data, label) if isinstance(data, bytes) else None
        raise (bad or URDFError(f'{label} is not well-formed XML: {exc}')) from None
    except UnicodeEncodeError as exc:  # text holding lone surrogates (undecodable bytes)
        head = data[:exc.start]
        line, column = head.count('\n') + 1, exc.start - (head.rfind('\n') + 1) + 1
        raise URDFError(f'{label}: character {data[exc.start]!r} at line {line}, column '
                        f'{column} is a lone surrogate, not text (bytes decoded with errors='
                        "'surrogateescape'?); pass the bytes or the file instead") from None
    except LookupError:  # an encoding name expat hands to Python's codecs, unknown there
        raise (_undecodable(data, label) or URDFError(f'{label}: unknown character encoding')) \
            from None
    if root.tag != 'robot':
        raise URDFError(f'{label}: root element is <{root.tag}>, expected <robot>')
    return root
