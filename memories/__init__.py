"""The write path: jobs and their queue, the pipeline and its two engines (the model's:
``llm.py``, ``prompts.py``, ``model_output.py``, ``model_extractor.py``; the offline
extractor: ``offline/``), imports, reverts, purges, and the evaluation harnesses
(``management/``). Design: docs/design/write-path.md and docs/design/offline-rules.md."""
