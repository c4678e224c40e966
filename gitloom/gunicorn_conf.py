"""gunicorn settings for `manage.py serve`."""

# The application and the embedding model load once in the master, before it forks its
# workers, which share them; each worker then opens its database connection and embeds
# once before it accepts a request (gunicorn_conf's post_worker_init), so the first
# retrieval is as fast as the rest.
preload_app = True
timeout = 120


def on_starting(server) -> None:
    import django

    django.setup()
    from retrieval.embeddings import embedder_load

    embedder_load()


def post_worker_init(worker) -> None:
    from gitloom.warm import process_warm_up
    from retrieval.embeddings import embedder_warm_up

    process_warm_up(role="web", warm=embedder_warm_up)
