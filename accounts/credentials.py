"""What a request authenticated as: one account, by an API key or a dashboard session."""

from __future__ import annotations

from dataclasses import dataclass

from accounts.models import Account, ApiKey


@dataclass(frozen=True)
class Credential:
    account: Account
    type: str  # "api_key" or "session"
    api_key: ApiKey | None = None
    user: object | None = None

    @property
    def is_session(self) -> bool:
        return self.type == "session"
