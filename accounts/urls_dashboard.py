"""The account's dashboard pages, mounted at "/" (the other apps mount their own)."""

from django.contrib.auth import views as auth_views
from django.urls import path

from accounts import views
from accounts.webhooks import views as webhooks

urlpatterns = [
    path("", views.home, name="home"),
    path("signup/", views.signup, name="signup"),
    path("login/", views.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("keys/", views.keys, name="dash-keys"),
    path("keys/<int:key_id>/revoke/", views.key_revoke, name="dash-key-revoke"),
    path("webhooks/", webhooks.webhooks, name="dash-webhooks"),
    path("webhooks/<str:endpoint_id>/", webhooks.webhook, name="dash-webhook"),
    path("webhooks/<str:endpoint_id>/toggle/", webhooks.webhook_toggle, name="dash-webhook-toggle"),
    path("webhooks/<str:endpoint_id>/delete/", webhooks.webhook_delete, name="dash-webhook-delete"),
    path(
        "webhooks/<str:endpoint_id>/deliveries/<str:delivery_id>/resend/",
        webhooks.webhook_resend,
        name="dash-webhook-resend",
    ),
]
