from __future__ import annotations

from django.conf import settings
from django.http import HttpResponse
from drf_spectacular.extensions import OpenApiSerializerFieldExtension
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    extend_schema,
    extend_schema_field,
)
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from gitloom.errors import EmptyBody, InvalidInput, InvalidPath, PayloadTooLarge
from gitloom.openapi import raises
from gitloom.parsers import RawBodyParser
from gitloom.serializers import StrictCharField, StrictSerializer
from memories.errors import (
    IdempotencyKeyReused,
    ImportTooLarge,
    InvalidArchive,
    InvalidFormat,
    InvalidIdempotencyKey,
    InvalidMatch,
    InvalidTier,
    InvalidTranscript,
    JobNotFinished,
    JobNotFound,
    JobNotRevertible,
    MemoryNotFound,
    NothingToRevert,
    RevertConflict,
)
from memories.models import Job
from memories.selectors import (
    job_get_for_account,
    job_page,
    memory_blame,
    memory_get,
    memory_history,
    memory_list,
    namespace_changes,
    namespace_export,
)
from memories.services import (
    import_accept,
    job_accept,
    job_revert,
    memory_delete,
    memory_import,
    memory_purge,
    namespace_purge,
)
from memories.transcripts import MAX_ID_CHARS, MAX_MESSAGE_CHARS, MAX_MESSAGES, ROLES
from namespaces.apis import NAMESPACE_PARAM, NamespaceScopedApi
from namespaces.errors import (
    BundleTooLarge,
    CommitNotInHistory,
    CommitPurged,
    InvalidBundle,
    InvalidCommitId,
    PathConflict,
    RepositoryCorrupt,
    StorageMisconfigured,
    WriteConflict,
)
from namespaces.memory_format import TIERS, InvalidMemory
from retrieval.embeddings import EmbeddingUnavailable

# What any call that reads or writes a namespace's repository can meet besides the
# common errors; a write also brings the index up, which embeds the new cues.
REPOSITORY_ERRORS = (RepositoryCorrupt, StorageMisconfigured)
WRITE_ERRORS = (*REPOSITORY_ERRORS, WriteConflict, EmbeddingUnavailable)

PAGE_PARAMS = [
    OpenApiParameter("cursor", str, description="the previous page's `next_cursor`"),
    OpenApiParameter("limit", int, description="1-200, default 50"),
]

COMMIT = "9b1e6f3c2a0d4e5f8a7b6c5d4e3f2a1b0c9d8e7f"
PATH = "facts/camera-gear/sony-a7iii-purchase-1c9e04aa.md"
BLOB = "3f2a91c0d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9"
RAW = (
    "---\ntier: facts\ntags: [camera, purchase]\ncreated: 2026-07-31T09:12:00Z\n"
    "updated: 2026-07-31T09:12:00Z\nconfidence: 0.9\ncues:\n  - what camera do I own\n"
    "  - Sony A7III purchase\nsources:\n  - msg-2041\n---\n\n"
    "Bought a Sony A7III on 2026-07-31 from Fotocentre in Bengaluru.\n"
)
MEMORY_EXAMPLE = {
    "path": PATH,
    "blob": BLOB,
    "commit": COMMIT,
    "tier": "facts",
    "tags": ["camera", "purchase"],
    "created": "2026-07-31T09:12:00Z",
    "updated": "2026-07-31T09:12:00Z",
    "confidence": 0.9,
    "cues": ["what camera do I own", "Sony A7III purchase"],
    "related": [],
    "sources": ["msg-2041"],
    "body": "Bought a Sony A7III on 2026-07-31 from Fotocentre in Bengaluru.",
    "raw": RAW,
}
JOB_EXAMPLE = {
    "id": "5d0c0a56-7a4e-4c53-9d8e-2f1b3c4d5e6f",
    "namespace": "user-8213",
    "status": "done",
    "session_id": "chat-2026-07-31",
    "created": "2026-07-31T09:12:00.412Z",
    "started": "2026-07-31T09:12:00.530Z",
    "finished": "2026-07-31T09:12:01.874Z",
    "attempts": 1,
    "extractor": "offline",
    "prompt_version": "2026-07-01",
    "commit": COMMIT,
    "result": {"created": [PATH], "rewritten": [], "linked": []},
    "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0, "calls": 0},
    "error": None,
}
QUEUED_JOB_EXAMPLE = {
    **JOB_EXAMPLE,
    "status": "queued",
    "started": None,
    "finished": None,
    "attempts": 0,
    "extractor": "",
    "prompt_version": "",
    "commit": "",
    "result": {},
    "usage": {},
}


# --- memories ----------------------------------------------------------------------


class LinkSerializer(serializers.Serializer):
    type = serializers.CharField(help_text="the kind of link, e.g. `same-trip`")
    path = serializers.CharField(help_text="the linked memory's path")

    class Meta:
        ref_name = "MemoryLink"


