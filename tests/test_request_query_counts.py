"""What the database is sent for the calls clients make most, ``/v1/whoami`` and
``/v1/retrieve``, counted on the wire (libpq's trace: tests/support/wire.py), so a
statement or a round trip that creeps onto every request is seen, the ones Django's
query capture cannot see included.

The requests run outside a test transaction (``transactional_db``), as under gunicorn.
Each test warms up once: an API key records its last use on its first request (and
then at most once a minute).
"""

from __future__ import annotations

from django.db import connection

from tests.support.wire import wire
from tests.test_list_query_counts import namespace_with_memories


def test_whoami_is_one_statement_in_one_round_trip(transactional_db, api):
    assert api.get("/v1/whoami").status_code == 200
    with wire(connection) as sent:
        response = api.get("/v1/whoami")
    assert response.status_code == 200 and response.json()["account"] == "acme"
    assert len(sent.statements) == 1, sent.statements  # the key, with its account
    assert sent.round_trips == 1


def test_retrieve_is_the_key_with_its_namespace_and_one_pipelined_transaction(
    transactional_db, api, account
):
    namespace_with_memories(account, "default", 5)
    question = {"query": "fact number 3 about topic", "limit": 20}
    assert api.get("/v1/retrieve", question).status_code == 200
    with wire(connection) as sent:
        response = api.get("/v1/retrieve", {**question, "query": "fact number 4 about topic"})
    assert response.status_code == 200 and response.json()["results"]
    # The key with the namespace it names (one statement); then one read-only
    # transaction in a pipeline: BEGIN, the scope's settings, the lexical arm, the HNSW
    # setting, the fused statement, COMMIT. The client waits for the key's row and then
    # once, for the fused rows with the COMMIT: the lexical arm runs while the query is
    # embedded and hands its ranking to the fused statement on the server.
    assert len(sent.statements) == 7, sent.statements
    assert "namespaces_namespace" in sent.statements[0]
    assert sent.statements[1].startswith("BEGIN") and sent.statements[-1] == "COMMIT"
    assert sent.round_trips == 2, sent.lines


def test_the_key_lookup_is_prepared_on_the_connection_not_planned_per_request(
    transactional_db, api
):
    for _ in range(6):  # psycopg prepares a statement on its prepare_threshold-th run (5)
        assert api.get("/v1/whoami").status_code == 200
    with wire(connection) as sent:
        assert api.get("/v1/whoami").status_code == 200
    kinds = [line.split("\t")[2] for line in sent.lines if line.startswith("F")]
    assert "Parse" not in kinds and "Bind" in kinds, sent.lines  # run by name, not re-planned
    assert "accounts_apikey" in sent.statements[0]
