"""Rebuild the index of one, several or all namespaces from their repositories alone.

    python manage.py reindex                          # every namespace
    python manage.py reindex --namespace acme/default --namespace acme/user-8213

Each namespace is rebuilt in its own transaction (its old rows stay visible until the
new ones commit), history included (every commit of the first-parent history,
again from the root), and its row records the head the index reached (the step every write
takes, ``after_repository_change``). With no --namespace, cue partitions left behind by deleted
namespaces are dropped too.
"""

from __future__ import annotations

import time

from django.core.management.base import BaseCommand, CommandError

from namespaces.models import Namespace
from retrieval.services import after_repository_change, index_orphans_drop


class Command(BaseCommand):
    help = "Rebuild the retrieval index from the namespaces' repositories."

    def add_arguments(self, parser):
        parser.add_argument(
            "--namespace",
            action="append",
            default=[],
            metavar="ACCOUNT/NAME",
            help="Only this namespace (repeatable). Default: all namespaces.",
        )

    def handle(self, *args, namespace: list[str], verbosity: int, **options):
        targets = []
        for spec in namespace:
            account_id, sep, name = spec.partition("/")
            if not sep or not account_id or not name:
                raise CommandError(f"--namespace takes ACCOUNT/NAME, not {spec!r}.")
            found = Namespace.objects.filter(account_id=account_id, name=name).first()
            if found is None:
                raise CommandError(f"No namespace {spec}.")
            targets.append(found)
        if not namespace:
            targets = list(Namespace.objects.order_by("account_id", "name"))
        for target in targets:
            started = time.perf_counter()
            result = after_repository_change(namespace=target, rebuild=True)
            self.stdout.write(
                f"{target.account_id}/{target.name}: {result.memories or 0} memories at "
                f"{result.commit or '(no commit)'} ({result.commits} commits of history), "
                f"{result.embedded} cue texts embedded, "
                f"{len(result.skipped)} skipped ({time.perf_counter() - started:.1f}s)"
            )
        if not namespace:
            for orphan in index_orphans_drop():
                self.stdout.write(f"dropped orphaned partition {orphan}")