class Utf8Field(serializers.CharField):
    """Bytes read from the repository, as text (memory files are UTF-8 by rule)."""

    def to_representation(self, value: bytes) -> str:
        return value.decode("utf-8")


class MemorySummarySerializer(serializers.Serializer):
    path = serializers.CharField()
    blob = serializers.CharField(help_text="git blob hash of the file")
    tier = serializers.ChoiceField(choices=list(TIERS), source="memory.tier")
    tags = serializers.ListField(child=serializers.CharField(), source="memory.tags")
    cues = serializers.ListField(child=serializers.CharField(), source="memory.cues")
    updated = serializers.DateTimeField(source="memory.updated")

    class Meta:
        ref_name = "MemorySummary"


class MemoryDetailSerializer(serializers.Serializer):
    path = serializers.CharField()
    blob = serializers.CharField(help_text="git blob hash of the file")
    commit = serializers.CharField(help_text="the commit the memory was read at")
    tier = serializers.ChoiceField(choices=list(TIERS), source="memory.tier")
    tags = serializers.ListField(child=serializers.CharField(), source="memory.tags")
    created = serializers.DateTimeField(source="memory.created")
    updated = serializers.DateTimeField(source="memory.updated")
    confidence = serializers.FloatField(allow_null=True, source="memory.confidence")
    cues = serializers.ListField(child=serializers.CharField(), source="memory.cues")
    related = LinkSerializer(many=True, source="memory.related")
    sources = serializers.ListField(child=serializers.CharField(), source="memory.sources")
    body = serializers.CharField(source="memory.body")
    raw = Utf8Field(help_text="the markdown file, byte for byte")

    class Meta:
        ref_name = "Memory"


class MemoryPageSerializer(serializers.Serializer):
    commit = serializers.CharField(help_text="the head the page was read at")
    memories = MemorySummarySerializer(many=True, source="items")
    next_cursor = serializers.CharField(
        allow_null=True, help_text="pass as `cursor` for the next page; null on the last"
    )

    class Meta:
        ref_name = "MemoryPage"


class MemoryForgottenSerializer(serializers.Serializer):
    path = serializers.CharField()
    deleted = serializers.BooleanField()
    commit = serializers.CharField(help_text="the commit that removed the file")

    class Meta:
        ref_name = "MemoryForgotten"


class VersionSerializer(serializers.Serializer):
    commit = serializers.CharField()
    time = serializers.DateTimeField()
    message = serializers.CharField()
    trailers = serializers.DictField(child=serializers.CharField())
    change = serializers.ChoiceField(choices=["add", "modify", "delete"], source="kind")
    blob = serializers.CharField(allow_null=True, help_text="null when the change deleted it")
    diff = serializers.CharField(source="diff_text", help_text="unified diff to the previous")

    class Meta:
        ref_name = "MemoryVersion"


class MemoryHistorySerializer(serializers.Serializer):
    path = serializers.CharField()
    versions = VersionSerializer(many=True, help_text="newest first")

    class Meta:
        ref_name = "MemoryHistory"


class PurgeSerializer(serializers.Serializer):
    id = serializers.UUIDField(
        source="public_id", allow_null=True, help_text="the purge record; null when nothing matched"
    )
    kind = serializers.ChoiceField(choices=["path", "match"])
    created = serializers.DateTimeField(allow_null=True)
    credential = serializers.CharField(
        help_text="who asked: `api_key <name> (<prefix>)` or `session <user>`"
    )
    paths = serializers.ListField(
        child=serializers.CharField(),
        help_text="the files whose versions were erased (a match purge writes the "
        "matched text in a name as `[purged]`)",
    )
    versions = serializers.IntegerField(help_text="file versions erased")
    previous_commit = serializers.CharField(help_text="the head before the purge")
    commit = serializers.CharField(help_text="the head now: the purge commit")
    commits_replaced = serializers.IntegerField(
        help_text="commit ids the rewrite replaced; they now answer `410 commit_purged`"
    )
    objects_deleted = serializers.IntegerField(
        help_text="object-storage objects (pack files) deleted before answering"
    )

    class Meta:
        ref_name = "Purge"


# --- jobs --------------------------------------------------------------------------


class JobResultSerializer(serializers.Serializer):
    created = serializers.ListField(child=serializers.CharField(), required=False)
    rewritten = serializers.ListField(child=serializers.CharField(), required=False)
    linked = serializers.ListField(child=serializers.CharField(), required=False)

    class Meta:
        ref_name = "JobResult"


class JobUsageSerializer(serializers.Serializer):
    prompt_tokens = serializers.IntegerField(required=False)
    completion_tokens = serializers.IntegerField(required=False)
    total_tokens = serializers.IntegerField(required=False)
    calls = serializers.IntegerField(required=False, help_text="model requests that answered")

    class Meta:
        ref_name = "JobUsage"


