"""gunicorn settings for `manage.py serve`."""

# Loading the embedding model takes seconds; do it before a worker takes requests so
# the first retrieval is as fast as the rest.


def post_worker_init(worker) -> None:
    from retrieval.embeddings import embed_query

    embed_query("warm up")


timeout = 120  # a worker loading the embedder must not be killed as unresponsive
