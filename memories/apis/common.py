"""What several resources' operations declare: the error groups a repository read or
write can meet, the page and path parameters, and the integer query parameter parser.
"""

from __future__ import annotations

from drf_spectacular.utils import (
    OpenApiParameter,
)

from gitloom.core.errors import InvalidInput
from namespaces.errors import (
    RepositoryCorrupt,
    StorageMisconfigured,
    WriteConflict,
)
from retrieval.embeddings import EmbeddingUnavailable

# What any call that reads or writes a namespace's repository can meet besides the
# common errors; a write also brings the index up, which embeds the new cues.
REPOSITORY_ERRORS = (RepositoryCorrupt, StorageMisconfigured)


WRITE_ERRORS = (*REPOSITORY_ERRORS, WriteConflict, EmbeddingUnavailable)


PAGE_PARAMS = [
    OpenApiParameter("cursor", str, description="the previous page's `next_cursor`"),
    OpenApiParameter("limit", int, description="1-200, default 50"),
]


PATH_PARAM = OpenApiParameter(
    "path",
    str,
    OpenApiParameter.PATH,
    description="the memory's path, slashes included (`<tier>/<topic>/<name>.md`)",
)


def int_param(value: str | None, *, default: int, low: int, high: int, name: str) -> int:
    if value in (None, ""):
        return default
    try:
        number = int(value)
    except ValueError:
        number = low - 1
    if not low <= number <= high:
        raise InvalidInput(f"{name} must be an integer from {low} to {high}.")
    return number
