"""Provenance: where a memory came from (its history and its blame) and what changed in
a namespace since a commit (for keeping a copy in sync).
"""

from __future__ import annotations

from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    extend_schema,
)
from rest_framework import serializers
from rest_framework.response import Response

from gitloom.core.errors import InvalidInput, InvalidPath
from gitloom.core.openapi import raises
from memories.apis.common import PATH_PARAM, REPOSITORY_ERRORS, PageFilterSerializer, filter_params
from memories.apis.examples import (
    BLAME_EXAMPLE,
    CHANGES_EXAMPLE,
    HISTORY_EXAMPLE,
)
from memories.apis.serializers import (
    ChangesPageSerializer,
    MemoryBlameSerializer,
    MemoryHistorySerializer,
)
from memories.errors import (
    MemoryNotFound,
)
from memories.selectors import (
    memory_blame,
    memory_history,
    namespace_changes,
)
from namespaces.apis import NAMESPACE_PARAM, NamespaceScopedApi
from namespaces.errors import (
    CommitNotInHistory,
    CommitPurged,
    InvalidCommitId,
)


class MemoryHistoryApi(NamespaceScopedApi):
    @extend_schema(
        operation_id="memories_history_retrieve",
        summary="Every version of a memory, with diffs",
        description="Newest first: each commit that added, rewrote or removed the file, "
        "with its message, trailers (`Gitloom-Job` names the job that wrote it) and diff.",
        parameters=[PATH_PARAM, NAMESPACE_PARAM],
        responses={200: MemoryHistorySerializer},
        examples=[OpenApiExample("history", value=HISTORY_EXAMPLE)],
    )
    @raises(InvalidPath, MemoryNotFound, *REPOSITORY_ERRORS)
    def get(self, request, path: str, namespace):
        versions = memory_history(namespace=namespace, path=path)
        return Response(MemoryHistorySerializer({"path": path, "versions": versions}).data)


class MemoryBlameApi(NamespaceScopedApi):
    @extend_schema(
        operation_id="memories_blame_retrieve",
        summary="Where each line of a memory came from",
        description="Each line of the memory at the head, with the commit that last "
        "changed it (following first parents, as `git blame --first-parent`), grouped into "
        "`hunks` of consecutive lines of one commit. Each commit in `commits` says what "
        "wrote it: the job (`Gitloom-Job`), its session, extractor and prompt version, the "
        "memory's `sources` as that commit left it, and the messages of the job those "
        "sources cite. A commit no job made (a forget, an import, a revert) has `job` null "
        "and says what it was in `action` and `trailers`.",
        parameters=[PATH_PARAM, NAMESPACE_PARAM],
        responses={200: MemoryBlameSerializer},
        examples=[OpenApiExample("blame", value=BLAME_EXAMPLE)],
    )
    @raises(InvalidPath, MemoryNotFound, *REPOSITORY_ERRORS)
    def get(self, request, path: str, namespace):
        blame = memory_blame(namespace=namespace, path=path)
        return Response(MemoryBlameSerializer(blame).data)


class NamespaceChangesApi(NamespaceScopedApi):
    class FilterSerializer(PageFilterSerializer):
        since = serializers.CharField(required=False, default=None)  # checked by the selector
        limit = serializers.IntegerField(min_value=1, max_value=1000, default=200)

    @extend_schema(
        operation_id="namespaces_changes_retrieve",
        summary="The memories added, modified and deleted since a commit",
        description="What a client holding a copy of the namespace as of commit `since` must "
        "do to hold it as of `commit` (the head): the paths added, modified and deleted in "
        "between, in path order, each with the commit (and job) that last touched it; 200 "
        "a page (`limit` 1-1000), `next_cursor` for the next, which answers for the same "
        "`commit` however the namespace moves meanwhile. Without `since`: every memory at "
        "the head, as added. Keep `commit` and ask `since` it next time. A `since` that is "
        "not in the namespace's history (or no longer is: a purge rewrote it) is `410 "
        "commit_not_in_history` (`410 commit_purged` if a purge rewrote it): start over "
        "without `since` or from an export.",
        parameters=[
            OpenApiParameter("since", str, description="a commit id (40 hex digits)"),
            OpenApiParameter(
                "cursor",
                str,
                description="the previous page's `next_cursor`, with the same `since` "
                "(opaque and signed: any other string is `400 invalid`)",
            ),
            OpenApiParameter("limit", int, description="1-1000, default 200"),
        ],
        responses={200: ChangesPageSerializer},
        examples=[OpenApiExample("changes", value=CHANGES_EXAMPLE)],
    )
    @raises(InvalidCommitId, InvalidInput, CommitNotInHistory, CommitPurged, *REPOSITORY_ERRORS)
    def get(self, request, namespace):
        page = namespace_changes(
            namespace=namespace, **filter_params(self.FilterSerializer, request)
        )
        return Response(ChangesPageSerializer(page).data)
