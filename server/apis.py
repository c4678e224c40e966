"""The API's front door: ``GET /v1/`` says where the schema and its docs are."""

from __future__ import annotations

from django.conf import settings
from drf_spectacular.utils import extend_schema
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView


@extend_schema(exclude=True)
class ApiRootApi(APIView):
    authentication_classes: list = []
    permission_classes = [AllowAny]

    def get(self, request):
        return Response(
            {
                "name": settings.SPECTACULAR_SETTINGS["TITLE"],
                "version": settings.SPECTACULAR_SETTINGS["VERSION"],
                "schema": request.build_absolute_uri("/v1/schema"),
                "docs": request.build_absolute_uri("/v1/docs"),
            }
        )