# Inline, not a component: OpenAPI 3.0 cannot make a referenced schema nullable (a
# `nullable` beside `allOf: [$ref]` is ignored by strict validators and generators).
@extend_schema_field(
    {
        "type": "object",
        "nullable": True,
        "properties": {"code": {"type": "string"}, "message": {"type": "string"}},
        "required": ["code", "message"],
        "additionalProperties": False,
        "description": "why it failed (the codes are in docs/API.md); null unless it did",
    }
)
class JobErrorField(serializers.Field):
    def __init__(self, **kwargs):
        super().__init__(source="*", read_only=True, **kwargs)

    def to_representation(self, job: Job) -> dict | None:
        if not job.error_code:
            return None
        return {"code": job.error_code, "message": job.error_message}


class JobSerializer(serializers.Serializer):
    class Meta:
        ref_name = "Job"

    id = serializers.UUIDField(source="public_id")
    namespace = serializers.CharField(source="namespace.name")
    status = serializers.ChoiceField(choices=Job.Status.values)
    session_id = serializers.CharField(allow_blank=True)
    created = serializers.DateTimeField()
    started = serializers.DateTimeField(allow_null=True)
    finished = serializers.DateTimeField(allow_null=True)
    attempts = serializers.IntegerField()
    extractor = serializers.CharField(
        allow_blank=True, help_text="`offline` or the model that ran it; empty until it runs"
    )
    prompt_version = serializers.CharField(allow_blank=True)
    commit = serializers.CharField(allow_blank=True, help_text="empty when nothing was written")
    result = JobResultSerializer(help_text="the paths the job wrote; empty until it is done")
    usage = JobUsageSerializer(help_text="tokens spent; empty until it has run")
    error = JobErrorField()


class JobEnvelopeSerializer(serializers.Serializer):
    job = JobSerializer(source="*")

    class Meta:
        ref_name = "JobEnvelope"


class JobPageSerializer(serializers.Serializer):
    jobs = JobSerializer(many=True, source="items", help_text="newest first")
    next_cursor = serializers.CharField(
        allow_null=True, help_text="pass as `cursor` for the next page; null on the last"
    )

    class Meta:
        ref_name = "JobPage"


# --- writing -----------------------------------------------------------------------


class MessageSerializer(serializers.Serializer):
    """One message of a transcript, as the schema shows it (``memories.transcripts``
    enforces it, with its own error codes)."""

    role = serializers.ChoiceField(choices=sorted(ROLES))
    content = serializers.CharField(max_length=MAX_MESSAGE_CHARS)
    id = serializers.CharField(
        required=False,
        allow_null=True,
        max_length=MAX_ID_CHARS,
        help_text="unique within the request; what memories' `sources` cite",
    )
    name = serializers.CharField(required=False, allow_null=True, max_length=MAX_ID_CHARS)
    timestamp = serializers.CharField(
        required=False, allow_null=True, help_text="ISO 8601; without a zone, UTC"
    )

    class Meta:
        ref_name = "Message"


class MessagesField(serializers.JSONField):
    """The transcript, taken as it comes: ``memories.transcripts`` checks it and answers
    ``invalid_transcript`` (or 413); the schema shows its shape (below)."""


class MessagesFieldSchema(OpenApiSerializerFieldExtension):
    target_class = MessagesField

    def map_serializer_field(self, auto_schema, direction):
        messages = serializers.ListField(child=MessageSerializer())
        schema = auto_schema._map_serializer_field(messages, direction)
        return {**schema, "minItems": 1, "maxItems": MAX_MESSAGES}


@extend_schema_field({"type": "string", "nullable": True, "maxLength": MAX_ID_CHARS})
class SessionIdField(serializers.JSONField):
    pass


@extend_schema_field({"type": "object", "nullable": True, "additionalProperties": {}})
class MetadataField(serializers.JSONField):
    pass


class MemoryListCreateApi(NamespaceScopedApi):
    class InputSerializer(StrictSerializer):
        # Only shape here: the transcript's rules (and codes) are memories.transcripts'.
        namespace = StrictCharField(required=False, allow_null=True, help_text="omitted: `default`")
        messages = MessagesField()
        session_id = SessionIdField(required=False)
        metadata = MetadataField(required=False, help_text="kept with the job")

        class Meta:
            ref_name = "MemoryWrite"

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
        examples=[
            OpenApiExample(
                "page",
                value={
                    "commit": COMMIT,
                    "memories": [
                        {
                            key: MEMORY_EXAMPLE[key]
                            for key in ("path", "blob", "tier", "tags", "cues", "updated")
                        }
                    ],
                    "next_cursor": None,
                },
            )
        ],
    )
    @raises(InvalidTier, InvalidInput, *REPOSITORY_ERRORS)
    def get(self, request, namespace):
        params = request.query_params
        tier = params.get("tier") or None
        if tier is not None and tier not in TIERS:
            raise InvalidTier(f"tier must be one of {', '.join(TIERS)}.")
        limit = _int_param(params.get("limit"), default=50, low=1, high=200, name="limit")
        page = memory_list(
            namespace=namespace,
            tier=tier,
            tag=params.get("tag") or None,
            cursor=params.get("cursor") or None,
            limit=limit,
        )
        return Response(MemoryPageSerializer(page).data)

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
            OpenApiExample(
                "transcript",
                request_only=True,
                value={
                    "namespace": "user-8213",
                    "session_id": "chat-2026-07-31",
                    "messages": [
                        {
                            "role": "user",
                            "content": "I just bought a Sony A7III!",
                            "id": "msg-2041",
                            "name": "dana",
                            "timestamp": "2026-07-31T09:12:00Z",
                        },
                        {"role": "assistant", "content": "Congratulations! Which lens?"},
                    ],
                    "metadata": {"channel": "web"},
                },
            ),
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


