"""Retrieval recall on LoCoMo, turn by turn and through the write pipeline.

    GITLOOM_DATA_DIR=/tmp/gl-eval python manage.py eval_locomo \\
        [--data PATH] [--limit N] [--mode turns|pipeline|both] [--param rrf_k=10 ...]
        [--reuse] [--clock conversation|wall] [--json]

``--data`` defaults to ``data/locomo10.json`` in the project: the file of the same name
in the LoCoMo repository (https://github.com/snap-research/locomo), which the project
does not ship; it is read in place, never copied. The database is migrated first, so a
fresh ``GITLOOM_DATA_DIR`` works. ``--limit`` takes the first N conversations. Each
conversation goes into its own fresh namespace of the account ``eval-locomo``
(``locomo-<sample id>`` for turns, ``locomo-<sample id>-pipeline`` for the pipeline;
an earlier namespace of that name is deleted first, and the namespaces are kept after
the run so the memories can be looked at). Use a scratch ``GITLOOM_DATA_DIR``.

Modes (default ``both``):

``turns``
    one memory per turn (dialogue id in ``sources``; cues, links and body as
    ``evaluation.locomo.CUES_DESCRIPTION`` says), put in through the import service;
``pipeline``
    each session posted as one transcript through the write path (job accept, the
    namespace queue drained in-process) with the configured extractor: the offline one
    unless a model is configured.

Every question of categories 1-4 is asked through the retrieval selector three times
(lexical only, semantic only, fused) and scored by recall@5 and recall@10 of its
evidence turns among the ``sources`` of the results; see ``evaluation/locomo.py``.
``--param NAME=VALUE`` overrides a field of ``retrieval.query.FusionParams`` for every
query (default: the service's own defaults, i.e. what ``/v1/retrieve`` does).
``--clock`` is the time the questions are asked at, which a memory's age (its tier's
fading, ``retrieval.query.DEFAULT_HALF_LIFE_DAYS``) counts from: ``conversation``
(default) asks as of the start of the conversation's last session, as a user asks about
a conversation just held; ``wall`` asks now, years after LoCoMo's sessions, when every
event and preference of theirs has faded below the facts.
``--reuse`` keeps a turns namespace that already holds these memories, so a sweep over
parameters does not embed the cues again.

``--json`` ends the output with one JSON line: ``questions``, ``recall@5`` and
``recall@10`` (``lexical``/``semantic``/``fused``), ``by_category``,
``session_recall@10`` (``lexical``/``semantic``/``fused``: a question counts as
found when a top-10 result comes from a session holding its evidence; also under each
category), ``words@10`` (mean words in the bodies of the fused top 10),
``fused_minus_best_single``, ``sources_per_result@10`` (how many turns a fused top-10
result lists, the yardstick for comparing recall through ``sources`` across ingestions),
``mode``, ``cues``, ``params``, ``clock``; in ``pipeline`` mode also
``memories``, ``rewritten``, ``seconds_per_session`` and ``extractor``. In ``both`` mode
the top-level figures are the turn-level ones and the pipeline's sit under
``"pipeline"`` (``memories`` and ``seconds_per_session`` are repeated at the top).
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, fields, replace
from pathlib import Path

from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

from evaluation.locomo import (
    ARM_SETS,
    CATEGORIES,
    CUES_DESCRIPTION,
    DEFAULT_DATA,
    KS,
    Tally,
    eval_account,
    import_turns,
    ingest_pipeline,
    load_conversations,
    locomo_missing,
    score_questions,
)
from retrieval.query import FusionParams

MODES = ("turns", "pipeline", "both")


def fusion_params(overrides: list[str]) -> FusionParams:
    """FusionParams with ``NAME=VALUE`` overrides, each value cast to the field's type."""
    params = FusionParams()
    known = {f.name: type(getattr(params, f.name)) for f in fields(FusionParams)}
    changes = {}
    for item in overrides:
        name, sep, value = item.partition("=")
        name = name.strip().replace("-", "_")
        if not sep or name not in known:
            raise CommandError(
                f"--param takes NAME=VALUE with NAME one of {', '.join(sorted(known))}; "
                f"got {item!r}."
            )
        try:
            changes[name] = known[name](value.strip())
        except ValueError:
            raise CommandError(f"--param {name}: {value!r} is not a {known[name].__name__}.")
    return replace(params, **changes)


