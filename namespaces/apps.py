from django.apps import AppConfig


class NamespacesConfig(AppConfig):
    name = "namespaces"
    default_auto_field = "django.db.models.BigAutoField"
