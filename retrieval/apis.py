from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from gitloom.serializers import StrictSerializer
from namespaces.memory_format import TIERS
from retrieval.query import ARMS
from retrieval.selectors import MAX_LIMIT, MAX_QUERY_CHARS, retrieve


def _split(values: list[str]) -> list[str]:
    """``?tag=a&tag=b`` and ``?tag=a,b`` mean the same."""
    return [part.strip() for value in values for part in value.split(",") if part.strip()]


class ResultSerializer(serializers.Serializer):
    path = serializers.CharField()
    score = serializers.FloatField()
    arms = serializers.DictField()
    content = serializers.CharField()
    tier = serializers.CharField()
    tags = serializers.ListField(child=serializers.CharField())
    cues = serializers.ListField(child=serializers.CharField())
    created = serializers.DateTimeField()
    updated = serializers.DateTimeField()
    confidence = serializers.FloatField(allow_null=True)
    sources = serializers.ListField(child=serializers.CharField())
    related = serializers.ListField(child=serializers.DictField())


class RetrievalOutputSerializer(serializers.Serializer):
    tenant = serializers.CharField()
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
    results = ResultSerializer(many=True)


class RetrieveApi(APIView):
    class InputSerializer(StrictSerializer):
        query = serializers.CharField(max_length=MAX_QUERY_CHARS)
        namespace = serializers.CharField(required=False, allow_blank=True, max_length=64)
        limit = serializers.IntegerField(min_value=1, max_value=MAX_LIMIT, default=10)
        tier = serializers.ListField(child=serializers.ChoiceField(choices=TIERS), default=list)
        tag = serializers.ListField(child=serializers.CharField(max_length=300), default=list)
        arms = serializers.ListField(
            child=serializers.ChoiceField(choices=ARMS), allow_empty=False, default=list(ARMS)
        )

    @extend_schema(
        summary="Retrieve the memories that best answer a query",
        parameters=[
            OpenApiParameter("query", OpenApiTypes.STR, required=True),
            OpenApiParameter("namespace", OpenApiTypes.STR, description="default: default"),
            OpenApiParameter("limit", OpenApiTypes.INT, description=f"1..{MAX_LIMIT}, 10"),
            OpenApiParameter("tier", OpenApiTypes.STR, many=True, description="any of"),
            OpenApiParameter("tag", OpenApiTypes.STR, many=True, description="all of"),
            OpenApiParameter(
                "arms", OpenApiTypes.STR, description="comma-separated: lexical,semantic,graph"
            ),
        ],
        responses=RetrievalOutputSerializer,
    )
    def get(self, request):
        params = request.query_params
        data = {key: params.get(key) for key in params if key not in ("tier", "tag", "arms")}
        for key in ("tier", "tag", "arms"):
            if key in params:
                data[key] = _split(params.getlist(key))
        serializer = self.InputSerializer(data=data)
        serializer.is_valid(raise_exception=True)
        args = serializer.validated_data
        found = retrieve(
            account=request.auth.account,
            namespace=args.get("namespace"),
            query=args["query"],
            limit=args["limit"],
            tiers=args["tier"],
            tags=args["tag"],
            arms=args["arms"],
        )
        return Response(RetrievalOutputSerializer(found).data)
