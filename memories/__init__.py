"""The write path: jobs and their queue (``jobs``: the drain; ``conversation_jobs`` and
``import_jobs``: running one job of each kind), imports, reverts, purges, and
``extraction/``: the pipeline and its two engines (``model/``, ``offline/``) behind one
interface. Design: docs/design/write-path.md, docs/design/model-path.md and
docs/design/offline-rules.md."""
