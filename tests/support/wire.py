"""What a database connection sends and waits for, read from libpq's own trace of the
protocol messages (``PQtrace``), so statements that do not pass through Django's
cursors (the retrieval pipeline's, the health check's ``SELECT 1``) are counted too."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from psycopg import pq


@dataclass
class Wire:
    lines: list[str] = field(default_factory=list)
    # The statements the connection prepared before the trace began, by name: their
    # Parse is not in the trace, only the Bind that names them.
    prepared: dict[str, str] = field(default_factory=dict)

    @property
    def statements(self) -> list[str]:
        """Each statement sent, as its text: a simple ``Query``, or an extended-protocol
        ``Execute`` of the statement its ``Bind`` named (prepared earlier or just now)."""
        sent, texts, bound = [], dict(self.prepared), ""
        for line in self.lines:
            direction, _, kind, *rest = line.split("\t")
            if direction != "F":
                continue
            detail = rest[0].strip() if rest else ""
            if kind == "Query":
                sent.append(detail.strip('"'))
            elif kind == "Parse":
                name, _, text = detail.partition(" ")  # "name" "text" n-params ...
                texts[name] = text.rsplit(" ", 1)[0].strip('"')
            elif kind == "Bind":
                bound = detail.split(" ")[1] if " " in detail else ""
            elif kind == "Execute":
                sent.append(texts.get(bound, f"(prepared {bound})"))
        return sent

    @property
    def round_trips(self) -> int:
        """How often the client sent something and then read an answer."""
        trips, sending = 0, False
        for line in self.lines:
            direction = line.split("\t", 1)[0]
            if direction == "F":
                sending = True
            elif direction == "B" and sending:
                trips, sending = trips + 1, False
        return trips


@contextmanager
def wire(connection) -> Iterator[Wire]:
    """Trace what Django's ``connection`` sends inside the block."""
    connection.ensure_connection()
    pgconn = connection.connection.pgconn
    found = Wire()
    with connection.connection.cursor() as cursor:
        cursor.execute("SELECT name, statement FROM pg_prepared_statements")
        # Named as the trace names them, quoted.
        found.prepared = {f'"{name}"': text for name, text in cursor.fetchall()}
    with tempfile.TemporaryFile() as trace:
        pgconn.trace(trace.fileno())
        pgconn.set_trace_flags(pq.Trace.SUPPRESS_TIMESTAMPS | pq.Trace.REGRESS_MODE)
        try:
            yield found
        finally:
            pgconn.untrace()
            trace.seek(0)
            found.lines.extend(trace.read().decode("utf-8", "replace").splitlines())
