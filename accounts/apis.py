from __future__ import annotations

from drf_spectacular.utils import (
    OpenApiExample,
    PolymorphicProxySerializer,
    extend_schema,
    extend_schema_field,
)
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.credentials import Credential
from accounts.errors import ApiKeyNotFound
from accounts.selectors import api_key_list
from accounts.services import api_key_create, api_key_revoke
from gitloom.core.errors import DashboardOnly, InvalidName
from gitloom.core.openapi import raises
from gitloom.core.serializers import SharedOutputSerializer, StrictCharField, StrictSerializer


class ApiKeyCredentialSerializer(SharedOutputSerializer):
    type = serializers.SerializerMethodField()
    name = serializers.CharField(source="api_key.name", help_text="the key's name")
    prefix = serializers.CharField(source="api_key.prefix", help_text="the key's first characters")

    class Meta:
        ref_name = "ApiKeyCredential"

    @extend_schema_field({"type": "string", "enum": ["api_key"]})
    def get_type(self, credential: Credential) -> str:
        return "api_key"


class SessionCredentialSerializer(SharedOutputSerializer):
    type = serializers.SerializerMethodField()
    username = serializers.CharField(source="user.get_username", help_text="the signed-in person")

    class Meta:
        ref_name = "SessionCredential"

    @extend_schema_field({"type": "string", "enum": ["session"]})
    def get_type(self, credential: Credential) -> str:
        return "session"


@extend_schema_field(
    PolymorphicProxySerializer(
        component_name="Credential",
        serializers=[ApiKeyCredentialSerializer, SessionCredentialSerializer],
        resource_type_field_name="type",
    )
)
class CredentialField(serializers.Field):
    """An API key or a dashboard session, each described by its own serializer."""

    def __init__(self, **kwargs):
        super().__init__(source="*", read_only=True, **kwargs)

    def to_representation(self, credential: Credential) -> dict:
        if credential.is_session:
            return SessionCredentialSerializer(credential).data
        return ApiKeyCredentialSerializer(credential).data


class WhoAmIApi(APIView):
    class OutputSerializer(SharedOutputSerializer):
        account = serializers.CharField(source="account.id", help_text="the account id")
        credential = CredentialField()

        class Meta:
            ref_name = "WhoAmI"

    @extend_schema(
        operation_id="whoami_retrieve",
        summary="Who is calling",
        description="The account the credential acts for, and the credential: an API key "
        "(its name and prefix) or a dashboard session (the person's username).",
        responses={200: OutputSerializer},
        examples=[
            OpenApiExample(
                "api key",
                value={
                    "account": "acme",
                    "credential": {"type": "api_key", "name": "backend", "prefix": "glk_AbCdEfGh"},
                },
            ),
            OpenApiExample(
                "session",
                value={"account": "acme", "credential": {"type": "session", "username": "dana"}},
            ),
        ],
    )
    def get(self, request):
        return Response(self.OutputSerializer(request.auth).data)


class KeyOutputSerializer(serializers.Serializer):
    class Meta:
        ref_name = "Key"

    id = serializers.IntegerField()
    name = serializers.CharField()
    prefix = serializers.CharField(help_text="the first characters of the secret")
    created = serializers.DateTimeField()
    last_used = serializers.DateTimeField(allow_null=True)
    revoked = serializers.DateTimeField(allow_null=True)


class KeyListOutputSerializer(serializers.Serializer):
    keys = KeyOutputSerializer(many=True)

    class Meta:
        ref_name = "KeyList"


class KeyCreatedSerializer(KeyOutputSerializer):
    secret = serializers.SerializerMethodField(help_text="Shown once; only its hash is stored.")

    class Meta:
        ref_name = "KeyCreated"

    def get_secret(self, key) -> str:
        return self.context["secret"]


KEY_EXAMPLE = {
    "id": 7,
    "name": "backend",
    "prefix": "glk_AbCdEfGh",
    "created": "2026-07-31T09:00:00Z",
    "last_used": "2026-07-31T09:12:00Z",
    "revoked": None,
}


class DashboardOnlyMixin:
    """A leaked key that could mint its replacement would survive its revocation."""

    errors = (DashboardOnly,)
    dashboard_only_message: str | None = None

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        if not request.auth.is_session:
            raise DashboardOnly(self.dashboard_only_message)


DASHBOARD_ONLY = " Dashboard sessions only: an API key is refused (`403 dashboard_only`)."


class KeyListCreateApi(DashboardOnlyMixin, APIView):
    class InputSerializer(StrictSerializer):
        name = StrictCharField(max_length=100)

        class Meta:
            ref_name = "KeyCreate"

    @extend_schema(
        operation_id="keys_retrieve",
        summary="List API keys",
        description="The account's API keys, revoked ones included; never their secrets."
        + DASHBOARD_ONLY,
        responses={200: KeyListOutputSerializer},
        examples=[OpenApiExample("keys", value={"keys": [KEY_EXAMPLE]})],
    )
    def get(self, request):
        keys = api_key_list(account=request.auth.account)
        return Response(KeyListOutputSerializer({"keys": keys}).data)

    @extend_schema(
        operation_id="keys_create",
        summary="Create an API key (the secret is shown once)",
        description="The only response that contains the key's `secret`; GitLoom keeps "
        "only its SHA-256 hash." + DASHBOARD_ONLY,
        request=InputSerializer,
        responses={201: KeyCreatedSerializer},
        examples=[
            OpenApiExample("create", value={"name": "backend"}, request_only=True),
            OpenApiExample(
                "created",
                response_only=True,
                status_codes=["201"],
                value={
                    **KEY_EXAMPLE,
                    "last_used": None,
                    "secret": "glk_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdEF",
                },
            ),
        ],
    )
    @raises(InvalidName)
    def post(self, request):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        key, secret = api_key_create(account=request.auth.account, **data.validated_data)
        return Response(KeyCreatedSerializer(key, context={"secret": secret}).data, status=201)


class KeyRevokeApi(DashboardOnlyMixin, APIView):
    @extend_schema(
        operation_id="keys_destroy",
        summary="Revoke an API key",
        description="The key fails on its very next request. Answers the key, with "
        "`revoked` set." + DASHBOARD_ONLY,
        responses={200: KeyOutputSerializer},
        examples=[
            OpenApiExample("revoked", value={**KEY_EXAMPLE, "revoked": "2026-08-01T10:00:00Z"})
        ],
    )
    @raises(ApiKeyNotFound)
    def delete(self, request, key_id: int):
        key = api_key_revoke(account=request.auth.account, key_id=key_id)
        return Response(KeyOutputSerializer(key).data)
