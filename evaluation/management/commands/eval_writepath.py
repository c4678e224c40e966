"""``manage.py eval_writepath``: write-path scenarios through the public HTTP API.

    GITLOOM_DATA_DIR=/tmp/gl-evalwp python manage.py eval_writepath --data FILE \\
        [--rebase] [--only ID ...] [--category C] [--sample N] [--seed S] [--json]
        [--url URL --key KEY]

Each scenario of ``FILE`` (the format is in docs/EVAL.md) runs in a fresh namespace
``wp-<scenario id>`` (an earlier one of that name is deleted first; it is kept after the
run so its memories can be looked at; use a scratch ``GITLOOM_DATA_DIR``). By default the
API is called in this process, through Django's test client with an API key of the
account ``eval-writepath``, and each job runs here, drained inline as ``eval_locomo
--mode pipeline`` drains it: the same requests and the same write path as a deployment,
with no server or worker cluster to start, and the database migrated first so a fresh
data directory works. With ``--url`` and ``--key`` the same requests go to a running
server instead (its own workers run the jobs; namespaces are made in the key's account).

``--rebase`` moves each scenario by whole weeks so its last message falls in the week
before now (``--now`` to fix "now"), dates in messages and checks with it; scenarios
marked ``no_rebase`` stay. Output: one line per scenario, then every measure overall
and per category, examples, and a seeded sample of cues with their memory; ``--json``
ends with one JSON line of the figures. The exit code is 0 whatever the pass rate.
"""

from __future__ import annotations

import json
import textwrap
from datetime import UTC, datetime
from pathlib import Path

from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from evaluation.writepath import (
    ApiError,
    InProcessApi,
    RemoteApi,
    Score,
    cue_sample,
    load_scenarios,
    report,
    run_scenario,
    score_scenario,
)
from evaluation.writepath_rebase import rebase_scenario

# (figure, label) rows of the summary table, shown overall and per category
ROWS = [
    ("checks_passed", "checks passed"),
    ("checks", "checks"),
    ("scenarios_passed", "scenarios with every check passed"),
    ("scenarios_clean", "... and no store rule broken"),
    ("ranking_failures", "failed checks whose answer is stored (ranking)"),
    ("stale_top1", "corrections whose top 1 is stale"),
    ("stale_in_store", "stale statements in the store (corrections)"),
    ("unsaid_rewrites", "rewrites saying what no message said"),
    ("ungrounded_memories", "memories naming a name/number/date nobody said"),
    ("ungrounded_terms", "... names, numbers and dates nobody said"),
    ("rewritten", "memories rewritten"),
    ("two_fact_memories", "memories holding two atomic facts"),
    ("atomic_missing", "atomic facts never stored"),
    ("attribution_violations", "attribution violations"),
    ("bounds_violations", "memory count out of bounds"),
    ("off_topic", "memories about nothing asked"),
    ("off_topic_share", "... share of memories"),
    ("memories", "memories"),
    ("cues", "cues"),
    ("cues_question_share", "cues question-shaped (share)"),
    ("cues_distinguishing_share", "cues with a distinguishing term (share)"),
    ("failed_jobs", "failed jobs"),
    ("seconds_per_session", "seconds per session (mean)"),
    ("seconds_per_session_median", "seconds per session (median)"),
]


def short(text: str, width: int = 90) -> str:
    return textwrap.shorten(" ".join(text.split()), width=width, placeholder="...")


