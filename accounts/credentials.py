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