def _int_param(value: str | None, *, default: int, low: int, high: int, name: str) -> int:
    if value in (None, ""):
        return default
    try:
        number = int(value)
    except ValueError:
        number = low - 1
    if not low <= number <= high:
        raise InvalidInput(f"{name} must be an integer from {low} to {high}.")
    return number


PATH_PARAM = OpenApiParameter(
    "path",
    str,
    OpenApiParameter.PATH,
    description="the memory's path, slashes included (`<tier>/<topic>/<name>.md`)",
)


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
            OpenApiExample("forgotten", value={"path": PATH, "deleted": True, "commit": COMMIT})
        ],
    )
    @raises(InvalidPath, MemoryNotFound, *WRITE_ERRORS)
    def delete(self, request, path: str, namespace):
        result = memory_delete(namespace=namespace, path=path)
        forgotten = {"path": path, "deleted": True, "commit": result.commit}
        return Response(MemoryForgottenSerializer(forgotten).data)


PURGE_EXAMPLE = {
    "id": "0b7d2c1e-4f5a-4b6c-8d9e-0f1a2b3c4d5e",
    "kind": "path",
    "created": "2026-08-02T10:00:00Z",
    "credential": "api_key backend (glk_AbCdEfGh)",
    "paths": [PATH],
    "versions": 2,
    "previous_commit": "4c2a1f0e9d8c7b6a5f4e3d2c1b0a9f8e7d6c5b4a",
    "commit": COMMIT,
    "commits_replaced": 5,
    "objects_deleted": 12,
}
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

    def _namespace_name(self, request) -> str | None:
        # A body field, as on every write; `?namespace=` is taken too, so a purge can
        # never fall back to `default` because the name was put in the query.
        body = super()._namespace_name(request)
        query = request.query_params.get("namespace")
        if body is not None and query is not None and body != query:
            raise InvalidInput("The namespace is given twice, differently (body and query).")
        return body if body is not None else query

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


class MemoryHistoryApi(NamespaceScopedApi):
    @extend_schema(
        operation_id="memories_history_retrieve",
        summary="Every version of a memory, with diffs",
        description="Newest first: each commit that added, rewrote or removed the file, "
        "with its message, trailers (`Gitloom-Job` names the job that wrote it) and diff.",
        parameters=[PATH_PARAM, NAMESPACE_PARAM],
        responses={200: MemoryHistorySerializer},
        examples=[
            OpenApiExample(
                "history",
                value={
                    "path": PATH,
                    "versions": [
                        {
                            "commit": COMMIT,
                            "time": "2026-07-31T09:12:01Z",
                            "message": "Ingest job 5d0c0a56-7a4e-4c53-9d8e-2f1b3c4d5e6f: "
                            "1 new, 0 rewritten (offline extractor)",
                            "trailers": {
                                "Gitloom-Job": "5d0c0a56-7a4e-4c53-9d8e-2f1b3c4d5e6f",
                                "Gitloom-Extractor": "offline",
                            },
                            "change": "add",
                            "blob": BLOB,
                            "diff": "--- /dev/null\n+++ b/" + PATH + "\n@@ -0,0 +1,3 @@\n+---\n",
                        }
                    ],
                },
            )
        ],
    )
    @raises(InvalidPath, MemoryNotFound, *REPOSITORY_ERRORS)
    def get(self, request, path: str, namespace):
        versions = memory_history(namespace=namespace, path=path)
        return Response(MemoryHistorySerializer({"path": path, "versions": versions}).data)


# --- provenance: blame ---------------------------------------------------------------


class SourceMessageSerializer(serializers.Serializer):
    id = serializers.CharField(help_text="the id `sources` cites (posted, or given by the job)")
    role = serializers.CharField()
    name = serializers.CharField(allow_null=True)
    timestamp = serializers.CharField(allow_null=True, help_text="ISO 8601, UTC")
    content = serializers.CharField()

    class Meta:
        ref_name = "SourceMessage"


