from django.apps import AppConfig


class ServerConfig(AppConfig):
    """Installed for its management commands (serve, qcluster, mcp, the benchmarks)."""

    name = "server"
