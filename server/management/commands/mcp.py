"""Run GitLoom's MCP server (``server/mcp_server``): memory tools for agents.

``--stdio`` for an agent that starts the server itself (desktop clients): it acts with
the API key in ``GITLOOM_API_KEY``. ``--http`` serves Streamable HTTP at
``http://HOST:PORT/mcp`` for remote agents, each request acting with its own
``Authorization: Bearer`` key. Either way the tools call the API at ``--api-url``
(default ``GITLOOM_API_URL``), so the service (``manage.py serve``) must be running
there; this process needs no database and no model.
"""

from __future__ import annotations

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError


class Command(BaseCommand):
    help = (
        "Run the MCP server: --stdio (key from GITLOOM_API_KEY) or --http (bearer key per request)."
    )
    # It reads no database: the system checks (some of which query it) are not its business.
    requires_system_checks: list[str] = []

    def add_arguments(self, parser):
        transport = parser.add_mutually_exclusive_group(required=True)
        transport.add_argument("--stdio", action="store_true", help="serve over stdin/stdout")
        transport.add_argument("--http", action="store_true", help="serve Streamable HTTP")
        parser.add_argument("--host", default="127.0.0.1", help="--http: address to bind")
        parser.add_argument("--port", type=int, default=8001, help="--http: port (8001)")
        parser.add_argument(
            "--api-url",
            default=None,
            help="the GitLoom API the tools call (default GITLOOM_API_URL, http://127.0.0.1:8000)",
        )

    def handle(self, *args, stdio: bool, http: bool, host: str, port: int, api_url, **options):
        api_url = api_url or settings.GITLOOM_API_URL
        if stdio:
            from server.mcp_server.server import build_server

            if not settings.GITLOOM_API_KEY:
                raise CommandError(
                    "Set GITLOOM_API_KEY to the API key the MCP tools act with "
                    "(manage.py create_api_key ACCOUNT --name agent prints one)."
                )
            server, _backend = build_server(api_url=api_url, api_key=settings.GITLOOM_API_KEY)
            server.run("stdio")
            return
        from server.mcp_server.http import MCP_PATH, run_http

        def started() -> None:
            # stderr: stdout stays free for whoever runs this (serve prints its own banner).
            self.stderr.write(
                f"GitLoom MCP (Streamable HTTP) is listening on http://{host}:{port}{MCP_PATH}"
                f" (API at {api_url}; send Authorization: Bearer <API key>)"
            )
            self.stderr.flush()

        run_http(
            host=host,
            port=port,
            api_url=api_url,
            allowed_hosts=settings.ALLOWED_HOSTS,
            on_started=started,
        )