# Inline, not a component, for the same reason as JobErrorField: it is nullable.
@extend_schema_field(
    {
        "type": "object",
        "nullable": True,
        "properties": {
            "id": {"type": "string", "format": "uuid"},
            "status": {"type": "string", "enum": Job.Status.values},
            "session_id": {"type": "string"},
            "created": {"type": "string", "format": "date-time"},
        },
        "required": ["id", "status", "session_id", "created"],
        "additionalProperties": False,
        "description": "the job that made the commit (`GET /v1/jobs/{id}`): a job of this "
        "namespace named by the commit's `Gitloom-Job` trailer; null for a commit no job "
        "of this namespace made (a forget, an import, history brought in by a bundle)",
    }
)
class BlameJobField(serializers.Field):
    def __init__(self, **kwargs):
        super().__init__(read_only=True, **kwargs)

    def to_representation(self, job: Job | None) -> dict | None:
        if job is None:
            return None
        return {
            "id": str(job.public_id),
            "status": job.status,
            "session_id": job.session_id,
            "created": serializers.DateTimeField().to_representation(job.created),
        }


class BlameCommitSerializer(serializers.Serializer):
    commit = serializers.CharField()
    time = serializers.DateTimeField()
    message = serializers.CharField()
    action = serializers.CharField(
        help_text="`ingest` (a job of this namespace), else the `Gitloom-Action` trailer "
        "(`forget`, `import`, `revert`, ...), else `other` (e.g. history from a bundle)"
    )
    trailers = serializers.DictField(child=serializers.CharField())
    job = BlameJobField()
    session_id = serializers.CharField(allow_null=True, help_text="`Gitloom-Session`")
    extractor = serializers.CharField(
        allow_null=True, help_text="`Gitloom-Extractor`: `offline` or the model's name"
    )
    prompt_version = serializers.CharField(allow_null=True, help_text="`Gitloom-Prompt-Version`")
    sources = serializers.ListField(
        child=serializers.CharField(), help_text="the memory's `sources` as this commit left it"
    )
    messages = SourceMessageSerializer(
        many=True, help_text="the job's messages that those sources cite (empty without a job)"
    )

    class Meta:
        ref_name = "BlameCommit"


class BlameHunkSerializer(serializers.Serializer):
    start = serializers.IntegerField(help_text="the first line's number, from 1")
    lines = serializers.ListField(child=serializers.CharField(allow_blank=True))
    commit = serializers.CharField(help_text="the commit that last changed these lines")

    class Meta:
        ref_name = "BlameHunk"


class MemoryBlameSerializer(serializers.Serializer):
    path = serializers.CharField()
    commit = serializers.CharField(help_text="the head the file was blamed at")
    blob = serializers.CharField(help_text="the file's blob at that head")
    lines = serializers.IntegerField(source="line_count", help_text="lines in the file")
    hunks = BlameHunkSerializer(
        many=True, help_text="the file in order, consecutive lines of one commit together"
    )
    commits = BlameCommitSerializer(
        many=True, help_text="each commit of `hunks` once, newest first"
    )

    class Meta:
        ref_name = "MemoryBlame"


BLAME_JOB = "5d0c0a56-7a4e-4c53-9d8e-2f1b3c4d5e6f"
BLAME_EXAMPLE = {
    "path": PATH,
    "commit": COMMIT,
    "blob": BLOB,
    "lines": 14,
    "hunks": [
        {"start": 1, "lines": ["---", "tier: facts"], "commit": COMMIT},
        {
            "start": 3,
            "lines": ["tags: [camera, purchase]", "created: 2026-07-31T09:12:00Z"],
            "commit": "1c2b3a4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b",
        },
    ],
    "commits": [
        {
            "commit": COMMIT,
            "time": "2026-08-02T18:40:11Z",
            "message": f"Ingest job {BLAME_JOB}: 0 new, 1 rewritten (offline extractor)",
            "action": "ingest",
            "trailers": {
                "Gitloom-Job": BLAME_JOB,
                "Gitloom-Session": "chat-2026-08-02",
                "Gitloom-Extractor": "offline",
                "Gitloom-Prompt-Version": "2026-07-01",
            },
            "job": {
                "id": BLAME_JOB,
                "status": "done",
                "session_id": "chat-2026-08-02",
                "created": "2026-08-02T18:40:10.402Z",
            },
            "session_id": "chat-2026-08-02",
            "extractor": "offline",
            "prompt_version": "2026-07-01",
            "sources": ["msg-2041", "msg-2230"],
            "messages": [
                {
                    "id": "msg-2230",
                    "role": "user",
                    "name": "dana",
                    "timestamp": "2026-08-02T18:39:58Z",
                    "content": "Actually I got the A7III from Fotocentre's Indiranagar shop.",
                }
            ],
        },
        {
            "commit": "1c2b3a4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b",
            "time": "2026-07-31T09:12:01Z",
            "message": "Import 1 memory files",
            "action": "import",
            "trailers": {"Gitloom-Action": "import", "Gitloom-Import": "tar"},
            "job": None,
            "session_id": None,
            "extractor": None,
            "prompt_version": None,
            "sources": ["msg-2041"],
            "messages": [],
        },
    ],
}


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


