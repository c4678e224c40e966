"""The MCP server's one connection pool to the API, shared by every caller it serves."""

from __future__ import annotations

import http.server
import threading

import anyio

from server.mcp_server.server import Backend


class _SetsACookie(http.server.BaseHTTPRequestHandler):
    seen: list[str | None] = []

    def do_GET(self):  # noqa: N802 - http.server's naming
        self.seen.append(self.headers.get("Cookie"))
        self.send_response(200)
        self.send_header("Set-Cookie", "sessionid=first-callers; Path=/")
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, *args):
        pass


def test_the_shared_pool_never_sends_a_cookie_one_callers_response_set():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _SetsACookie)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}"

    async def two_callers():
        backend = Backend(api_url=url)
        try:
            for _ in range(2):
                assert (await backend.http.get(f"{url}/v1/whoami")).status_code == 200
            assert not backend.http.cookies
        finally:
            await backend.aclose()

    try:
        anyio.run(two_callers)
    finally:
        server.shutdown()
        server.server_close()
    assert _SetsACookie.seen == [None, None]
