"""Signatures per the Standard Webhooks spec, and the signing secret at rest.

Signing is the ``standardwebhooks`` package's (the spec's reference implementation):
``webhook-signature: v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">``.

The secret must be readable to sign with, so it cannot be kept as a hash the way API
keys are. It is kept encrypted (Fernet: AES-128-CBC + HMAC-SHA256, from
``cryptography``) under a key derived from ``SECRET_KEY``, so a copy of the database
alone (a backup, a replica) cannot forge deliveries; it is shown to the account once.
Changing ``SECRET_KEY`` makes stored secrets unreadable: such an endpoint's deliveries
fail with ``secret unreadable`` until a new endpoint is registered.
"""

from __future__ import annotations

import base64
import secrets
from datetime import datetime
from functools import cache

from cryptography.fernet import Fernet, InvalidToken
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from django.conf import settings
from standardwebhooks import Webhook

SECRET_PREFIX = "whsec_"


class SecretUnreadable(Exception):
    pass


def secret_new() -> str:
    """A fresh signing secret in the spec's form: ``whsec_`` + base64 of 32 bytes."""
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(32)).decode()


@cache
def _fernet(secret_key: str) -> Fernet:
    key = HKDF(
        algorithm=hashes.SHA256(), length=32, salt=None, info=b"gitloom webhook secrets"
    ).derive(secret_key.encode())
    return Fernet(base64.urlsafe_b64encode(key))


def secret_seal(secret: str) -> str:
    return _fernet(settings.SECRET_KEY).encrypt(secret.encode()).decode()


def secret_open(sealed: str) -> str:
    try:
        return _fernet(settings.SECRET_KEY).decrypt(sealed.encode()).decode()
    except InvalidToken:
        raise SecretUnreadable() from None


def signed_headers(*, secret: str, message_id: str, at: datetime, body: str) -> dict[str, str]:
    """The three Standard Webhooks headers for one attempt (signed at ``at``)."""
    return {
        "webhook-id": message_id,
        "webhook-timestamp": str(int(at.timestamp())),
        "webhook-signature": Webhook(secret).sign(message_id, at, body),
    }