class Command(BaseCommand):
    help = "Recall@5/@10 of LoCoMo evidence turns: lexical, semantic and fused retrieval."

    def add_arguments(self, parser):
        parser.add_argument(
            "--data",
            type=Path,
            default=DEFAULT_DATA,
            help=f"LoCoMo-format JSON file (default {DEFAULT_DATA}).",
        )
        parser.add_argument("--limit", type=int, default=None, help="First N conversations.")
        parser.add_argument("--mode", choices=MODES, default="both")
        parser.add_argument(
            "--param",
            action="append",
            default=[],
            metavar="NAME=VALUE",
            help="Override a retrieval.query.FusionParams field (repeatable).",
        )
        parser.add_argument(
            "--reuse",
            action="store_true",
            help="turns mode: keep an existing namespace holding the same memories "
            "(no re-embedding) instead of starting a fresh one.",
        )
        parser.add_argument(
            "--clock",
            choices=("conversation", "wall"),
            default="conversation",
            help="ask as of each conversation's last session (default) or now",
        )
        parser.add_argument(
            "--json", dest="as_json", action="store_true", help="End with one JSON line."
        )

    def handle(self, *args, data, limit, mode, param, reuse, clock, as_json, verbosity, **options):
        path = data
        if limit is not None and limit < 1:
            raise CommandError("--limit must be at least 1.")
        params = fusion_params(param)
        if not path.is_file():
            raise CommandError(locomo_missing(path=path))
        conversations = load_conversations(path=path, limit=limit)  # CommandError if unreadable
        if not conversations:
            raise CommandError(f"{path} holds no conversations.")
        self.verbose = verbosity >= 1
        self.clock = clock
        call_command("migrate", verbosity=0)
        account = eval_account()
        skipped = sum(c.skipped_questions for c in conversations)
        self.say(
            f"{path}: {len(conversations)} conversations, "
            f"{sum(c.turn_count for c in conversations)} turns, "
            f"{sum(len(c.questions) for c in conversations)} questions of categories 1-4 "
            f"({skipped} without a usable evidence id skipped)"
        )
        self.say(f"fusion params: {asdict(params)}")
        self.say(f"questions asked as of: {'now' if clock == 'wall' else 'each conversation end'}")

        started = time.perf_counter()
        report: dict = {}
        if mode in ("turns", "both"):
            report["turns"] = self.run_turns(account, conversations, params, reuse=reuse)
        if mode in ("pipeline", "both"):
            report["pipeline"] = self.run_pipeline(account, conversations, params)

        if mode == "both":
            out = {**report["turns"], "mode": "both", "pipeline": report["pipeline"]}
            out["memories"] = report["pipeline"]["memories"]
            out["seconds_per_session"] = report["pipeline"]["seconds_per_session"]
        else:
            out = report[mode]
        out["skipped_questions"] = skipped
        out["params"] = asdict(params)
        out["clock"] = clock
        out["seconds"] = round(time.perf_counter() - started, 1)
        if as_json:
            self.stdout.write(json.dumps(out))

    # -- modes ---------------------------------------------------------------------------

    def run_turns(self, account, conversations, params, *, reuse: bool) -> dict:
        self.say("\n== turns: one memory per turn, imported ==")
        self.say(f"cues: {CUES_DESCRIPTION}")
        tally = Tally()
        memories = cues = 0
        import_seconds = ask_seconds = 0.0
        for conversation in conversations:
            stats = import_turns(account=account, conversation=conversation, reuse=reuse)
            memories += stats.memories
            cues += stats.cues
            import_seconds += stats.seconds
            asked = time.perf_counter()
            part = score_questions(
                account=account,
                namespace=stats.namespace,
                questions=conversation.questions,
                params=params,
                now=self.asked_at(conversation),
            )
            ask_seconds += time.perf_counter() - asked
            tally.merge(part)
            self.say(
                f"{conversation.sample_id}: {stats.memories} memories, {stats.cues} cues, "
                f"imported and indexed in {stats.seconds:.1f}s; "
                f"{len(conversation.questions)} questions in "
                f"{time.perf_counter() - asked:.1f}s; R@10 {self.arms_line(part, 10)}"
            )
        summary = tally.summary()
        self.table("turns", summary)
        return {
            **summary,
            "mode": "turns",
            "cues": CUES_DESCRIPTION,
            "turn_memories": memories,
            "cue_count": cues,
            "import_seconds": round(import_seconds, 1),
            "ms_per_retrieval": round(
                1000.0 * ask_seconds / max(1, summary["questions"] * len(ARM_SETS)), 1
            ),
        }

    def run_pipeline(self, account, conversations, params) -> dict:
        self.say("\n== pipeline: sessions through the write path ==")
        tally = Tally()
        memories = rewritten = sessions = 0
        seconds = 0.0
        failed: list[str] = []
        extractors: set[str] = set()
        for conversation in conversations:
            stats = ingest_pipeline(account=account, conversation=conversation)
            memories += stats.memories
            rewritten += stats.rewritten
            sessions += stats.sessions
            seconds += stats.seconds
            extractors |= stats.extractors
            failed += [f"{conversation.sample_id} {line}" for line in stats.failed_jobs]
            asked = time.perf_counter()
            part = score_questions(
                account=account,
                namespace=stats.namespace,
                questions=conversation.questions,
                params=params,
                now=self.asked_at(conversation),
            )
            tally.merge(part)
            self.say(
                f"{conversation.sample_id}: {stats.sessions} sessions in {stats.seconds:.1f}s "
                f"({stats.seconds / max(1, stats.sessions):.2f}s each), {stats.memories} "
                f"memories created, {stats.rewritten} rewrites, {len(stats.failed_jobs)} "
                f"failed jobs; {len(conversation.questions)} questions in "
                f"{time.perf_counter() - asked:.1f}s; R@10 {self.arms_line(part, 10)}"
            )
        for line in failed[:5]:
            self.say(f"failed job: {line}")
        summary = tally.summary()
        self.table(f"pipeline ({', '.join(sorted(extractors)) or 'no'} extractor)", summary)
        return {
            **summary,
            "mode": "pipeline",
            "extractor": ", ".join(sorted(extractors)),
            "memories": memories,
            "rewritten": rewritten,
            "sessions": sessions,
            "failed_jobs": len(failed),
            "seconds_per_session": round(seconds / max(1, sessions), 3),
        }

    def asked_at(self, conversation):
        return conversation.ended if self.clock == "conversation" else None

    # -- output --------------------------------------------------------------------------

    def say(self, line: str) -> None:
        if self.verbose:
            self.stdout.write(line)

    @staticmethod
    def arms_line(tally: Tally, k: int) -> str:
        return " ".join(f"{arm} {tally.mean(arm, k):.3f}" for arm in ARM_SETS)

    def table(self, title: str, summary: dict) -> None:
        arms = list(ARM_SETS)
        head = "".join(f"{arm:>10}" for arm in arms)
        self.say(f"\n{title}: recall of evidence turns, {summary['questions']} questions")
        self.say(f"{'category':<16}{'n':>6}  {'recall@5':^30}  {'recall@10':^30}")
        self.say(f"{'':<16}{'':>6}  {head}  {head}")
        rows = [(f"{c} {name}", summary["by_category"][str(c)]) for c, name in CATEGORIES.items()]
        rows.append(("all", summary))
        for label, row in rows:
            n = row["questions"]
            cells = "  ".join(
                "".join(f"{row[f'recall@{k}'][arm]:>10.3f}" for arm in arms) for k in KS
            )
            self.say(f"{label:<16}{n:>6}  {cells}")
        top = max(KS)
        sessions = summary[f"session_recall@{top}"]
        self.say(
            f"session-level recall@{top} (a top-{top} result from a session holding "
            "evidence): "
            + " ".join(f"{arm} {sessions[arm]:.3f}" for arm in arms)
            + "; by category (fused): "
            + ", ".join(
                f"{name} {summary['by_category'][str(c)][f'session_recall@{top}']['fused']:.3f}"
                for c, name in CATEGORIES.items()
            )
        )
        self.say(f"words in the fused top {top}: {summary[f'words@{top}']:.1f} on average")
        margin = summary["fused_minus_best_single"]
        self.say(
            "fused minus best single arm: "
            + ", ".join(f"{key} {value:+.3f}" for key, value in margin.items())
            + f"; a fused top-{max(KS)} result lists "
            + f"{summary[f'sources_per_result@{max(KS)}']:.2f} source turns on average"
        )
