from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    extend_schema,
    extend_schema_field,
)
from rest_framework import serializers
from rest_framework.response import Response

from gitloom.core.errors import InvalidInput
from gitloom.core.openapi import raises
from gitloom.core.serializers import SharedFieldsSerializer, TextField
from namespaces.apis import NAMESPACE_PARAM, NamespaceScopedApi
from namespaces.errors import CommitPurged
from namespaces.memory_format import TIERS
from retrieval.errors import (
    AmbiguousCommit,
    AsOfBeforeHistory,
    AsOfNotFound,
    EmbeddingUnavailable,
    InvalidArms,
    InvalidAsOf,
    InvalidLimit,
    InvalidQuery,
    QueryTooLong,
)
from retrieval.output import retrieval_output
from retrieval.query import ARMS
from retrieval.selectors import MAX_LIMIT, retrieve
from retrieval.serializers import MemoryHeaderSerializer
from retrieval.telemetry import retrieval_observe


def _split(values: list[str]) -> list[str]:
    """``?tag=a&tag=b`` and ``?tag=a,b`` mean the same."""
    return [part.strip() for value in values for part in value.split(",") if part.strip()]


class LexicalArmSerializer(serializers.Serializer):
    rank = serializers.IntegerField()
    score = serializers.FloatField(help_text="BM25")

    class Meta:
        ref_name = "LexicalArm"


class SemanticArmSerializer(serializers.Serializer):
    rank = serializers.IntegerField()
    cue = serializers.CharField(help_text="the cue whose vector matched")
    similarity = serializers.FloatField(help_text="cosine similarity of query and cue")

    class Meta:
        ref_name = "SemanticArm"


