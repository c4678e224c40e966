from django.apps import AppConfig


class GitloomConfig(AppConfig):
    name = "gitloom"

    def ready(self) -> None:
        from gitloom.core import checks  # noqa: F401  (registers the database checks)