class JobListApi(NamespaceScopedApi):
    @extend_schema(
        operation_id="jobs_list",
        summary="Recent jobs of a namespace (paginated)",
        description="The namespace's jobs, newest first, 50 a page; pass `next_cursor` "
        "back as `cursor` for the next page.",
        parameters=[NAMESPACE_PARAM, *PAGE_PARAMS],
        responses={200: JobPageSerializer},
        examples=[
            OpenApiExample("jobs", value={"jobs": [JOB_EXAMPLE], "next_cursor": None}),
        ],
    )
    @raises(InvalidInput)
    def get(self, request, namespace):
        params = request.query_params
        limit = _int_param(params.get("limit"), default=50, low=1, high=200, name="limit")
        page = job_page(namespace=namespace, cursor=params.get("cursor") or None, limit=limit)
        return Response(JobPageSerializer(page).data)


class JobDetailApi(APIView):
    @extend_schema(
        operation_id="job_get",
        summary="A write's status and outcome",
        description="`status` is `queued`, `running`, `done` or `failed`. A done job names "
        "its commit and the paths it created, rewrote and linked; a failed one carries "
        "`error` (for example `model_unavailable`) and wrote nothing.",
        responses={200: JobEnvelopeSerializer},
        examples=[OpenApiExample("done", value={"job": JOB_EXAMPLE})],
    )
    @raises(JobNotFound)
    def get(self, request, job_id: str):
        job = job_get_for_account(account=request.auth.account, job_id=job_id)
        return Response(JobEnvelopeSerializer(job).data)


# --- reverting a job ---------------------------------------------------------------


class StrictBooleanField(serializers.BooleanField):
    """true or false, not the strings and numbers DRF would take for them."""

    def to_internal_value(self, data):
        if not isinstance(data, bool):
            self.fail("invalid", input=data)
        return data


class InTheWayCommitSerializer(serializers.Serializer):
    commit = serializers.CharField()
    time = serializers.DateTimeField()
    message = serializers.CharField(help_text="the commit message's first line")
    action = serializers.CharField(
        help_text="what made it: `ingest` (a job), `forget`, `import`, `revert`, or `other`"
    )
    job = serializers.CharField(allow_null=True, help_text="the job that made it, if a job did")

    class Meta:
        ref_name = "RevertBlockingCommit"


class InTheWaySerializer(serializers.Serializer):
    path = serializers.CharField()
    change = serializers.ChoiceField(
        choices=["add", "modify", "delete"], help_text="what the reverted job did to the file"
    )
    now = serializers.ChoiceField(
        choices=["changed", "removed"], help_text="what later commits did to it"
    )
    commits = InTheWayCommitSerializer(many=True, help_text="the later commits, newest first")

    class Meta:
        ref_name = "RevertSkippedFile"


class RevertSerializer(serializers.Serializer):
    job = serializers.UUIDField(source="job.public_id", help_text="the reverted job")
    namespace = serializers.CharField(source="job.namespace.name")
    commit = serializers.CharField(help_text="the revert commit")
    reverted_commit = serializers.CharField(help_text="the job's commit, which it undoes")
    already_reverted = serializers.SerializerMethodField(
        help_text="true when the job had been reverted before: `commit` is that revert, "
        "and nothing was written now"
    )
    removed = serializers.ListField(
        child=serializers.CharField(), help_text="files the job created, now removed"
    )
    restored = serializers.ListField(
        child=serializers.CharField(),
        help_text="files the job rewrote, back to their content before it",
    )
    unlinked = serializers.ListField(
        child=serializers.CharField(),
        help_text="other memories whose `related` links to removed files were dropped",
    )
    skipped = InTheWaySerializer(
        many=True, help_text="with `force`: files left as they are, changed since the job"
    )

    class Meta:
        ref_name = "Revert"

    def get_already_reverted(self, revert) -> bool:
        return not revert.created


REVERT_EXAMPLE = {
    "job": JOB_EXAMPLE["id"],
    "namespace": "user-8213",
    "commit": "4c1f0e2d9b8a7c6d5e4f3a2b1c0d9e8f7a6b5c4d",
    "reverted_commit": COMMIT,
    "already_reverted": False,
    "removed": [PATH],
    "restored": ["facts/work/employer-zalando-77e1a0c2.md"],
    "unlinked": ["facts/camera-gear/kit-lens-28-70-9a01c4de.md"],
    "skipped": [],
}
SKIPPED_EXAMPLE = {
    "path": "facts/pets/beagle-biscuit-5b2e9d10.md",
    "change": "modify",
    "now": "changed",
    "commits": [
        {
            "commit": "8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c",
            "time": "2026-08-02T10:00:03Z",
            "message": "Ingest job 0f3b...: 0 new, 1 rewritten (offline extractor)",
            "action": "ingest",
            "job": "0f3b8a6e-2c1d-4e5f-9a8b-7c6d5e4f3a2b",
        }
    ],
}