class GraphViaSerializer(serializers.Serializer):
    # `from` is a Python keyword: the field is named in __init__.
    type = serializers.CharField(help_text="the link's type")
    direction = serializers.ChoiceField(
        choices=["out", "in"], help_text="out: the hit links to this memory; in: the reverse"
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["from"] = serializers.CharField(help_text="the hit the link starts from")

    class Meta:
        ref_name = "GraphVia"


class GraphArmSerializer(serializers.Serializer):
    rank = serializers.IntegerField(help_text="the rank of the hit the link came from")
    via = GraphViaSerializer()

    class Meta:
        ref_name = "GraphArm"


class ArmsSerializer(serializers.Serializer):
    """Which arms found the memory, and how; an arm that did not find it is absent."""

    lexical = LexicalArmSerializer(required=False)
    semantic = SemanticArmSerializer(required=False)
    graph = GraphArmSerializer(required=False)

    class Meta:
        ref_name = "Arms"


class ResultSerializer(MemoryHeaderSerializer):
    field_order = (
        "path", "score", "arms", "graph_only", "content", "tier", "tags", "cues",
        "created", "updated", "confidence", "sources", "related",
    )  # fmt: skip

    path = serializers.CharField()
    score = serializers.FloatField(help_text="a rank artefact: comparable within one response")
    arms = ArmsSerializer()
    graph_only = serializers.BooleanField(
        help_text="only the graph arm brought it: linked to a hit, not itself a match "
        "for the query (drop these for strict relevance)"
    )
    content = serializers.CharField(source="memory.body", help_text="the memory's body")

    class Meta:
        ref_name = "Result"


@extend_schema_field(
    {
        "type": "object",
        "nullable": True,
        "properties": {
            "commit": {"type": "string", "description": "the commit whose index was read"},
            "time": {
                "type": "string",
                "format": "date-time",
                "description": "when that commit was made (stored: its committer date)",
            },
            "said": {
                "type": "string",
                "format": "date-time",
                "description": "when what that commit records was said (its author date: "
                "a job's latest message timestamp; otherwise as `time`)",
            },
            "by": {
                "type": "string",
                "enum": ["stored", "said"],
                "description": "which of the two times a time in `as_of` was compared with",
            },
        },
        "required": ["commit", "time", "said", "by"],
    }
)
class AsOfField(serializers.Field):
    """``{"commit", "time", "said", "by"}`` of the past commit read, or null for the head.
    (A nested serializer cannot be nullable in an OpenAPI 3.0 schema: ``allOf`` drops it.)"""

    def to_representation(self, value):
        time_field = serializers.DateTimeField()
        return {
            "commit": value.commit,
            "time": time_field.to_representation(value.time),
            "said": time_field.to_representation(value.said or value.time),
            "by": value.by,
        }


class RetrievalOutputSerializer(serializers.Serializer):
    tenant = serializers.CharField(help_text="the account id")
    namespace = serializers.CharField()
    commit = serializers.CharField(
        allow_null=True, help_text="the namespace's repository head (its last write)"
    )
    indexed_commit = serializers.CharField(
        allow_null=True,
        help_text="the commit the index, and so these results, reflect; "
        "differs from `commit` while the index is behind the head",
    )
    took_ms = serializers.FloatField()
    as_of = AsOfField(
        allow_null=True,
        help_text="with an `as_of` parameter, the past commit the results come from "
        "(also in `commit` and `indexed_commit`); null for the head",
    )
    results = ResultSerializer(many=True)

    class Meta:
        ref_name = "Retrieval"


RETRIEVAL_EXAMPLE = {
    "tenant": "acme",
    "namespace": "user-8213",
    "commit": "9b1e6f3c2a0d4e5f8a7b6c5d4e3f2a1b0c9d8e7f",
    "indexed_commit": "9b1e6f3c2a0d4e5f8a7b6c5d4e3f2a1b0c9d8e7f",
    "took_ms": 7.4,
    "as_of": None,
    "results": [
        {
            "path": "facts/camera-gear/sony-a7iii-purchase-1c9e04aa.md",
            "score": 0.18,
            "graph_only": False,
            "arms": {
                "lexical": {"rank": 1, "score": 6.2},
                "semantic": {"rank": 1, "cue": "what camera do I own", "similarity": 0.83},
            },
            "content": "Bought a Sony A7III on 2026-07-31 from Fotocentre in Bengaluru.",
            "tier": "facts",
            "tags": ["camera", "purchase"],
            "cues": ["what camera do I own", "Sony A7III purchase"],
            "created": "2026-07-31T09:12:00Z",
            "updated": "2026-07-31T09:12:00Z",
            "confidence": 0.9,
            "sources": ["msg-2041"],
            "related": [
                {"type": "same-purchase", "path": "facts/camera-gear/kit-lens-28-70-9a01c4de.md"}
            ],
        },
        {
            "path": "facts/camera-gear/kit-lens-28-70-9a01c4de.md",
            "score": 0.04,
            "graph_only": True,
            "arms": {
                "graph": {
                    "rank": 1,
                    "via": {
                        "from": "facts/camera-gear/sony-a7iii-purchase-1c9e04aa.md",
                        "type": "same-purchase",
                        "direction": "out",
                    },
                }
            },
            "content": "The Sony A7III came with the 28-70 mm kit lens.",
            "tier": "facts",
            "tags": ["camera", "lens"],
            "cues": ["which lens came with my camera"],
            "created": "2026-07-31T09:12:00Z",
            "updated": "2026-07-31T09:12:00Z",
            "confidence": 0.8,
            "sources": ["msg-2042"],
            "related": [],
        },
    ],
}


class RetrieveApi(NamespaceScopedApi):
    class FilterSerializer(SharedFieldsSerializer):
        # Only shape here; the rules with their own codes (an empty or NUL-bearing query,
        # its length, the limit's range, the arms) are the selector's, retrieval.selectors.
        # Its fields are shared (every retrieval validates with them): defaults immutable.
        query = TextField()
        namespace = serializers.CharField(required=False, allow_blank=True)
        limit = serializers.IntegerField(default=10)
        tier = serializers.ListField(child=serializers.ChoiceField(choices=TIERS), default=list)
        tag = serializers.ListField(child=serializers.CharField(max_length=300), default=list)
        arms = serializers.ListField(child=serializers.CharField(), default=ARMS)
        min_similarity = serializers.FloatField(
            min_value=-1.0, max_value=1.0, required=False, default=None, allow_null=True
        )
        # Checked by the selector (a commit id or a time): its message is the one shown.
        as_of = serializers.CharField(required=False, default=None, allow_blank=True)
        as_of_by = serializers.CharField(required=False, default="stored")

    @extend_schema(
        operation_id="retrieve_retrieve",
        summary="Retrieve the memories that best answer a query",
        description="Three arms look for memories: lexical (BM25 over cues and bodies), "
        "semantic (nearest cue vectors) and graph (one hop along `related` links from the "
        "others' best hits). Their rankings are merged by weighted reciprocal-rank fusion "
        "and aged by tier. No model call apart from embedding the query. The results are "
        "evidence for the caller's own model, not an answer.",
        parameters=[
            OpenApiParameter(
                "query", OpenApiTypes.STR, required=True, description="1-1000 characters"
            ),
            NAMESPACE_PARAM,
            OpenApiParameter("limit", OpenApiTypes.INT, description=f"1-{MAX_LIMIT}, default 10"),
            OpenApiParameter(
                "tier", OpenApiTypes.STR, many=True, description="any of (repeat or comma-separate)"
            ),
            OpenApiParameter(
                "tag", OpenApiTypes.STR, many=True, description="all of (repeat or comma-separate)"
            ),
            OpenApiParameter(
                "arms",
                OpenApiTypes.STR,
                description="comma-separated subset of lexical,semantic,graph (graph alone "
                "is refused: it follows the others' hits)",
            ),
            OpenApiParameter(
                "min_similarity",
                OpenApiTypes.FLOAT,
                description="the semantic arm's relevance floor, a cosine similarity in "
                "-1..1: a memory no cue of which is at least this similar to the query is "
                "not found by the semantic arm (nor followed by the graph arm); default none",
            ),
            OpenApiParameter(
                "as_of",
                OpenApiTypes.STR,
                description="read the namespace as it was at a past commit: a commit id "
                "(7-40 hex digits, a unique prefix) or an ISO-8601 time (the last commit "
                "made at or before it; UTC when it has no offset). The same query and "
                "commit always give the same results: BM25 statistics are that commit's, "
                "the semantic arm is exact and ageing counts to the commit's time. "
                "Default: the head",
                examples=[
                    OpenApiExample("commit", value="9b1e6f3"),
                    OpenApiExample("time", value="2026-07-31T09:12:00Z"),
                ],
            ),
            OpenApiParameter(
                "as_of_by",
                OpenApiTypes.STR,
                enum=["stored", "said"],
                description="which time of a commit a time in `as_of` is compared with: "
                "`stored` (default; when it was committed) or `said` (when its conversation "
                "was said: a job's commit carries its latest message timestamp), so a "
                "backfilled conversation is searched as of when it was said. Ignored for a "
                "commit id",
            ),
        ],
        responses={200: RetrievalOutputSerializer},
        examples=[OpenApiExample("camera", value=RETRIEVAL_EXAMPLE)],
    )
    @raises(
        InvalidInput,
        InvalidQuery,
        QueryTooLong,
        InvalidLimit,
        InvalidArms,
        InvalidAsOf,
        AmbiguousCommit,
        AsOfNotFound,
        CommitPurged,
        AsOfBeforeHistory,
        EmbeddingUnavailable,
    )
    def get(self, request, namespace):
        params = request.query_params
        data = {key: params.get(key) for key in params if key not in ("tier", "tag", "arms")}
        for key in ("tier", "tag", "arms"):
            if key in params:
                data[key] = _split(params.getlist(key))
        serializer = self.FilterSerializer(data=data)
        serializer.is_valid(raise_exception=True)
        args = serializer.validated_data
        found = retrieve(
            namespace=namespace,
            query=args["query"],
            limit=args["limit"],
            tiers=args["tier"],
            tags=args["tag"],
            arms=args["arms"],
            min_similarity=args["min_similarity"],
            as_of=args["as_of"],
            as_of_by=args["as_of_by"],
        )
        retrieval_observe(found, arms=args["arms"])
        # Built directly: the serializer above declares it (tests hold the two equal).
        return Response(retrieval_output(found))
