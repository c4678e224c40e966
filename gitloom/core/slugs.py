"""The slug charset shared by account ids and namespace names.

It is a security boundary: storage keys join segments with ``#`` and ``/``, so a
segment must never be able to contain either.
"""

from __future__ import annotations

import re

from gitloom.core.errors import InvalidName

SLUG_PATTERN = r"[a-z0-9-]{1,64}"  # the one spelling: checks, constraints, storage keys
SLUG_RE = re.compile(SLUG_PATTERN)
SLUG_RULE = "1-64 characters of a-z, 0-9 and '-'"


def is_slug(value: object) -> bool:
    return isinstance(value, str) and SLUG_RE.fullmatch(value) is not None


def validate_slug(value: object, *, what: str = "name") -> str:
    if not is_slug(value):
        raise InvalidName(f"Invalid {what}: use {SLUG_RULE}.")
    return value  # type: ignore[return-value]
