"""GitLoom's MCP server: memory tools for agents, over stdio or Streamable HTTP.

The tools call GitLoom's own HTTP API (``/v1``) through the Python client in
``clients/python`` (``gitloom_client``), with the caller's API key: over stdio the key
in ``GITLOOM_API_KEY``, over HTTP the ``Authorization: Bearer`` header of each request.
So the API's rules (authentication, the one account a key acts for, input validation,
size limits, idempotent writes, the error codes) are the MCP server's rules too, with
no second implementation to drift; and the server holds no database credentials and no
embedding model, so it starts in a moment and can run far from the service.

``manage.py mcp --stdio`` and ``manage.py mcp --http`` run it (see
``server/management/commands/mcp.py``).
"""
