"""The core: what every app may use. It imports no app (``tests/test_layers.py``).

errors.py          the error tree and its registry (each app adds its own errors.py)
envelope.py        the one handler: every error as ``{"error": {...}}``
openapi.py         the error side of the schema (``raises``, ``COMMON``, ``BODY``)
serializers.py     strict input fields;  parsers.py   JSON and raw bodies
middleware.py      the body size limit;  request_budget.py   per-request statements
throttle.py        brute-force counters in Postgres
slugs.py, times.py names and timestamps as the API writes them
dashboard.py       the dashboard's base: sign-in, the person's account, error pages
checks.py          the database checks (row-level security role, pgvector)
warm.py            warming a process up before it takes requests
"""
