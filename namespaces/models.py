from __future__ import annotations

from django.db import models

from accounts.models import Account
from gitloom.slugs import SLUG_PATTERN


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
