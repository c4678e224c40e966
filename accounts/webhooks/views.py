"""The dashboard's webhook pages: endpoints (register, secret shown once), one
endpoint's deliveries with "send again", enable/disable and delete."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST

from accounts.forms import WebhookCreateForm, WebhookEditForm
from accounts.models import Account
from accounts.webhooks.selectors import delivery_get, delivery_list, endpoint_get, endpoint_list
from accounts.webhooks.services import (
    delivery_resend,
    endpoint_create,
    endpoint_delete,
    endpoint_update,
)
from gitloom.core.dashboard import dashboard_view
from gitloom.core.errors import GitLoomError


@never_cache  # the response that carries a new secret must not sit in any cache
@require_http_methods(["GET", "POST"])
@dashboard_view
def webhooks(request: HttpRequest, *, account: Account) -> HttpResponse:
    form = WebhookCreateForm(request.POST or None)
    created = secret = None
    status = 200
    if request.method == "POST":
        if form.is_valid():
            try:
                created, secret = endpoint_create(account=account, **form.cleaned_data)
            except GitLoomError as exc:
                form.add_error("url", exc.message)
            else:
                # In this response only, never through the session: shown once, here.
                form = WebhookCreateForm()
                status = 201
        if form.errors:
            status = 400
    context = {
        "section": "webhooks",
        "account": account,
        "form": form,
        "endpoints": endpoint_list(account=account),
        "created": created,
        "secret": secret,
    }
    return render(request, "accounts/webhooks.html", context, status=status)


@require_http_methods(["GET", "POST"])
@dashboard_view
def webhook(request: HttpRequest, endpoint_id: str, *, account: Account) -> HttpResponse:
    """One endpoint: its deliveries, and a form to change its URL, events, namespaces
    and description (POST)."""
    endpoint = endpoint_get(account=account, endpoint_id=endpoint_id)
    form = WebhookEditForm.for_endpoint(endpoint, request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            endpoint = endpoint_update(endpoint=endpoint, **form.cleaned_data)
        except GitLoomError as exc:
            form.add_error("url", exc.message)
        else:
            messages.success(request, f"Saved the endpoint {endpoint.url}.")
            return redirect("dash-webhook", endpoint_id=endpoint.public_id)
    context = {
        "section": "webhooks",
        "endpoint": endpoint,
        "form": form,
        "deliveries": delivery_list(endpoint=endpoint),
    }
    return render(request, "accounts/webhook.html", context, status=400 if form.errors else 200)


@require_POST
@dashboard_view
def webhook_resend(
    request: HttpRequest, endpoint_id: str, delivery_id: str, *, account: Account
) -> HttpResponse:
    endpoint = endpoint_get(account=account, endpoint_id=endpoint_id)
    delivery = delivery_get(endpoint=endpoint, delivery_id=delivery_id)
    delivery_resend(delivery=delivery)
    messages.success(request, f"Queued {delivery.event.type} to be sent again.")
    return redirect("dash-webhook", endpoint_id=endpoint.public_id)


@require_POST
@dashboard_view
def webhook_toggle(request: HttpRequest, endpoint_id: str, *, account: Account) -> HttpResponse:
    endpoint = endpoint_get(account=account, endpoint_id=endpoint_id)
    endpoint = endpoint_update(endpoint=endpoint, enabled=not endpoint.enabled)
    messages.success(request, f"{'Enabled' if endpoint.enabled else 'Disabled'} {endpoint.url}.")
    return redirect("dash-webhook", endpoint_id=endpoint.public_id)


@require_POST
@dashboard_view
def webhook_delete(request: HttpRequest, endpoint_id: str, *, account: Account) -> HttpResponse:
    endpoint = endpoint_get(account=account, endpoint_id=endpoint_id)
    endpoint_delete(endpoint=endpoint)
    messages.success(request, f"Deleted the endpoint {endpoint.url}.")
    return redirect("dash-webhooks")
