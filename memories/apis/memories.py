"""Memories: list a namespace's memories, post a transcript (a job), read one, forget one.

``/v1/memories`` serves two operations on one route; each has its own class
(``MemoryListApi``, ``MemoryCreateApi``) and ``MemoryListCreateApi`` mounts both.
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
from gitloom.core.serializers import StrictCharField, StrictSerializer
from memories.apis.common import (
    PAGE_PARAMS,
    PATH_PARAM,
    REPOSITORY_ERRORS,
    WRITE_ERRORS,
    PageFilterSerializer,
    filter_params,
)
from memories.apis.examples import (
    COMMIT,
    MEMORY_EXAMPLE,
    MEMORY_PAGE_EXAMPLE,
    PATH,
    QUEUED_JOB_EXAMPLE,
    TRANSCRIPT_EXAMPLE,
)
from memories.apis.serializers import (
    JobEnvelopeSerializer,
    MemoryDetailSerializer,
    MemoryForgottenSerializer,
    MemoryPageSerializer,
    MessagesField,
    MetadataField,
    SessionIdField,
)
from memories.errors import (
    IdempotencyKeyReused,
    InvalidIdempotencyKey,
    InvalidTier,
    InvalidTranscript,
    MemoryNotFound,
)
from memories.selectors import (
    memory_get,
    memory_list,
)
from memories.services import (
    job_accept,
    memory_delete,
)
from namespaces.apis import NAMESPACE_PARAM, NamespaceScopedApi
from namespaces.memory_format import TIERS


class MemoryListApi(NamespaceScopedApi):
    class FilterSerializer(PageFilterSerializer):
        # A string: which tiers exist is memory_list's rule (`invalid_tier`).
        tier = serializers.CharField(required=False, default=None)
        tag = serializers.CharField(required=False, default=None)

    @extend_schema(
        operation_id="memories_list",
        summary="List memories (paginated)",
        description="The memories at the namespace's head, in path order, 50 a page. "
        "Filter by `tier` and `tag`; pass `next_cursor` back as `cursor` for the next page.",
        parameters=[
            NAMESPACE_PARAM,
            OpenApiParameter("tier", str, enum=list(TIERS)),
            OpenApiParameter("tag", str, description="only memories carrying this tag"),
            *PAGE_PARAMS,
        ],
        responses={200: MemoryPageSerializer},
        examples=[OpenApiExample("page", value=MEMORY_PAGE_EXAMPLE)],
    )
    @raises(InvalidTier, InvalidInput, *REPOSITORY_ERRORS)
    def get(self, request, namespace):
        page = memory_list(namespace=namespace, **filter_params(self.FilterSerializer, request))
        return Response(MemoryPageSerializer(page).data)


class MemoryCreateApi(NamespaceScopedApi):
    class InputSerializer(StrictSerializer):
        # Only shape here: the transcript's rules (and codes) are memories.transcripts'.
        namespace = StrictCharField(required=False, allow_null=True, help_text="omitted: `default`")
        messages = MessagesField()
        session_id = SessionIdField(required=False)
        metadata = MetadataField(required=False, help_text="kept with the job")

        class Meta:
            ref_name = "MemoryWrite"

    @extend_schema(
        operation_id="memories_create",
        summary="Post a conversation; returns a job at once",
        description="Takes a transcript, not memories: a model (or the offline extractor) "
        "extracts every fact worth keeping, writes cues, links related facts and reconciles "
        "them with the namespace's memories, as one commit. The answer is immediate: a "
        "queued job to poll (`GET /v1/jobs/{id}`). Jobs of one namespace run in the order "
        "they were accepted. Everything is checked before anything is stored; once "
        "answered `202`, the write is accepted. The same `Idempotency-Key` with the same "
        "body returns the same job.",
        request=InputSerializer,
        parameters=[
            OpenApiParameter(
                "Idempotency-Key",
                str,
                OpenApiParameter.HEADER,
                description="makes retries safe: 1 to 255 printable characters (sent empty, it is "
                "`400 invalid_idempotency_key`)",
            )
        ],
        responses={202: JobEnvelopeSerializer},
        examples=[
            OpenApiExample("transcript", request_only=True, value=TRANSCRIPT_EXAMPLE),
            OpenApiExample(
                "accepted",
                response_only=True,
                status_codes=["202"],
                value={"job": QUEUED_JOB_EXAMPLE},
            ),
        ],
    )
    @raises(InvalidTranscript, InvalidIdempotencyKey, IdempotencyKeyReused)
    def post(self, request, namespace):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        fields = data.validated_data
        job, _created = job_accept(
            namespace=namespace,
            messages=fields["messages"],
            session_id=fields.get("session_id"),
            metadata=fields.get("metadata"),
            idempotency_key=request.headers.get("Idempotency-Key"),
        )
        return Response(JobEnvelopeSerializer(job).data, status=202)


class MemoryListCreateApi(MemoryListApi, MemoryCreateApi):
    """``/v1/memories``: the route that serves both operations (Django routes a path to
    one view); each operation is its own class above."""


class MemoryDetailApi(NamespaceScopedApi):
    @extend_schema(
        operation_id="memory_get",
        summary="One memory: header, body, raw markdown",
        description="The memory file at the namespace's head: its header fields, its "
        "body, and `raw`, the file byte for byte.",
        parameters=[PATH_PARAM, NAMESPACE_PARAM],
        responses={200: MemoryDetailSerializer},
        examples=[OpenApiExample("memory", value=MEMORY_EXAMPLE)],
    )
    @raises(InvalidPath, MemoryNotFound, *REPOSITORY_ERRORS)
    def get(self, request, path: str, namespace):
        item = memory_get(namespace=namespace, path=path)
        return Response(MemoryDetailSerializer(item).data)

    @extend_schema(
        operation_id="memories_destroy",
        summary="Forget a memory (a commit that removes it)",
        description="One commit that removes the file; its history keeps every version "
        "(`GET /v1/memories/{path}/history`). Retrieval stops finding it at once.",
        parameters=[PATH_PARAM, NAMESPACE_PARAM],
        responses={200: MemoryForgottenSerializer},
        examples=[
            OpenApiExample(
                "forgotten",
                value={"path": PATH, "deleted": True, "commit": COMMIT, "unlinked": []},
            )
        ],
    )
    @raises(InvalidPath, MemoryNotFound, *WRITE_ERRORS)
    def delete(self, request, path: str, namespace):
        result = memory_delete(namespace=namespace, path=path)
        forgotten = {
            "path": path,
            "deleted": True,
            "commit": result.commit,
            "unlinked": result.modified,
        }
        return Response(MemoryForgottenSerializer(forgotten).data)
