"""No admin pages for the index, on purpose.

Index rows sit behind row-level security (see ``retrieval/scope.py``): outside a
namespace's scope no query, the admin's included, can see them, and the index is
derived data anyway, rebuilt with ``manage.py reindex``. Inspect a namespace's memories
through ``/v1/memories`` or its repository export.
"""
