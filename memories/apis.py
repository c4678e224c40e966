from __future__ import annotations

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    extend_schema,
    extend_schema_field,
    inline_serializer,
)
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from gitloom.errors import InvalidInput
from gitloom.serializers import StrictSerializer
from memories.errors import EmptyBody, InvalidTier
from memories.selectors import (
    job_get_for_account,
    job_list,
    memory_get,
    memory_history,
    memory_list,
    namespace_export,
)
from memories.services import job_accept, memory_delete, memory_import
from namespaces.memory_format import TIERS
from namespaces.selectors import namespace_get_for_account

NAMESPACE_PARAM = OpenApiParameter("namespace", str, description="Namespace (default `default`).")


def _namespace(request, name: str | None = None):
    if name is None:
        name = request.query_params.get("namespace")
    return namespace_get_for_account(account=request.auth.account, name=name)


def _memory_header(memory) -> dict:
    return {
        "tier": memory.tier,
        "tags": memory.tags,
        "created": memory.created.isoformat().replace("+00:00", "Z"),
        "updated": memory.updated.isoformat().replace("+00:00", "Z"),
        "confidence": memory.confidence,
        "cues": memory.cues,
        "related": [{"type": link.type, "path": link.path} for link in memory.related],
        "sources": memory.sources,
    }


class LinkSerializer(serializers.Serializer):
    type = serializers.CharField()
    path = serializers.CharField()

    class Meta:
        ref_name = "MemoryLink"


class MemoryHeaderSerializer(serializers.Serializer):
    path = serializers.CharField()
    blob = serializers.CharField(help_text="git blob hash of the file")
    tier = serializers.ChoiceField(choices=list(TIERS))
    tags = serializers.ListField(child=serializers.CharField())
    created = serializers.CharField()
    updated = serializers.CharField()
    confidence = serializers.FloatField(allow_null=True)
    cues = serializers.ListField(child=serializers.CharField())
    related = LinkSerializer(many=True)
    sources = serializers.ListField(child=serializers.CharField())


class MemoryDetailSerializer(MemoryHeaderSerializer):
    commit = serializers.CharField(help_text="the commit the memory was read at")
    body = serializers.CharField()
    raw = serializers.CharField(help_text="the markdown file, byte for byte")

    class Meta:
        ref_name = "Memory"


class MemorySummarySerializer(serializers.Serializer):
    path = serializers.CharField()
    blob = serializers.CharField()
    tier = serializers.CharField()
    tags = serializers.ListField(child=serializers.CharField())
    cues = serializers.ListField(child=serializers.CharField())
    updated = serializers.CharField()

    class Meta:
        ref_name = "MemorySummary"


class VersionSerializer(serializers.Serializer):
    commit = serializers.CharField()
    time = serializers.CharField()
    message = serializers.CharField()
    trailers = serializers.DictField(child=serializers.CharField())
    change = serializers.ChoiceField(choices=["add", "modify", "delete"])
    blob = serializers.CharField(allow_null=True)
    diff = serializers.CharField(help_text="unified diff to the previous version")

    class Meta:
        ref_name = "MemoryVersion"


class JobSerializer(serializers.Serializer):
    class Meta:
        ref_name = "Job"

    id = serializers.UUIDField(source="public_id")
    namespace = serializers.CharField(source="namespace.name")
    status = serializers.CharField()
    session_id = serializers.CharField()
    created = serializers.DateTimeField()
    started = serializers.DateTimeField(allow_null=True)
    finished = serializers.DateTimeField(allow_null=True)
    attempts = serializers.IntegerField()
    extractor = serializers.CharField()
    prompt_version = serializers.CharField()
    commit = serializers.CharField()
    result = serializers.DictField()
    usage = serializers.DictField()
    error = serializers.SerializerMethodField()

    @extend_schema_field(
        inline_serializer(
            "JobError", {"code": serializers.CharField(), "message": serializers.CharField()}
        )
    )
    def get_error(self, job) -> dict | None:
        if not job.error_code:
            return None
        return {"code": job.error_code, "message": job.error_message}


class MemoryListCreateApi(APIView):
    class InputSerializer(StrictSerializer):
        # Only shape here; the transcript's rules live in memories.transcripts.
        namespace = serializers.CharField(required=False, allow_null=True)
        messages = serializers.JSONField()
        session_id = serializers.JSONField(required=False)
        metadata = serializers.JSONField(required=False)

        class Meta:
            ref_name = "MemoryWrite"

    @extend_schema(
        summary="List memories (paginated)",
        operation_id="memories_list",
        responses=inline_serializer(
            "MemoryPage",
            {
                "commit": serializers.CharField(),
                "memories": MemorySummarySerializer(many=True),
                "next_cursor": serializers.CharField(allow_null=True),
            },
        ),
        parameters=[
            NAMESPACE_PARAM,
            OpenApiParameter("tier", str, enum=list(TIERS)),
            OpenApiParameter("tag", str),
            OpenApiParameter("cursor", str, description="`next_cursor` of the previous page"),
            OpenApiParameter("limit", int, description="1-200, default 50"),
        ],
    )
    def get(self, request):
        params = request.query_params
        tier = params.get("tier") or None
        if tier is not None and tier not in TIERS:
            raise InvalidTier(f"tier must be one of {', '.join(TIERS)}.")
        limit = _int_param(params.get("limit"), default=50, low=1, high=200, name="limit")
        page = memory_list(
            namespace=_namespace(request),
            tier=tier,
            tag=params.get("tag") or None,
            cursor=params.get("cursor") or None,
            limit=limit,
        )
        items = [
            {"path": item.path, "blob": item.blob, **_memory_header(item.memory)}
            for item in page.items
        ]
        keep = ("path", "blob", "tier", "tags", "cues", "updated")
        return Response(
            {
                "commit": page.commit,
                "memories": [{k: item[k] for k in keep} for item in items],
                "next_cursor": page.next_cursor,
            }
        )

    @extend_schema(
        summary="Post a conversation; returns a job at once",
        request=InputSerializer,
        responses={202: inline_serializer("JobAccepted", {"job": JobSerializer()})},
        parameters=[OpenApiParameter("Idempotency-Key", str, OpenApiParameter.HEADER)],
    )
    def post(self, request):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        fields = data.validated_data
        job, _created = job_accept(
            account=request.auth.account,
            namespace=fields.get("namespace"),
            messages=fields["messages"],
            session_id=fields.get("session_id"),
            metadata=fields.get("metadata"),
            idempotency_key=request.headers.get("Idempotency-Key"),
        )
        return Response({"job": JobSerializer(job).data}, status=202)


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


