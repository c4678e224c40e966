from django.apps import AppConfig


class RetrievalConfig(AppConfig):
    name = "retrieval"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # The index follows the namespaces it derives from; namespaces never import it.
        from namespaces.signals import namespace_created, namespace_deleting
        from retrieval import services

        namespace_created.connect(services.on_namespace_created, dispatch_uid="retrieval-index")
        namespace_deleting.connect(services.on_namespace_deleting, dispatch_uid="retrieval-index")
