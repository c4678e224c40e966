"""The one JSON parser of every /v1/ endpoint.

DRF's parser hands back whatever ``json`` accepts, and some of that is parseable but
cannot be stored or even encoded: nesting deep enough to exhaust the interpreter's
recursion limit (``RecursionError`` was a 500), a lone surrogate (``"\\ud800"``, which
no UTF-8 encoder takes) and NUL (``"\\u0000"``, which Postgres refuses in text and
jsonb). Each is a ``400 malformed_json`` here, before any view sees the body, keys and
values alike. So is an object that names one key twice (``{"a": 1, "a": 2}``): ``json``
keeps the last silently, and which of two values a write meant is not ours to guess.
"""

from __future__ import annotations

import codecs

from rest_framework import parsers
from rest_framework.exceptions import ParseError
from rest_framework.utils import json

from gitloom.core.errors import MalformedJson

MAX_JSON_DEPTH = 64


class JSONParser(parsers.JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        # DRF's parse, with the duplicate-key check (DRF takes no ``object_pairs_hook``).
        decoded = codecs.getreader(parsers.get_encoding(parser_context or {}))(stream)
        parse_constant = json.strict_constant if self.strict else None
        try:
            data = json.load(decoded, parse_constant=parse_constant, object_pairs_hook=_object_once)
        except RecursionError:
            raise MalformedJson(f"JSON nested deeper than {MAX_JSON_DEPTH} levels.") from None
        except ValueError as exc:
            raise ParseError(f"JSON parse error - {exc}") from None
        check_json(data)
        return data


def _object_once(pairs: list[tuple[str, object]]) -> dict:
    seen: set[str] = set()
    for key, _value in pairs:
        if key in seen:
            raise MalformedJson(f"A JSON object names the key {key!r} more than once.")
        seen.add(key)
    return dict(pairs)


def check_json(data: object) -> None:
    """Raise ``MalformedJson`` for nesting past ``MAX_JSON_DEPTH``, NUL or a lone
    surrogate anywhere in ``data`` (walked without recursion)."""
    stack: list[tuple[object, int]] = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, str):
            _check_text(value)
        elif isinstance(value, dict | list):
            if depth > MAX_JSON_DEPTH:
                raise MalformedJson(f"JSON nested deeper than {MAX_JSON_DEPTH} levels.")
            if isinstance(value, dict):
                for key, item in value.items():
                    _check_text(key)
                    stack.append((item, depth + 1))
            else:
                stack.extend((item, depth + 1) for item in value)


def _check_text(text: str) -> None:
    if "\x00" in text:
        raise MalformedJson("A JSON string holds NUL (\\u0000), which cannot be stored.")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise MalformedJson(
            "A JSON string holds a lone surrogate (such as \\ud800), which is not Unicode text."
        ) from None


class RawBodyParser(parsers.BaseParser):
    """The body as bytes, whatever its content type (an import's tar.gz or git bundle).

    A view that reads its body raw still needs a parser: a dashboard session's CSRF
    check reads ``request.POST``, which makes DRF parse the body, and with no parser
    that was ``415`` for every content type.
    """

    media_type = "*/*"

    def parse(self, stream, media_type=None, parser_context=None) -> bytes:
        return stream.read() if stream is not None else b""
