"""What several resources' operations declare: the error groups a repository read or
write can meet, the page and path parameters, and the filter serializers that read
query parameters.
"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter
from rest_framework import serializers

from namespaces.errors import (
    RepositoryCorrupt,
    StorageMisconfigured,
    WriteConflict,
)
from retrieval.errors import EmbeddingUnavailable

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


class PageFilterSerializer(serializers.Serializer):
    """A page of a listing. Not strict: the other query parameters (``namespace``) are
    their owners' (``NamespaceScopedApi``)."""

    cursor = serializers.CharField(required=False, default=None)
    limit = serializers.IntegerField(min_value=1, max_value=200, default=50)


def filter_params(serializer_class: type[serializers.Serializer], request) -> dict:
    """The request's query parameters through a filter serializer (an empty value is an
    omitted one); ``invalid`` with ``details.fields`` otherwise."""
    data = {key: value for key, value in request.query_params.items() if value != ""}
    serializer = serializer_class(data=data)
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data
