"""``manage.py eval_corrections``: precision/recall of Reconcile's rewrite decisions."""

from __future__ import annotations

import json
from pathlib import Path

from django.core.management.base import BaseCommand

from evaluation.corrections import evaluate, load_corpus


class Command(BaseCommand):
    help = (
        "Run the correction corpus through the write path (the configured extractor; "
        "offline without a model) and report recall, precision, distractors merged and "
        "whether the new value ranks first."
    )

    def add_arguments(self, parser):
        parser.add_argument("--corpus", type=Path, default=None, help="a corrections.json")
        parser.add_argument("--case", default=None, help="run only the case with this id")
        parser.add_argument("--json", action="store_true", help="print the figures as JSON")
        parser.add_argument("--verbose", action="store_true", help="one line per case")

    def handle(self, *args, corpus, case, json: bool, verbose: bool, **options):
        report = evaluate(corpus=load_corpus(corpus), only=case)
        if verbose:
            for c in report.cases:
                mark = "ok " if c.right else "BAD"
                rank = "" if c.kind != "correction" else (" ranks" if c.ranks else " NOT-FIRST")
                self.stdout.write(
                    f"{mark} {c.kind:10} {c.id:22} rewritten={c.rewritten} "
                    f"expected={c.expected}{rank} top={c.top[:90]!r}"
                )
        figures = report.figures()
        if json:
            self.stdout.write(_dumps(figures))
        else:
            for key, value in figures.items():
                self.stdout.write(f"{key}: {value}")


def _dumps(value) -> str:
    return json.dumps(value, indent=2)
