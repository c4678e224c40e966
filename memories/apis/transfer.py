"""Namespace transfer: export a namespace (a git bundle or a tar.gz) and import one."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    extend_schema,
)
from rest_framework import serializers
from rest_framework.response import Response

from gitloom.core.errors import EmptyBody, InvalidInput, InvalidPath, PayloadTooLarge
from gitloom.core.openapi import raises
from gitloom.core.parsers import RawBodyParser
from memories.apis.common import REPOSITORY_ERRORS, WRITE_ERRORS
from memories.apis.examples import (
    COMMIT,
    PATH,
    QUEUED_JOB_EXAMPLE,
)
from memories.apis.serializers import (
    ImportResultSerializer,
    JobEnvelopeSerializer,
)
from memories.errors import (
    ImportTooLarge,
    InvalidArchive,
    InvalidFormat,
)
from memories.selectors import (
    namespace_export,
)
from memories.services import (
    import_accept,
    memory_import,
)
from namespaces.apis import NamespaceScopedApi
from namespaces.errors import (
    BundleTooLarge,
    InvalidBundle,
    InvalidMemory,
    PathConflict,
    UnrelatedHistory,
)


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


class NamespaceImportApi(NamespaceScopedApi):
    parser_classes: list = []  # the body is read raw: a tar.gz or a git bundle

    class FilterSerializer(serializers.Serializer):
        replace = serializers.BooleanField(required=False, default=False)

    def get_parsers(self):
        # Raw bytes for any content type, so a session's CSRF check (which reads
        # request.POST) does not make DRF refuse the body as 415 (gitloom.core.parsers).
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
        parameters=[
            OpenApiParameter("format", str, enum=["tar", "bundle"]),
            OpenApiParameter(
                "replace",
                bool,
                description="a bundle whose history does not continue the namespace's "
                "replaces its files (one commit; earlier versions stay in history); without "
                "it, such a bundle is `409 unrelated_history`",
            ),
        ],
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
        InvalidInput,
        InvalidFormat,
        InvalidArchive,
        InvalidMemory,
        InvalidPath,
        ImportTooLarge,
        InvalidBundle,
        PathConflict,
        PayloadTooLarge,
        BundleTooLarge,
        UnrelatedHistory,
        *WRITE_ERRORS,
    )
    def post(self, request, namespace):
        data = request.data  # bytes (RawBodyParser); {} for an empty body
        if not data:
            raise EmptyBody("Send the archive as the request body.")
        kind = request.query_params.get("format") or "auto"
        params = self.FilterSerializer(data=request.query_params)
        params.is_valid(raise_exception=True)
        replace = params.validated_data["replace"]
        if len(data) > settings.GITLOOM_IMPORT_INLINE_BYTES:
            # Too big to validate, commit and index inside a request: a job does it.
            job = import_accept(namespace=namespace, data=data, kind=kind, replace=replace)
            return Response(JobEnvelopeSerializer(job).data, status=202)
        result = memory_import(namespace=namespace, data=data, kind=kind, replace=replace)
        return Response(ImportResultSerializer(result).data, status=201 if not result.noop else 200)