class Command(BaseCommand):
    help = (
        "Run write-path scenarios through the HTTP API (sessions posted, jobs awaited, "
        "checks asked of /v1/retrieve) and report the checks and store-wide measures."
    )

    def add_arguments(self, parser):
        parser.add_argument("--data", type=Path, required=True, help="a scenario JSON file")
        parser.add_argument("--rebase", action="store_true", help="move dates to now")
        parser.add_argument("--now", default=None, help="ISO time to rebase to (default now)")
        parser.add_argument(
            "--only", action="append", default=[], help="scenario ids (repeatable, or a,b)"
        )
        parser.add_argument("--category", default=None, help="only scenarios of this category")
        parser.add_argument("--sample", type=int, default=40, help="cues to print (default 40)")
        parser.add_argument("--seed", type=int, default=0, help="the cue sample's seed")
        parser.add_argument("--url", default=None, help="a running GitLoom (with --key)")
        parser.add_argument("--key", default=None, help="an API key for --url")
        parser.add_argument(
            "--json", dest="as_json", action="store_true", help="end with one JSON line"
        )

    def handle(self, *args, data, rebase, now, only, category, sample, seed, url, key,
               as_json, **options):  # fmt: skip
        if not data.is_file():
            raise CommandError(f"{data} is not a file.")
        if bool(url) != bool(key):
            raise CommandError("--url and --key go together.")
        moment = timezone.now()
        if now:
            moment = datetime.fromisoformat(now)
            if timezone.is_naive(moment):
                moment = moment.replace(tzinfo=UTC)
        scenarios = load_scenarios(data, only=only, category=category)
        if not scenarios:
            raise CommandError(f"{data}: no scenario matches.")

        if url:
            api = RemoteApi(url=url, key=key)
        else:
            call_command("migrate", verbosity=0)
            api = InProcessApi()
        scores: list[Score] = []
        try:
            for scenario in scenarios:
                weeks = 0
                if rebase:
                    scenario, weeks = rebase_scenario(scenario, now=moment)
                try:
                    run = run_scenario(api, scenario, weeks=weeks)
                except ApiError as exc:
                    raise CommandError(f"{scenario['id']}: {exc}") from None
                score = score_scenario(run)
                scores.append(score)
                self.scenario_line(score)
        finally:
            api.close()

        figures = report(scores, now=moment, rebase=rebase)
        self.summary(figures)
        self.examples(scores)
        self.stdout.write(f"\ncue sample ({min(sample, figures['cues'])}, seed {seed}):")
        for cue, body in cue_sample(scores, n=sample, seed=seed):
            self.stdout.write(f"  {cue!r:60}  <- {short(body, 70)}")
        if as_json:
            self.stdout.write(json.dumps(figures))

    # -- output --------------------------------------------------------------------------

    def scenario_line(self, s: Score) -> None:
        mark = "PASS" if s.all_passed else "FAIL"
        notes = []
        if s.bounds:
            notes.append(f"memories {s.bounds}")
        if s.two_facts:
            notes.append(f"{len(s.two_facts)} two-fact")
        if s.atomic_missing:
            notes.append("missing " + "; ".join("+".join(g) for g in s.atomic_missing))
        if s.attribution:
            notes.append("unattributed " + ", ".join(sorted({t for _, t in s.attribution})))
        if s.stale_in_store:
            notes.append(f"{len(s.stale_in_store)} stale in store")
        if s.ungrounded:
            notes.append(f"{len(s.ungrounded)} ungrounded")
        if s.failed_jobs:
            notes.append(f"{len(s.failed_jobs)} failed jobs")
        moved = f" (+{s.weeks}w)" if s.weeks else ""
        self.stdout.write(
            f"{mark} {s.id:36} {s.category:10} {s.passed}/{len(s.checks)} checks, "
            f"{len(s.memories)} memories{moved}" + (f"  [{'; '.join(notes)}]" if notes else "")
        )
        for check in s.checks:
            if not check.passed:
                why = " (answer stored)" if check.answer_stored else ""
                self.stdout.write(
                    f"     x {check.query!r}{why} top1: {short(check.top1) or '(nothing)'!r}"
                )

    def summary(self, figures: dict) -> None:
        categories = list(figures["by_category"])
        self.stdout.write(
            f"\nextractor: {figures['extractor'] or '?'}; "
            f"rebase: {'to ' + figures['now'] if figures['rebase'] else 'off'}"
        )
        self.stdout.write(f"{'':48}{'all':>8}" + "".join(f"{c[:10]:>11}" for c in categories))
        for key, label in ROWS:
            cells = [figures[key], *(figures["by_category"][c][key] for c in categories)]
            self.stdout.write(
                f"{label[:48]:48}{self.cell(cells[0]):>8}"
                + "".join(f"{self.cell(v):>11}" for v in cells[1:])
            )

    @staticmethod
    def cell(value) -> str:
        return f"{value:.3f}" if isinstance(value, float) else str(value)

    def examples(self, scores: list[Score]) -> None:
        unsaid = [(s.id, u) for s in scores for u in s.unsaid]
        if unsaid:
            self.stdout.write("\nrewrites saying what no message said:")
            for sid, (path, body, grams) in unsaid[:10]:
                self.stdout.write(f"  {sid} {path}: {short(body)!r}")
                self.stdout.write(f"      unsaid: {', '.join(repr(g) for g in grams[:4])}")
        ungrounded = [(s.id, u) for s in scores for u in s.ungrounded]
        if ungrounded:
            self.stdout.write("\nmemories naming a name, number or date nobody said:")
            for sid, (path, body, terms) in ungrounded[:10]:
                self.stdout.write(f"  {sid} {path}: {short(body)!r}")
                self.stdout.write(f"      not said: {', '.join(repr(t) for t in terms[:6])}")
        off = [(s.id, m) for s in scores for m in s.off_topic]
        if off:
            self.stdout.write("\nmemories about nothing asked (small talk stored as fact?):")
            for sid, memory in off[:10]:
                self.stdout.write(f"  {sid} {memory.path}: {short(memory.body)!r}")