class MemoryDetailApi(APIView):
    @extend_schema(
        summary="One memory: header, body, raw markdown",
        operation_id="memory_get",
        parameters=[NAMESPACE_PARAM],
        responses=MemoryDetailSerializer,
    )
    def get(self, request, path: str):
        item = memory_get(namespace=_namespace(request), path=path)
        return Response(
            {
                "path": item.path,
                "blob": item.blob,
                "commit": item.commit,
                **_memory_header(item.memory),
                "body": item.memory.body,
                "raw": item.raw.decode("utf-8"),
            }
        )

    @extend_schema(
        summary="Forget a memory (a commit that removes it)",
        parameters=[NAMESPACE_PARAM],
        responses=inline_serializer(
            "MemoryForgotten",
            {
                "path": serializers.CharField(),
                "deleted": serializers.BooleanField(),
                "commit": serializers.CharField(),
            },
        ),
    )
    def delete(self, request, path: str):
        result = memory_delete(namespace=_namespace(request), path=path)
        return Response({"path": path, "deleted": True, "commit": result.commit})


class MemoryHistoryApi(APIView):
    @extend_schema(
        summary="Every version of a memory, with diffs",
        parameters=[NAMESPACE_PARAM],
        responses=inline_serializer(
            "MemoryHistory",
            {"path": serializers.CharField(), "versions": VersionSerializer(many=True)},
        ),
    )
    def get(self, request, path: str):
        versions = memory_history(namespace=_namespace(request), path=path)
        return Response(
            {
                "path": path,
                "versions": [
                    {
                        "commit": v.commit,
                        "time": v.time.isoformat().replace("+00:00", "Z"),
                        "message": v.message,
                        "trailers": v.trailers,
                        "change": v.kind,
                        "blob": v.blob,
                        "diff": v.diff_text,
                    }
                    for v in versions
                ],
            }
        )


class JobListApi(APIView):
    @extend_schema(
        summary="Recent jobs of a namespace",
        operation_id="jobs_list",
        parameters=[NAMESPACE_PARAM, OpenApiParameter("limit", int, description="1-200")],
        responses=inline_serializer("JobList", {"jobs": JobSerializer(many=True)}),
    )
    def get(self, request):
        limit = _int_param(
            request.query_params.get("limit"), default=50, low=1, high=200, name="limit"
        )
        jobs = job_list(namespace=_namespace(request))[:limit]
        return Response({"jobs": JobSerializer(jobs, many=True).data})


class JobDetailApi(APIView):
    @extend_schema(
        summary="A write's status and outcome",
        operation_id="job_get",
        responses=inline_serializer("JobDetail", {"job": JobSerializer()}),
    )
    def get(self, request, job_id: str):
        job = job_get_for_account(account=request.auth.account, job_id=job_id)
        return Response({"job": JobSerializer(job).data})


class NamespaceExportApi(APIView):
    @extend_schema(
        summary="The namespace's repository, to take away",
        parameters=[OpenApiParameter("format", str, enum=["bundle", "tar"])],
        responses={(200, "application/octet-stream"): OpenApiTypes.BINARY},
    )
    def get(self, request, name: str):
        export = namespace_export(
            namespace=_namespace(request, name), fmt=request.query_params.get("format", "bundle")
        )
        response = HttpResponse(export.data, content_type=export.content_type)
        response["Content-Disposition"] = f'attachment; filename="{export.filename}"'
        return response


class NamespaceImportApi(APIView):
    parser_classes: list = []  # the body is read raw: a tar.gz or a git bundle

    @extend_schema(
        summary="Import a tar.gz of memory files or a git bundle (all or nothing)",
        parameters=[OpenApiParameter("format", str, enum=["tar", "bundle"])],
        request={
            "application/gzip": OpenApiTypes.BINARY,
            "application/x-git-bundle": OpenApiTypes.BINARY,
        },
        responses={
            201: inline_serializer(
                "ImportResult",
                {
                    "commit": serializers.CharField(),
                    "created": serializers.ListField(child=serializers.CharField()),
                    "modified": serializers.ListField(child=serializers.CharField()),
                    "deleted": serializers.ListField(child=serializers.CharField()),
                },
            )
        },
    )
    def post(self, request, name: str):
        namespace = _namespace(request, name)
        data = request.body
        if not data:
            raise EmptyBody("Send the archive as the request body.")
        result = memory_import(
            namespace=namespace, data=data, kind=request.query_params.get("format") or "auto"
        )
        return Response(
            {
                "commit": result.commit,
                "created": result.created,
                "modified": result.modified,
                "deleted": result.deleted,
            },
            status=201 if not result.noop else 200,
        )
