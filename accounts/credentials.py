"""What a request authenticated as: one account, by an API key or a dashboard session."""

from __future__ import annotations

from dataclasses import dataclass

from accounts.models import Account, ApiKey


@dataclass(frozen=True)
class Credential:
    account: Account
    api_key: ApiKey | None = None  # set for an API key, else it is a dashboard session
    user: object | None = None

    @property
    def is_session(self) -> bool:
        return self.api_key is None

    @property
    def label(self) -> str:
        """Who, in words a record can keep: ``api_key <name> (<prefix>)`` or
        ``session <username>``."""
        if self.api_key is not None:
            return f"api_key {self.api_key.name} ({self.api_key.prefix})"
        return f"session {getattr(self.user, 'username', '') or '?'}"