class JobRevertApi(APIView):
    class InputSerializer(StrictSerializer):
        force = StrictBooleanField(
            required=False,
            default=False,
            help_text="revert the files nobody changed since and skip the others, instead "
            "of refusing with `revert_conflict`",
        )
        namespace = StrictCharField(
            required=False,
            help_text="if given, the job must belong to this namespace (else `job_not_found`)",
        )

        class Meta:
            ref_name = "JobRevert"

    @extend_schema(
        operation_id="job_revert",
        summary="Revert one job: a new commit that undoes exactly what it wrote",
        description="Reads what the job did from its commit (the diff against its parent): "
        "files it created are removed, and links to them are dropped from other memories "
        "(as forgetting does); files it rewrote get their earlier content back. If a later "
        "commit changed or removed one of them, nothing is written: `409 revert_conflict`, "
        "whose `details.conflicts` names each such file and the commits in the way "
        "(`force` reverts the rest and lists them in `skipped`). `201` with the new "
        "commit; asked again, `200` with the same commit (`already_reverted`) and nothing "
        "written. Only a `done` job with a commit can be reverted. The revert waits for "
        "the namespace's running job, if any, and lands between two jobs; retrieval stops "
        "finding the reverted content at once.",
        request=InputSerializer,
        responses={201: RevertSerializer, 200: RevertSerializer},
        examples=[
            OpenApiExample("revert", request_only=True, value={}),
            OpenApiExample("force", request_only=True, value={"force": True}),
            OpenApiExample(
                "reverted", response_only=True, status_codes=["201"], value=REVERT_EXAMPLE
            ),
            OpenApiExample(
                "reverted, one file skipped",
                response_only=True,
                status_codes=["201"],
                value={**REVERT_EXAMPLE, "restored": [], "skipped": [SKIPPED_EXAMPLE]},
            ),
            OpenApiExample(
                "reverted before",
                response_only=True,
                status_codes=["200"],
                value={**REVERT_EXAMPLE, "already_reverted": True},
            ),
        ],
    )
    @raises(
        JobNotFound,
        JobNotFinished,
        NothingToRevert,
        JobNotRevertible,
        RevertConflict,
        CommitNotInHistory,
        *WRITE_ERRORS,
    )
    def post(self, request, job_id: str):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        fields = data.validated_data
        job = job_get_for_account(account=request.auth.account, job_id=job_id)
        if "namespace" in fields and fields["namespace"] != job.namespace.name:
            raise JobNotFound()
        revert = job_revert(job=job, force=fields["force"])
        return Response(RevertSerializer(revert).data, status=201 if revert.created else 200)


# --- changes since a commit, for keeping a copy in sync ----------------------------


class ChangedMemorySerializer(serializers.Serializer):
    path = serializers.CharField()
    change = serializers.ChoiceField(choices=["add", "modify", "delete"])
    blob = serializers.CharField(allow_null=True, help_text="at `commit`; null when deleted")
    commit = serializers.CharField(help_text="the commit that last touched the file")
    time = serializers.DateTimeField(help_text="that commit's time")
    action = serializers.CharField(
        help_text="what that commit was: `ingest`, `forget`, `import`, ... or `other`"
    )
    job = serializers.UUIDField(
        allow_null=True,
        help_text="the job that made that commit; null when none of this namespace did",
    )

    class Meta:
        ref_name = "ChangedMemory"


class ChangesPageSerializer(serializers.Serializer):
    since = serializers.CharField(allow_null=True, help_text="as asked; null: a full listing")
    commit = serializers.CharField(
        help_text="the head the changes lead to: store it and ask `since` it next time"
    )
    changes = ChangedMemorySerializer(many=True, help_text="in path order")
    next_cursor = serializers.CharField(
        allow_null=True, help_text="pass as `cursor` (with the same `since`); null on the last"
    )

    class Meta:
        ref_name = "ChangesPage"


class NamespaceChangesApi(NamespaceScopedApi):
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
        examples=[
            OpenApiExample(
                "changes",
                value={
                    "since": "1c2b3a4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b",
                    "commit": COMMIT,
                    "changes": [
                        {
                            "path": PATH,
                            "change": "modify",
                            "blob": BLOB,
                            "commit": COMMIT,
                            "time": "2026-08-02T18:40:11Z",
                            "action": "ingest",
                            "job": BLAME_JOB,
                        },
                        {
                            "path": "events/lisbon-trip/hotel-avenida-palace-3f2a91c0.md",
                            "change": "delete",
                            "blob": None,
                            "commit": "7e6d5c4b3a2f1e0d9c8b7a6f5e4d3c2b1a0f9e8d",
                            "time": "2026-08-01T11:02:45Z",
                            "action": "forget",
                            "job": None,
                        },
                    ],
                    "next_cursor": None,
                },
            )
        ],
    )
    @raises(InvalidCommitId, InvalidInput, CommitNotInHistory, CommitPurged, *REPOSITORY_ERRORS)
    def get(self, request, namespace):
        params = request.query_params
        limit = _int_param(params.get("limit"), default=200, low=1, high=1000, name="limit")
        page = namespace_changes(
            namespace=namespace,
            since=params.get("since") or None,
            cursor=params.get("cursor") or None,
            limit=limit,
        )
        return Response(ChangesPageSerializer(page).data)


