"""The output serializers of the memories app's responses (and the transcript's shape
for the schema), by resource: memories, jobs, writing, provenance, revert, changes,
import. Each is the one that produces its response, so the schema is the wire.
"""

from __future__ import annotations

from drf_spectacular.extensions import OpenApiSerializerFieldExtension
from drf_spectacular.utils import (
    extend_schema_field,
)
from rest_framework import serializers

from memories.models import Job
from memories.transcripts import MAX_ID_CHARS, MAX_MESSAGE_CHARS, MAX_MESSAGES, ROLES
from namespaces.memory_format import TIERS
from retrieval.serializers import MemoryHeaderSerializer


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


class MemoryDetailSerializer(MemoryHeaderSerializer):
    field_order = (
        "path", "blob", "commit", "tier", "tags", "created", "updated", "confidence",
        "cues", "related", "sources", "body", "raw",
    )  # fmt: skip

    path = serializers.CharField()
    blob = serializers.CharField(help_text="git blob hash of the file")
    commit = serializers.CharField(help_text="the commit the memory was read at")
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
    unlinked = serializers.ListField(
        child=serializers.CharField(),
        help_text="the other memories that commit rewrote: their `related` links to the "
        "forgotten memory are dropped",
    )

    class Meta:
        ref_name = "MemoryForgotten"


class VersionSerializer(serializers.Serializer):
    commit = serializers.CharField()
    time = serializers.DateTimeField()
    said = serializers.DateTimeField(
        help_text="when what the commit records was said (its git author date: a job's "
        "latest message timestamp); `time` is when it was stored"
    )
    message = serializers.CharField()
    trailers = serializers.DictField(child=serializers.CharField())
    change = serializers.ChoiceField(choices=["add", "modify", "delete"], source="kind")
    blob = serializers.CharField(allow_null=True, help_text="null when the change deleted it")
    diff = serializers.CharField(source="diff_text", help_text="unified diff to the previous")
    path = serializers.CharField(
        help_text="where the file was in this version: history follows a memory whose "
        "file moved when a rewrite changed what it is about"
    )
    moved_from = serializers.CharField(
        source="previous_path",
        allow_null=True,
        help_text="on the version that moved the file here: the path it had before",
    )

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


class JobResultSerializer(serializers.Serializer):
    created = serializers.ListField(child=serializers.CharField(), required=False)
    rewritten = serializers.ListField(child=serializers.CharField(), required=False)
    linked = serializers.ListField(child=serializers.CharField(), required=False)
    moved = serializers.DictField(
        child=serializers.CharField(),
        required=False,
        help_text="old path -> new path of each rewritten memory whose file moved to name "
        "its new fact (the new path is in `rewritten`)",
    )

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


class NoSessionIsNull(serializers.CharField):
    """A session id as the API spells it everywhere: the id, or null when there is none
    (stored as "" on the job; older commits' trailer said "-")."""

    def __init__(self, **kwargs):
        super().__init__(allow_null=True, read_only=True, **kwargs)

    def to_representation(self, value):
        return value if value and value != "-" else None

    def get_attribute(self, instance):
        return super().get_attribute(instance) or None


class JobSerializer(serializers.Serializer):
    class Meta:
        ref_name = "Job"

    id = serializers.UUIDField(source="public_id")
    namespace = serializers.CharField(source="namespace.name")
    status = serializers.ChoiceField(choices=Job.Status.values)
    session_id = NoSessionIsNull(help_text="the transcript's `session_id`; null without one")
    created = serializers.DateTimeField()
    started = serializers.DateTimeField(allow_null=True)
    finished = serializers.DateTimeField(allow_null=True)
    attempts = serializers.IntegerField()
    age_seconds = serializers.FloatField(
        allow_null=True,
        read_only=True,
        help_text="seconds since it was accepted, while queued or running (a job that "
        "keeps ageing in `queued` means the queue is stuck); null once finished",
    )
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
            "session_id": {"type": "string", "nullable": True},
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
            "session_id": job.session_id or None,
            "created": serializers.DateTimeField().to_representation(job.created),
        }


class BlameCommitSerializer(serializers.Serializer):
    commit = serializers.CharField()
    time = serializers.DateTimeField()
    said = serializers.DateTimeField(
        help_text="when what the commit records was said (its git author date: a job's "
        "latest message timestamp); `time` is when it was stored"
    )
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


class ImportResultSerializer(serializers.Serializer):
    commit = serializers.CharField(help_text="the namespace's head after the import")
    created = serializers.ListField(child=serializers.CharField())
    modified = serializers.ListField(child=serializers.CharField())
    deleted = serializers.ListField(child=serializers.CharField())

    class Meta:
        ref_name = "ImportResult"
