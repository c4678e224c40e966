"""Evaluation harnesses: ``manage.py eval_locomo`` (``locomo.py``), the LoCoMo retrieval
evaluation. A harness drives every app through its public services (the write path in
``memories``, the import, retrieval), so it stands above all of them; no app imports it
but the benchmark commands, which read its data set."""
