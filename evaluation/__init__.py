"""The evaluations and benchmarks of the write path and retrieval, apart from the
service: each a management command (``management/commands/``) over a harness here.

* ``eval_locomo`` (``locomo``): LoCoMo recall@5/@10 through turn import or the pipeline;
* ``eval_writepath`` (``writepath``, ``writepath_rebase``, ``grounding``): the write
  path's scenarios, what it kept, rewrote, linked and never said;
* ``eval_corrections`` (``corrections``): corrections a later message makes;
* ``bench_prompts``, ``bench_embed``, ``bench_retrieve``: what a prompt costs, the
  embedder's speed, retrieval's latency.

An app above ``memories`` and below the shell (``server``): it drives the write path
and retrieval through their services and reads the LoCoMo data (not shipped). Design and
figures: docs/EVAL.md.
"""
