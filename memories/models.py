from __future__ import annotations

import uuid

from django.db import models
from django.utils import timezone

from accounts.models import Account
from namespaces.models import Namespace


class Job(models.Model):
    """One accepted write: a transcript to be turned into one commit.

    The row is written before the request answers 202, so an accepted write survives
    any crash; the queue only carries "drain this namespace", never the payload.
    """

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    # `seq` orders a namespace's jobs in acceptance order; `public_id` is what callers see.
    seq = models.BigAutoField(primary_key=True)
    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    account = models.ForeignKey(Account, on_delete=models.CASCADE, related_name="jobs")
    namespace = models.ForeignKey(Namespace, on_delete=models.CASCADE, related_name="jobs")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    idempotency_key = models.CharField(max_length=255, blank=True, default="")
    request_hash = models.CharField(max_length=64)
    payload = models.JSONField()
    session_id = models.CharField(max_length=255, blank=True, default="")
    created = models.DateTimeField(auto_now_add=True)
    started = models.DateTimeField(null=True, blank=True)
    finished = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveIntegerField(default=0)
    extractor = models.CharField(max_length=200, blank=True, default="")
    prompt_version = models.CharField(max_length=50, blank=True, default="")
    usage = models.JSONField(default=dict, blank=True)
    commit = models.CharField(max_length=40, blank=True, default="")
    result = models.JSONField(default=dict, blank=True)
    error_code = models.CharField(max_length=64, blank=True, default="")
    error_message = models.TextField(blank=True, default="")

    class Meta:
        ordering = ["-seq"]
        indexes = [
            models.Index(fields=["namespace", "status", "seq"], name="job_namespace_queue"),
            models.Index(fields=["status", "created"], name="job_status_created"),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["account", "idempotency_key"],
                condition=~models.Q(idempotency_key=""),
                name="job_idempotency_key_per_account",
            )
        ]

    def __str__(self) -> str:
        return f"job {self.public_id} ({self.status})"

    @property
    def age_seconds(self) -> float | None:
        """Seconds since it was accepted, while it waits or runs; None once finished.
        A queued job that keeps ageing is how a stuck queue shows."""
        if self.status not in (self.Status.QUEUED, self.Status.RUNNING) or self.created is None:
            return None
        return round((timezone.now() - self.created).total_seconds(), 1)
