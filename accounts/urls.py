from django.urls import path

from accounts import apis
from accounts.webhooks import apis as webhooks

urlpatterns = [
    path("whoami", apis.WhoAmIApi.as_view(), name="whoami"),
    path("keys", apis.KeyListCreateApi.as_view(), name="keys"),
    path("keys/<int:key_id>", apis.KeyRevokeApi.as_view(), name="key-revoke"),
    path("webhooks", webhooks.WebhookListCreateApi.as_view(), name="webhooks"),
    path("webhooks/<str:endpoint_id>", webhooks.WebhookDetailApi.as_view(), name="webhook"),
    path(
        "webhooks/<str:endpoint_id>/deliveries",
        webhooks.WebhookDeliveryListApi.as_view(),
        name="webhook-deliveries",
    ),
    path(
        "webhooks/<str:endpoint_id>/deliveries/<str:delivery_id>/resend",
        webhooks.WebhookResendApi.as_view(),
        name="webhook-resend",
    ),
]
