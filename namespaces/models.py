from __future__ import annotations

import uuid

from django.db import models

from accounts.models import Account
from gitloom.core.slugs import SLUG_PATTERN


class Namespace(models.Model):
    """One memory: its own git repository in object storage and its own index rows."""

    account = models.ForeignKey(Account, on_delete=models.CASCADE, related_name="namespaces")
    name = models.CharField(max_length=64)
    created = models.DateTimeField(auto_now_add=True)
    # The head the repository had after our last write; object storage stays the truth.
    head_commit = models.CharField(max_length=40, blank=True, default="")
    last_write = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["account_id", "name"]
        constraints = [
            models.UniqueConstraint(fields=["account", "name"], name="namespace_name_per_account"),
            models.CheckConstraint(
                condition=models.Q(name__regex=rf"^{SLUG_PATTERN}$"), name="namespace_name_is_slug"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.account_id}/{self.name}"

    @property
    def storage_prefix(self) -> str:
        from namespaces.storage import namespace_prefix

        return namespace_prefix(self.account_id, self.name)


class Purge(models.Model):
    """One purge of a namespace: when, by whom, which paths; never the purged content.

    A match purge's match string is not kept: it is the very content purged, and in
    the paths kept here every occurrence of it is replaced by ``[purged]``.
    """

    class Kind(models.TextChoices):
        PATH = "path", "One memory's every version"
        MATCH = "match", "Every version matching a string"

    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    namespace = models.ForeignKey(Namespace, on_delete=models.CASCADE, related_name="purges")
    kind = models.CharField(max_length=8, choices=Kind.choices)
    created = models.DateTimeField(auto_now_add=True)
    # Who asked: "api_key <name> (<prefix>)" or "session <username>".
    credential = models.CharField(max_length=200)
    paths = models.JSONField(default=list)
    versions = models.PositiveIntegerField(default=0)
    previous_commit = models.CharField(max_length=40)
    commit = models.CharField(max_length=40)
    commits_replaced = models.PositiveIntegerField(default=0)
    objects_deleted = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["-created", "-id"]

    def __str__(self) -> str:
        return f"purge {self.public_id} of {self.namespace}"


class ReplacedCommit(models.Model):
    """A commit id a purge's rewrite replaced, and the id that replaced it: what makes
    an old id answer ``410 commit_purged`` and lets job rows follow their commits."""

    namespace = models.ForeignKey(Namespace, on_delete=models.CASCADE, related_name="+")
    purge = models.ForeignKey(Purge, on_delete=models.CASCADE, related_name="replaced")
    old = models.CharField(max_length=40)
    new = models.CharField(max_length=40)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["namespace", "old"], name="replaced_commit_once"),
        ]

    def __str__(self) -> str:
        return f"{self.old[:10]} -> {self.new[:10]}"
