from __future__ import annotations

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.selectors import api_key_list
from accounts.services import api_key_create, api_key_revoke
from gitloom.errors import DashboardOnly
from gitloom.serializers import StrictCharField, StrictSerializer


class CredentialSerializer(serializers.Serializer):
    type = serializers.ChoiceField(choices=["api_key", "session"])
    name = serializers.CharField(required=False, help_text="API key name")
    prefix = serializers.CharField(required=False, help_text="API key prefix")
    username = serializers.CharField(required=False, help_text="dashboard user")

    class Meta:
        ref_name = "Credential"


class WhoAmIApi(APIView):
    class OutputSerializer(serializers.Serializer):
        account = serializers.CharField()
        credential = CredentialSerializer()

        class Meta:
            ref_name = "WhoAmI"

    @extend_schema(responses=OutputSerializer, summary="Who is calling")
    def get(self, request):
        credential = request.auth
        if not credential.is_session:
            described = {
                "type": "api_key",
                "name": credential.api_key.name,
                "prefix": credential.api_key.prefix,
            }
        else:
            described = {"type": "session", "username": credential.user.get_username()}
        return Response({"account": credential.account.id, "credential": described})


class KeyOutputSerializer(serializers.Serializer):
    class Meta:
        ref_name = "Key"

    id = serializers.IntegerField()
    name = serializers.CharField()
    prefix = serializers.CharField()
    created = serializers.DateTimeField()
    last_used = serializers.DateTimeField(allow_null=True)
    revoked = serializers.DateTimeField(allow_null=True)


class DashboardOnlyMixin:
    """A leaked key that could mint its replacement would survive its revocation."""

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        if not request.auth.is_session:
            raise DashboardOnly()


class KeyListCreateApi(DashboardOnlyMixin, APIView):
    class InputSerializer(StrictSerializer):
        name = StrictCharField(max_length=100)

        class Meta:
            ref_name = "KeyCreate"

    class CreatedSerializer(KeyOutputSerializer):
        secret = serializers.CharField(help_text="Shown once; only its hash is stored.")

        class Meta:
            ref_name = "KeyCreated"

    @extend_schema(
        responses=inline_serializer("KeyList", {"keys": KeyOutputSerializer(many=True)}),
        summary="List API keys",
    )
    def get(self, request):
        keys = api_key_list(account=request.auth.account)
        return Response({"keys": KeyOutputSerializer(keys, many=True).data})

    @extend_schema(
        request=InputSerializer,
        responses={201: CreatedSerializer},
        summary="Create an API key (the secret is shown once)",
    )
    def post(self, request):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        key, secret = api_key_create(account=request.auth.account, **data.validated_data)
        body = dict(KeyOutputSerializer(key).data, secret=secret)
        return Response(body, status=201)


class KeyRevokeApi(DashboardOnlyMixin, APIView):
    @extend_schema(responses=KeyOutputSerializer, summary="Revoke an API key")
    def delete(self, request, key_id: int):
        key = api_key_revoke(account=request.auth.account, key_id=key_id)
        return Response(KeyOutputSerializer(key).data)
