"""Purges: erasing a memory, or everything that mentions a string, from all history
(unlike forgetting, which keeps earlier versions).
"""

from __future__ import annotations

from drf_spectacular.utils import (
    OpenApiExample,
    extend_schema,
)
from rest_framework.response import Response

from gitloom.core.errors import InvalidInput, InvalidPath
from gitloom.core.openapi import raises
from gitloom.core.serializers import StrictCharField, StrictSerializer
from memories.apis.common import PATH_PARAM, WRITE_ERRORS
from memories.apis.examples import (
    PURGE_EXAMPLE,
)
from memories.apis.serializers import (
    PurgeSerializer,
)
from memories.errors import (
    InvalidMatch,
    MemoryNotFound,
)
from memories.services import (
    memory_purge,
    namespace_purge,
)
from namespaces.apis import NAMESPACE_PARAM, NamespaceScopedApi

PURGE_DESCRIPTION = (
    " History is rewritten from the first commit that held it: new commits with the "
    "same messages, trailers, authors and times, without it, then one purge commit "
    "(trailers `Gitloom-Action: purge`, `Gitloom-Purge: <id>`, `Gitloom-Credential`). "
    "Before the answer: the new head is in place (compare-and-swap: a write that lands "
    "meanwhile is kept), every pack that held the erased versions is deleted from "
    "object storage, the index is rebuilt, and exports no longer hold it. The replaced "
    "commit ids answer `410 commit_purged` wherever a commit id is accepted. A purge "
    "cannot reach clones already taken or backups of the store (docs/API.md, "
    '"Purging").'
)


class MemoryPurgeApi(NamespaceScopedApi):
    class InputSerializer(StrictSerializer):
        namespace = StrictCharField(required=False, allow_null=True, help_text="omitted: `default`")

        class Meta:
            ref_name = "MemoryPurge"

    # A body field, as on every write; `?namespace=` is taken too, so a purge can never
    # fall back to `default` because the name was put in the query.
    namespace_in_query_too = True

    @extend_schema(
        operation_id="memories_purge",
        summary="Purge a memory: erase every version of it from all history",
        description="Unlike forgetting (`DELETE`), which keeps earlier versions in "
        "history, a purge erases the file at this path from every commit, forgotten or "
        "not. Files that link to it lose those links in the purge commit."
        + PURGE_DESCRIPTION
        + " The namespace is the body's `namespace` or the `namespace` query parameter.",
        parameters=[PATH_PARAM, NAMESPACE_PARAM],
        request=InputSerializer,
        responses={200: PurgeSerializer},
        examples=[
            OpenApiExample("purge", value={"namespace": "user-8213"}, request_only=True),
            OpenApiExample("purged", value=PURGE_EXAMPLE, response_only=True),
        ],
    )
    @raises(InvalidInput, InvalidPath, MemoryNotFound, *WRITE_ERRORS)
    def post(self, request, path: str, namespace):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        purge = memory_purge(namespace=namespace, path=path, by=request.auth.label)
        return Response(PurgeSerializer(purge).data)


class NamespacePurgeApi(NamespaceScopedApi):
    class InputSerializer(StrictSerializer):
        match = StrictCharField(
            allow_blank=True,
            trim_whitespace=False,
            help_text="3-200 characters; matched case-insensitively against every "
            "version's path and text (header and body)",
        )

        class Meta:
            ref_name = "NamespacePurge"

    @extend_schema(
        operation_id="namespaces_purge",
        summary="Purge everything that mentions a string, from all history",
        description="Erases every version of every file whose path or text contains "
        "`match` (case-insensitive); a file's versions that do not contain it (an "
        "earlier or later wording) stay. The string is also replaced by `[purged]` in "
        "commit messages and in the namespace's finished jobs' transcripts, and is not "
        "kept in the purge record. When nothing matches, nothing changes: `id` is null "
        "and `versions` 0." + PURGE_DESCRIPTION,
        request=InputSerializer,
        responses={200: PurgeSerializer},
        examples=[
            OpenApiExample("purge", value={"match": "Fotocentre"}, request_only=True),
            OpenApiExample(
                "purged",
                value={**PURGE_EXAMPLE, "kind": "match", "versions": 3},
                response_only=True,
            ),
        ],
    )
    @raises(InvalidMatch, *WRITE_ERRORS)
    def post(self, request, namespace):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        purge = namespace_purge(
            namespace=namespace, match=data.validated_data["match"], by=request.auth.label
        )
        return Response(PurgeSerializer(purge).data)
