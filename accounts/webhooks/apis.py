"""/v1/webhooks: an account's webhook endpoints and their deliveries.

Dashboard sessions only (``403 dashboard_only`` for API keys), as /v1/keys: a leaked
key must not be able to plant a standing channel that outlives its revocation.
"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.apis import DashboardOnlyMixin
from accounts.errors import (
    DeliveryNotFound,
    InvalidWebhookEvents,
    InvalidWebhookUrl,
    WebhookDisabled,
    WebhookNotFound,
)
from accounts.webhooks.events import EVENT_TYPES
from accounts.webhooks.selectors import delivery_get, delivery_list, endpoint_get, endpoint_list
from accounts.webhooks.services import (
    delivery_resend,
    endpoint_create,
    endpoint_delete,
    endpoint_update,
)
from gitloom.core.errors import InvalidName
from gitloom.core.openapi import raises
from gitloom.core.serializers import StrictCharField, StrictSerializer

DASHBOARD_ONLY = (
    " Dashboard sessions only: an API key is refused (`403 dashboard_only`), so a leaked "
    "key cannot plant a channel that outlives it."
)


class EndpointOutputSerializer(serializers.Serializer):
    class Meta:
        ref_name = "WebhookEndpoint"

    id = serializers.UUIDField(source="public_id")
    url = serializers.CharField()
    description = serializers.CharField()
    events = serializers.ListField(child=serializers.ChoiceField(choices=EVENT_TYPES))
    namespaces = serializers.ListField(
        child=serializers.CharField(), help_text="empty: every namespace"
    )
    secret_prefix = serializers.CharField(help_text="the signing secret's first characters")
    enabled = serializers.BooleanField()
    disabled_at = serializers.DateTimeField(allow_null=True)
    disabled_reason = serializers.CharField(help_text="why it was disabled, if it was")
    created = serializers.DateTimeField()


class EndpointListOutputSerializer(serializers.Serializer):
    class Meta:
        ref_name = "WebhookEndpointList"

    webhooks = EndpointOutputSerializer(many=True)


class EndpointCreatedSerializer(EndpointOutputSerializer):
    class Meta:
        ref_name = "WebhookEndpointCreated"

    secret = serializers.SerializerMethodField(
        help_text="The signing secret (Standard Webhooks `whsec_...`). Shown once."
    )

    def get_secret(self, endpoint) -> str:
        return self.context["secret"]


class AttemptOutputSerializer(serializers.Serializer):
    class Meta:
        ref_name = "WebhookAttempt"

    number = serializers.IntegerField()
    at = serializers.DateTimeField()
    status_code = serializers.IntegerField(allow_null=True, help_text="null: no answer")
    latency_ms = serializers.IntegerField()
    error = serializers.CharField()
    next_attempt = serializers.DateTimeField(allow_null=True)


class DeliveryOutputSerializer(serializers.Serializer):
    class Meta:
        ref_name = "WebhookDelivery"

    id = serializers.UUIDField(source="public_id")
    event = serializers.CharField(source="event.type")
    message_id = serializers.CharField(source="event.message_id", help_text="`webhook-id`")
    status = serializers.CharField(help_text="pending, delivered or failed")
    attempts = AttemptOutputSerializer(many=True, source="log.all")
    next_attempt = serializers.DateTimeField(allow_null=True)
    last_status_code = serializers.IntegerField(allow_null=True)
    last_latency_ms = serializers.IntegerField(allow_null=True)
    last_error = serializers.CharField()
    created = serializers.DateTimeField()


class DeliveryListOutputSerializer(serializers.Serializer):
    class Meta:
        ref_name = "WebhookDeliveryList"

    deliveries = DeliveryOutputSerializer(many=True)


ENDPOINT_EXAMPLE = {
    "id": "6f1c2a8e-0d4b-4c1e-9a51-2f7d3b9e8c10",
    "url": "https://app.example.com/hooks/gitloom",
    "description": "chat backend",
    "events": ["job.done", "memory.created"],
    "namespaces": [],
    "secret_prefix": "whsec_AbCdEf",
    "enabled": True,
    "disabled_at": None,
    "disabled_reason": "",
    "created": "2026-07-31T09:00:00Z",
}


DELIVERY_EXAMPLE = {
    "id": "0b7e4f2c-6a1d-4e8b-9c3f-5d2a1e7b8c90",
    "event": "job.done",
    "message_id": "msg_3f1e2d4c5b6a79808f1e2d3c4b5a6978",
    "status": "delivered",
    "attempts": [
        {
            "number": 1,
            "at": "2026-07-31T09:00:01Z",
            "status_code": 503,
            "latency_ms": 212,
            "error": "",
            "next_attempt": "2026-07-31T09:00:31Z",
        },
        {
            "number": 2,
            "at": "2026-07-31T09:00:33Z",
            "status_code": 204,
            "latency_ms": 48,
            "error": "",
            "next_attempt": None,
        },
    ],
    "next_attempt": None,
    "last_status_code": 204,
    "last_latency_ms": 48,
    "last_error": "",
    "created": "2026-07-31T09:00:01Z",
}


class _EndpointInput(StrictSerializer):
    url = StrictCharField(max_length=2000)
    events = serializers.ListField(child=StrictCharField(max_length=40), allow_empty=False)
    namespaces = serializers.ListField(child=StrictCharField(max_length=64), required=False)
    description = StrictCharField(max_length=200, required=False, allow_blank=True)


class WebhookListCreateApi(DashboardOnlyMixin, APIView):
    dashboard_only_message = (
        "Webhook endpoints need a dashboard session; API keys cannot manage them."
    )

    class InputSerializer(_EndpointInput):
        class Meta:
            ref_name = "WebhookEndpointCreate"

    @extend_schema(
        operation_id="webhooks_retrieve",
        summary="List webhook endpoints",
        description="The account's endpoints; never their secrets." + DASHBOARD_ONLY,
        responses={200: EndpointListOutputSerializer},
        examples=[OpenApiExample("endpoints", value={"webhooks": [ENDPOINT_EXAMPLE]})],
    )
    def get(self, request):
        endpoints = endpoint_list(account=request.auth.account)
        return Response(EndpointListOutputSerializer({"webhooks": endpoints}).data)

    @extend_schema(
        operation_id="webhooks_create",
        summary="Register a webhook endpoint (the secret is shown once)",
        description="`url` must be https:// and resolve to public addresses; `events` "
        "names the event types wanted; `namespaces` (optional) limits it to those. The "
        "only response that carries the signing `secret`." + DASHBOARD_ONLY,
        request=InputSerializer,
        responses={201: EndpointCreatedSerializer},
        examples=[
            OpenApiExample(
                "register",
                request_only=True,
                value={"url": ENDPOINT_EXAMPLE["url"], "events": ["job.done", "memory.created"]},
            ),
            OpenApiExample(
                "registered",
                response_only=True,
                status_codes=["201"],
                value={
                    **ENDPOINT_EXAMPLE,
                    "secret": "whsec_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdEFG=",
                },
            ),
        ],
    )
    @raises(InvalidWebhookUrl, InvalidWebhookEvents, InvalidName)
    def post(self, request):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        endpoint, secret = endpoint_create(account=request.auth.account, **data.validated_data)
        return Response(
            EndpointCreatedSerializer(endpoint, context={"secret": secret}).data, status=201
        )


class WebhookDetailApi(DashboardOnlyMixin, APIView):
    dashboard_only_message = WebhookListCreateApi.dashboard_only_message
    errors = (*DashboardOnlyMixin.errors, WebhookNotFound)

    class InputSerializer(StrictSerializer):
        class Meta:
            ref_name = "WebhookEndpointUpdate"

        url = StrictCharField(max_length=2000, required=False)
        events = serializers.ListField(
            child=StrictCharField(max_length=40), allow_empty=False, required=False
        )
        namespaces = serializers.ListField(child=StrictCharField(max_length=64), required=False)
        description = StrictCharField(max_length=200, required=False, allow_blank=True)
        enabled = serializers.BooleanField(required=False)

    @extend_schema(
        operation_id="webhooks_get",
        summary="One webhook endpoint",
        description="Without its secret." + DASHBOARD_ONLY,
        responses={200: EndpointOutputSerializer},
        examples=[OpenApiExample("endpoint", value=ENDPOINT_EXAMPLE)],
    )
    def get(self, request, endpoint_id):
        endpoint = endpoint_get(account=request.auth.account, endpoint_id=endpoint_id)
        return Response(EndpointOutputSerializer(endpoint).data)

    @extend_schema(
        operation_id="webhooks_update",
        summary="Change a webhook endpoint",
        description="Any of `url`, `events`, `namespaces`, `description`, `enabled`. "
        "Enabling a disabled endpoint resets its failure count; what ended failed stays "
        "failed (send it again)." + DASHBOARD_ONLY,
        request=InputSerializer,
        responses={200: EndpointOutputSerializer},
        examples=[
            OpenApiExample("enable", request_only=True, value={"enabled": True}),
            OpenApiExample("endpoint", response_only=True, value=ENDPOINT_EXAMPLE),
        ],
    )
    @raises(InvalidWebhookUrl, InvalidWebhookEvents, InvalidName)
    def patch(self, request, endpoint_id):
        # the body first: a malformed one is 400 whether or not the endpoint exists
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        endpoint = endpoint_get(account=request.auth.account, endpoint_id=endpoint_id)
        endpoint = endpoint_update(endpoint=endpoint, **data.validated_data)
        return Response(EndpointOutputSerializer(endpoint).data)

    @extend_schema(
        operation_id="webhooks_destroy",
        summary="Delete a webhook endpoint",
        description="It and its deliveries go; nothing more is sent to it." + DASHBOARD_ONLY,
        responses={204: None},
    )
    def delete(self, request, endpoint_id):
        endpoint = endpoint_get(account=request.auth.account, endpoint_id=endpoint_id)
        endpoint_delete(endpoint=endpoint)
        return Response(status=204)


class WebhookDeliveryListApi(DashboardOnlyMixin, APIView):
    dashboard_only_message = WebhookListCreateApi.dashboard_only_message
    errors = (*DashboardOnlyMixin.errors, WebhookNotFound)

    @extend_schema(
        operation_id="webhooks_deliveries",
        summary="An endpoint's latest deliveries",
        description="The 50 newest, each with its attempts (status code, latency, "
        "error, next attempt)." + DASHBOARD_ONLY,
        responses={200: DeliveryListOutputSerializer},
        examples=[OpenApiExample("deliveries", value={"deliveries": [DELIVERY_EXAMPLE]})],
    )
    def get(self, request, endpoint_id):
        endpoint = endpoint_get(account=request.auth.account, endpoint_id=endpoint_id)
        deliveries = delivery_list(endpoint=endpoint)
        return Response(DeliveryListOutputSerializer({"deliveries": deliveries}).data)


class WebhookResendApi(DashboardOnlyMixin, APIView):
    dashboard_only_message = WebhookListCreateApi.dashboard_only_message
    errors = (*DashboardOnlyMixin.errors, WebhookNotFound, DeliveryNotFound, WebhookDisabled)

    @extend_schema(
        operation_id="webhooks_resend",
        summary="Send a delivery again",
        description="A new delivery of the same event (the same `webhook-id`), queued "
        "now. `409 webhook_disabled` while the endpoint is disabled." + DASHBOARD_ONLY,
        request=None,
        responses={202: DeliveryOutputSerializer},
        examples=[
            OpenApiExample(
                "queued",
                status_codes=["202"],
                value={
                    **DELIVERY_EXAMPLE,
                    "status": "pending",
                    "attempts": [],
                    "next_attempt": "2026-07-31T10:00:00Z",
                    "last_status_code": None,
                    "last_latency_ms": None,
                    "created": "2026-07-31T10:00:00Z",
                },
            )
        ],
    )
    def post(self, request, endpoint_id, delivery_id):
        endpoint = endpoint_get(account=request.auth.account, endpoint_id=endpoint_id)
        delivery = delivery_get(endpoint=endpoint, delivery_id=delivery_id)
        again = delivery_resend(delivery=delivery)
        again = delivery_get(endpoint=endpoint, delivery_id=again.public_id)
        return Response(DeliveryOutputSerializer(again).data, status=202)