# --- taking a namespace away, and bringing one in ----------------------------------


class NamespaceExportApi(NamespaceScopedApi):
    @extend_schema(
        operation_id="namespaces_export_retrieve",
        summary="The namespace's repository, to take away",
        description="`format=bundle` (the default): a git bundle of the whole history "
        "(`git clone` works on it). `format=tar`: a tar.gz of the memory files at the head.",
        parameters=[OpenApiParameter("format", str, enum=["bundle", "tar"])],
        responses={
            (200, "application/x-git-bundle"): OpenApiTypes.BINARY,
            (200, "application/gzip"): OpenApiTypes.BINARY,
        },
    )
    @raises(InvalidFormat, *REPOSITORY_ERRORS)
    def get(self, request, namespace):
        export = namespace_export(
            namespace=namespace, fmt=request.query_params.get("format", "bundle")
        )
        response = HttpResponse(export.data, content_type=export.content_type)
        response["Content-Disposition"] = f'attachment; filename="{export.filename}"'
        return response


class ImportResultSerializer(serializers.Serializer):
    commit = serializers.CharField(help_text="the namespace's head after the import")
    created = serializers.ListField(child=serializers.CharField())
    modified = serializers.ListField(child=serializers.CharField())
    deleted = serializers.ListField(child=serializers.CharField())

    class Meta:
        ref_name = "ImportResult"


class NamespaceImportApi(NamespaceScopedApi):
    parser_classes: list = []  # the body is read raw: a tar.gz or a git bundle

    def get_parsers(self):
        # Raw bytes for any content type, so a session's CSRF check (which reads
        # request.POST) does not make DRF refuse the body as 415 (gitloom.parsers).
        return [RawBodyParser()]

    @extend_schema(
        operation_id="namespaces_import_create",
        summary="Import a tar.gz of memory files or a git bundle (all or nothing)",
        description="The raw body is a tar.gz of memory files (added or replaced at their "
        "paths) or a git bundle (its history, on top of the namespace's). The format is "
        "sniffed when `format` is not given. Every file is validated first; all of it lands "
        "in one commit or none does. `201` with what changed, `200` when nothing did. "
        "A body over `GITLOOM_IMPORT_INLINE_BYTES` (16 KiB) is not run inside the request: "
        "it is `202` with a job (poll `GET /v1/jobs/<id>`) that ends `done` (committed and "
        "indexed; `result.created`/`rewritten` name the paths) or `failed` (nothing "
        "committed; `error` says why, with the codes listed here).",
        parameters=[OpenApiParameter("format", str, enum=["tar", "bundle"])],
        request={
            "application/gzip": OpenApiTypes.BINARY,
            "application/x-git-bundle": OpenApiTypes.BINARY,
        },
        responses={
            201: ImportResultSerializer,
            200: ImportResultSerializer,
            202: JobEnvelopeSerializer,
        },
        examples=[
            OpenApiExample(
                "queued",
                response_only=True,
                status_codes=["202"],
                value={"job": QUEUED_JOB_EXAMPLE},
            ),
            OpenApiExample(
                "imported",
                response_only=True,
                status_codes=["201"],
                value={"commit": COMMIT, "created": [PATH], "modified": [], "deleted": []},
            ),
            OpenApiExample(
                "unchanged",
                response_only=True,
                status_codes=["200"],
                value={"commit": COMMIT, "created": [], "modified": [], "deleted": []},
            ),
        ],
    )
    @raises(
        EmptyBody,
        InvalidFormat,
        InvalidArchive,
        InvalidMemory,
        InvalidPath,
        ImportTooLarge,
        InvalidBundle,
        PathConflict,
        PayloadTooLarge,
        BundleTooLarge,
        *WRITE_ERRORS,
    )
    def post(self, request, namespace):
        data = request.data  # bytes (RawBodyParser); {} for an empty body
        if not data:
            raise EmptyBody("Send the archive as the request body.")
        kind = request.query_params.get("format") or "auto"
        if len(data) > settings.GITLOOM_IMPORT_INLINE_BYTES:
            # Too big to validate, commit and index inside a request: a job does it.
            job = import_accept(namespace=namespace, data=data, kind=kind)
            return Response(JobEnvelopeSerializer(job).data, status=202)
        result = memory_import(namespace=namespace, data=data, kind=kind)
        return Response(ImportResultSerializer(result).data, status=201 if not result.noop else 200)
