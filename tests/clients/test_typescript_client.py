"""The TypeScript client (clients/typescript, ``gitloom-client``).

Its tests are Node's own (``node --test``, clients/typescript/test/): this runs them
once, in one Node process, against the live service of tests/clients/conftest.py
(real Postgres, git and object storage; jobs run as they are accepted), with two
accounts' API keys and webhook deliveries signed by the Standard Webhooks reference
implementation in the environment. And it checks the committed generated types
(src/schema.ts) against the schema the service serves now.

They need Node and the package's dev dependencies installed and built
(``npm ci && npm run build`` in clients/typescript, as ``.ci/run`` does).
"""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import subprocess
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest
from django.conf import settings

PACKAGE = Path(settings.BASE_DIR) / "clients" / "typescript"


def node() -> str:
    """The node binary (``GITLOOM_TEST_NODE``, else the one on PATH), once the package is
    installed and built; else skip (fail on CI, whose .ci/run installs both)."""
    binary = os.environ.get("GITLOOM_TEST_NODE") or shutil.which("node")
    missing = [
        what
        for what, ok in (
            ("node", binary),
            ("clients/typescript/node_modules (npm ci)", (PACKAGE / "node_modules").is_dir()),
            ("clients/typescript/dist (npm run build)", (PACKAGE / "dist" / "index.js").is_file()),
        )
        if not ok
    ]
    if missing:
        message = "the TypeScript client needs " + ", ".join(missing)
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return binary


def webhook_vectors() -> list[dict]:
    """Deliveries signed with ``standardwebhooks``, each with its own verdict."""
    from standardwebhooks import Webhook
    from standardwebhooks.webhooks import WebhookVerificationError

    secret = "whsec_" + base64.b64encode(b"gitloom-ts-client-test-secret-32").decode()
    other = "whsec_" + base64.b64encode(b"another-endpoint-secret-32-bytes").decode()
    now = datetime.now(UTC)
    stamp = str(int(now.timestamp()))
    body = json.dumps(
        {"type": "memory.created", "account": "acme", "paths": ["facts/café/₹-1c9e04aa.md"]},
        ensure_ascii=False,
    )

    def delivery(name, code, body=body, stamp=stamp, msg_id="msg_2Kx", sign_with=secret, sig=None):
        hook = Webhook(sign_with)
        when = datetime.fromtimestamp(int(stamp), UTC)
        signature = sig if sig is not None else hook.sign(msg_id, when, body)
        headers = {"webhook-id": msg_id, "webhook-timestamp": stamp, "webhook-signature": signature}
        try:
            Webhook(secret).verify(body, headers)
            valid = True
        except WebhookVerificationError:
            valid = False
        return {
            "name": name,
            "secret": secret,
            "body": body,
            "headers": headers,
            "valid": valid,
            "code": code,
        }

    good = Webhook(secret).sign("msg_2Kx", now, body)
    wrong = Webhook(other).sign("msg_2Kx", now, body)
    vectors = [
        delivery("valid", None),
        delivery(
            "one of several signatures matches (a rotated secret)",
            None,
            sig=f"v1,{wrong.split(',')[1]} {good}",
        ),
        delivery(
            "a tampered body", "invalid_signature", sig=good, body=body.replace("acme", "acmf")
        ),
        delivery("signed with another secret", "invalid_signature", sign_with=other),
        delivery("another message id", "invalid_signature", sig=good, msg_id="msg_other"),
        delivery(
            "an unknown signature version only",
            "invalid_signature",
            sig="v1a," + good.split(",")[1],
        ),
        delivery(
            "ten minutes old", "timestamp_out_of_tolerance", stamp=str(int(now.timestamp()) - 600)
        ),
        delivery(
            "ten minutes ahead", "timestamp_out_of_tolerance", stamp=str(int(now.timestamp()) + 600)
        ),
    ]
    # The reference's verdicts are the expectation: check they are what the names say.
    assert [v["valid"] for v in vectors] == [True, True] + [False] * 6
    return vectors


def summary(output: str) -> dict[str, int]:
    return {
        name: int(count) for name, count in re.findall(r"^ℹ (\w+) (\d+)$", output, re.MULTILINE)
    }


def test_the_typescript_client_passes_its_node_tests_against_the_live_service(
    service, acme_key, globex_key
):
    binary = node()
    files = sorted(str(path) for path in (PACKAGE / "test").glob("*.test.mjs"))
    env = {
        **os.environ,
        "GITLOOM_TEST_URL": service,
        "GITLOOM_TEST_API_KEY": acme_key,
        "GITLOOM_TEST_OTHER_KEY": globex_key,
        "GITLOOM_TEST_WEBHOOK_VECTORS": json.dumps(webhook_vectors()),
        "NO_COLOR": "1",
    }
    started = time.monotonic()
    result = subprocess.run(
        [binary, "--test", "--test-reporter=spec", *files],
        cwd=PACKAGE,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    output = result.stdout + result.stderr
    counts = summary(result.stdout)
    print(output, f"node --test took {time.monotonic() - started:.1f} s", sep="\n")
    assert result.returncode == 0, output
    # Every test ran: none skipped for want of the service, the keys or the vectors.
    assert counts.get("fail") == 0 and counts.get("pass", 0) > 0, output
    assert counts.get("skipped") == 0 and counts.get("cancelled") == 0, output
    assert "README example printed:" in output and "operations an API key may call" in output


def test_the_committed_types_match_the_schema_the_service_serves(client, tmp_path):
    binary = node()
    response = client.get("/v1/schema", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    schema = tmp_path / "schema.json"
    schema.write_bytes(response.content)
    result = subprocess.run(
        [binary, "scripts/types.mjs", "--check", str(schema)],
        cwd=PACKAGE,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, (
        "clients/typescript/src/schema.ts differs from /v1/schema: regenerate it "
        "(`npm run types -- SCHEMA` in clients/typescript) and commit it.\n"
        + result.stdout
        + result.stderr
    )
