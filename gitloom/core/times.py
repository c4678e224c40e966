"""Time zones: everything GitLoom stores and compares is in UTC."""

from __future__ import annotations

from datetime import UTC, datetime


def as_utc(when: datetime) -> datetime:
    """``when`` in UTC; a naive time is taken as UTC (what the API documents)."""
    return (when if when.tzinfo else when.replace(tzinfo=UTC)).astimezone(UTC)
