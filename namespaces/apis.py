from __future__ import annotations

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from gitloom.serializers import StrictCharField, StrictSerializer
from namespaces.selectors import namespace_get_for_account, namespace_list
from namespaces.services import namespace_create, namespace_delete


class NamespaceOutputSerializer(serializers.Serializer):
    class Meta:
        ref_name = "Namespace"

    name = serializers.CharField()
    created = serializers.DateTimeField()
    head_commit = serializers.CharField(allow_blank=True)
    last_write = serializers.DateTimeField(allow_null=True)


class NamespaceListCreateApi(APIView):
    class InputSerializer(StrictSerializer):
        name = StrictCharField(max_length=64, trim_whitespace=False)

        class Meta:
            ref_name = "NamespaceCreate"

    @extend_schema(
        responses=inline_serializer(
            "NamespaceList", {"namespaces": NamespaceOutputSerializer(many=True)}
        ),
        summary="List namespaces",
        operation_id="namespaces_list",
    )
    def get(self, request):
        namespaces = namespace_list(account=request.auth.account)
        return Response({"namespaces": NamespaceOutputSerializer(namespaces, many=True).data})

    @extend_schema(
        request=InputSerializer,
        responses={201: NamespaceOutputSerializer},
        summary="Create a namespace",
    )
    def post(self, request):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        namespace = namespace_create(account=request.auth.account, **data.validated_data)
        return Response(NamespaceOutputSerializer(namespace).data, status=201)


class NamespaceDetailApi(APIView):
    @extend_schema(
        responses=NamespaceOutputSerializer, summary="Get a namespace", operation_id="namespace_get"
    )
    def get(self, request, name: str):
        namespace = namespace_get_for_account(account=request.auth.account, name=name)
        return Response(NamespaceOutputSerializer(namespace).data)

    @extend_schema(responses={204: None}, summary="Delete a namespace and all its memories")
    def delete(self, request, name: str):
        namespace = namespace_get_for_account(account=request.auth.account, name=name)
        namespace_delete(namespace=namespace)
        return Response(status=204)
