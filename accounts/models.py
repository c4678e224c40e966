from __future__ import annotations

from django.conf import settings
from django.core.validators import RegexValidator
from django.db import models

from gitloom.core.slugs import SLUG_PATTERN, SLUG_RULE

slug_validator = RegexValidator(rf"^{SLUG_PATTERN}\Z", f"Use {SLUG_RULE}.")


class Account(models.Model):
    """Who pays and owns the data. The id is a slug and part of every storage key."""

    id = models.CharField(primary_key=True, max_length=64, validators=[slug_validator])
    is_active = models.BooleanField(default=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(id__regex=rf"^{SLUG_PATTERN}$"), name="account_id_is_slug"
            )
        ]

    def __str__(self) -> str:
        return self.id


class Membership(models.Model):
    class Role(models.TextChoices):
        OWNER = "owner", "Owner"
        MEMBER = "member", "Member"

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships"
    )
    account = models.ForeignKey(Account, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=16, choices=Role.choices, default=Role.OWNER)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "account"], name="one_membership_per_pair")
        ]

    def __str__(self) -> str:
        return f"{self.user} @ {self.account_id} ({self.role})"


class ApiKey(models.Model):
    """An API key. Only a SHA-256 of the secret is stored; the prefix identifies it."""

    account = models.ForeignKey(Account, on_delete=models.CASCADE, related_name="api_keys")
    name = models.CharField(max_length=100)
    prefix = models.CharField(max_length=16, db_index=True)
    key_hash = models.CharField(max_length=64, unique=True)
    created = models.DateTimeField(auto_now_add=True)
    last_used = models.DateTimeField(null=True, blank=True)
    revoked = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created", "-id"]
        verbose_name = "API key"

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    @property
    def is_revoked(self) -> bool:
        return self.revoked is not None


from accounts.webhooks.models import Attempt, Delivery, Endpoint, Event, Wakeup  # noqa: E402,F401  (registered in this app)
