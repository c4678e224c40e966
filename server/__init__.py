"""The shell: what runs the apps and what they are run with.

Settings, the URL map, the WSGI entry point and gunicorn's configuration and worker; the
process commands (``serve``, ``qcluster``, ``mcp``) and the benchmarks of a running
service; the MCP server; the embedded Postgres a node starts when ``DATABASE_URL`` is
unset. It sits above every app and no app imports it; the ground every app stands on is
``gitloom.core``. Design: docs/design/serving.md and docs/design/mcp.md (the layers and
why the shell is its own package: docs/design/README.md).
"""
