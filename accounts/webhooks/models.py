"""The webhook tables. Each row carries its ``account``; row-level security on the
account (``scope.py``, migration ``0002_webhooks``) keeps every query to one account.

Foreign keys are cascaded by the database (``ON DELETE CASCADE``, migration
``0003_webhook_cascades``), not by Django: rows another account's scope cannot see
would stop Django's own cascade.
"""

from __future__ import annotations

import uuid

from django.db import models


class Endpoint(models.Model):
    """Where an account wants events sent: a URL, the event types, and optionally only
    some namespaces. The signing secret is kept encrypted (``signing.py``)."""

    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    account = models.ForeignKey(
        "accounts.Account", on_delete=models.DO_NOTHING, related_name="webhook_endpoints"
    )
    url = models.URLField(max_length=2000)
    description = models.CharField(max_length=200, blank=True, default="")
    events = models.JSONField(default=list)
    namespaces = models.JSONField(default=list)  # empty: every namespace
    secret_encrypted = models.TextField()
    secret_prefix = models.CharField(max_length=16)
    enabled = models.BooleanField(default=True)
    disabled_at = models.DateTimeField(null=True, blank=True)
    disabled_reason = models.CharField(max_length=300, blank=True, default="")
    failed_in_a_row = models.IntegerField(default=0)  # deliveries that used every attempt
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        db_table = "accounts_webhook_endpoint"
        ordering = ["-created", "-id"]

    def __str__(self) -> str:
        return self.url


class Event(models.Model):
    """One thing that happened, as it will be sent (the outbox). ``data`` names the
    account, namespace, job, commit and paths; never a memory's text."""

    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    account = models.ForeignKey("accounts.Account", on_delete=models.DO_NOTHING, related_name="+")
    type = models.CharField(max_length=40)
    namespace = models.CharField(max_length=64, blank=True, default="")
    data = models.JSONField()
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "accounts_webhook_event"
        ordering = ["-created", "-id"]

    def __str__(self) -> str:
        return f"{self.type} {self.message_id}"

    @property
    def message_id(self) -> str:
        """The ``webhook-id`` header: the same on every attempt and every resend."""
        return f"msg_{self.public_id.hex}"


class Delivery(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        DELIVERED = "delivered", "Delivered"
        FAILED = "failed", "Failed"

    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    account = models.ForeignKey("accounts.Account", on_delete=models.DO_NOTHING, related_name="+")
    endpoint = models.ForeignKey(Endpoint, on_delete=models.DO_NOTHING, related_name="deliveries")
    event = models.ForeignKey(Event, on_delete=models.DO_NOTHING, related_name="deliveries")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    attempts = models.IntegerField(default=0)
    next_attempt = models.DateTimeField(null=True, blank=True)
    lease_until = models.DateTimeField(null=True, blank=True)  # a sender holds it until
    last_status_code = models.IntegerField(null=True, blank=True)
    last_latency_ms = models.IntegerField(null=True, blank=True)
    last_error = models.CharField(max_length=300, blank=True, default="")
    created = models.DateTimeField(auto_now_add=True)
    finished = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "accounts_webhook_delivery"
        ordering = ["-created", "-id"]
        indexes = [
            models.Index(
                fields=["account", "next_attempt"],
                condition=models.Q(status="pending"),
                name="webhook_delivery_due",
            )
        ]

    def __str__(self) -> str:
        return f"{self.public_id} ({self.status})"


class Attempt(models.Model):
    """One HTTP request to a receiver, as it went."""

    account = models.ForeignKey("accounts.Account", on_delete=models.DO_NOTHING, related_name="+")
    delivery = models.ForeignKey(Delivery, on_delete=models.DO_NOTHING, related_name="log")
    number = models.IntegerField()
    at = models.DateTimeField()
    status_code = models.IntegerField(null=True, blank=True)
    latency_ms = models.IntegerField()
    error = models.CharField(max_length=300, blank=True, default="")
    response = models.CharField(max_length=500, blank=True, default="")
    next_attempt = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "accounts_webhook_attempt"
        ordering = ["delivery", "number"]

    def __str__(self) -> str:
        return f"attempt {self.number} of {self.delivery_id}"


class Wakeup(models.Model):
    """When an account next has a delivery due. Not under row-level security: the queue's
    sweep reads it across accounts to know whose deliveries to send, and it holds
    nothing but an account id and a time."""

    account = models.OneToOneField(
        "accounts.Account", on_delete=models.DO_NOTHING, primary_key=True, related_name="+"
    )
    due = models.DateTimeField()

    class Meta:
        db_table = "accounts_webhook_wakeup"

    def __str__(self) -> str:
        return f"{self.account_id} at {self.due}"
