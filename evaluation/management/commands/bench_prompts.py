"""``manage.py bench_prompts``: what one session's model calls cost in prompt size.

    python manage.py bench_prompts [--json]

Runs five fixed sessions of our own (a five-turn chat each, against a namespace of ten
memories) through the real pipeline and model extractor, with the real ``openai``
client talking to a small answering server started here on ``127.0.0.1`` (extract: one
memory per user message, quoting it; relate: nothing to link or rewrite), and prints
per session the model calls and the characters of every prompt sent (system and user
messages), then the mean and tokens at four characters a token. The answers are fixed,
so the figure moves only with the prompts, the known memories and the candidates
shown: it is the budget check for prompt changes (docs/design/model-path.md).
No database: the namespace is a word-overlap lookup over the fixed memories.
"""

from __future__ import annotations

import json
import re
import threading
import time
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from django.core.management.base import BaseCommand

NAMESPACE = [
    ("facts/work/rosa-works-as-a-nurse-11111111.md",
     "Rosa works as a night-shift nurse at St Mary's Hospital in Leeds."),
    ("facts/car/rosa-drives-a-2015-honda-jazz-22222222.md", "Rosa drives a silver 2015 Honda Jazz."),
    ("events/driving/rosa-driving-lesson-33333333.md",
     "Rosa has a driving lesson with instructor Dev every Thursday at 17:00."),
    ("facts/home/rosa-lives-in-leeds-44444444.md",
     "Rosa lives in a flat in Headingley, Leeds, rented from landlord Mr Pike."),
    ("facts/people/rosa-sister-maya-55555555.md", "Rosa's sister Maya teaches chemistry in York."),
    ("preferences/food/rosa-vegetarian-66666666.md", "Rosa has been vegetarian since 2019."),
    ("facts/pets/rosa-cat-pickle-77777777.md", "Rosa has a ginger cat called Pickle, born in 2021."),
    ("events/trips/rosa-lisbon-trip-88888888.md",
     "Rosa is going to Lisbon with Maya from 2026-10-09 to 2026-10-12."),
    ("facts/health/rosa-dentist-99999999.md", "Rosa's dentist is Dr Okafor at Kirkstall Dental."),
    ("facts/work/rosa-shift-pattern-aaaaaaaa.md", "Rosa works four nights a week, Monday to Thursday."),
]  # fmt: skip

SESSIONS = [
    ["Finally sold the Jazz! Picked up a blue 2022 Toyota Yaris yesterday.",
     "Congrats! Want me to set service reminders for it?", "yes pls, every 12 months",
     "Done.", "Also my lesson this week moved to Friday same time."],
    ["Big news, I'm moving out of Headingley at the end of the month.", "Where to?",
     "Chapel Allerton. New landlady is called Mrs Adeyemi, she seems lovely.",
     "Nice. Anything else changing?",
     "Rent goes up to 850 a month. Ugh it's raining again, so grim today."],
    ["If I won the lottery I'd buy a farm in Wales haha", "A farm! What would you grow?",
     "Ha, nothing. Anyway Maya's thinking of moving to Bristol next year.",
     "Would you visit?", "Sure. Oh and I switched to day shifts from next Monday, 8 to 8."],
    ["Can you help me write an email to my dentist?", "Of course, what's it about?",
     "Need to move my check-up from the 14th to the 21st. Dr Okafor is the dentist, "
     "Kirkstall Dental.", "Here's a draft: ...",
     "perfect thanks. Pickle had his vaccinations today btw, all fine"],
    ["We're off to Lisbon in October, the 9th to the 12th.", "Lovely, who's going?",
     "me and Maya. Then in December I've got my driving test, the 3rd, at Harehills test "
     "centre.", "Good luck!", "thanks, feeling super nervous tbh"],
]  # fmt: skip

_WORD = re.compile(r"\w+")


def _answer(request: dict) -> dict:
    from memories.extraction.model import EXTRACT_SYSTEM

    messages = request.get("messages") or []
    system = next((m["content"] for m in messages if m["role"] == "system"), "")
    user = next((m["content"] for m in messages if m["role"] == "user"), "")
    if system != EXTRACT_SYSTEM:
        return {"links": [], "rewrites": []}
    lines = [json.loads(line) for line in user.split("\n\n", 1)[0].splitlines()[1:]]
    return {
        "memories": [
            {
                "tier": "facts",
                "topic": "t",
                "title": item["text"][:30],
                "text": "Rosa said: " + item["text"],
                "cues": ["what did I say"],
                "sources": [item["id"]],
            }
            for item in lines
            if item.get("role") == "user"
        ]
    }


class _Server:
    """Answers ``POST /v1/chat/completions`` with ``_answer``; records each request."""

    def __init__(self) -> None:
        self.requests: list[dict] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                outer.requests.append(body)
                content = json.dumps(_answer(body))
                reply = json.dumps(
                    {
                        "id": "bench",
                        "object": "chat.completion",
                        "created": int(time.time()),
                        "model": "bench",
                        "choices": [
                            {
                                "index": 0,
                                "finish_reason": "stop",
                                "message": {"role": "assistant", "content": content},
                            }
                        ],
                    }
                ).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

            def log_message(self, *args) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


class Command(BaseCommand):
    help = "Prompt characters per session of the model write path, on fixed sessions."

    def add_arguments(self, parser):
        parser.add_argument("--json", dest="as_json", action="store_true")

    def handle(self, *args, as_json, **options):
        from memories.extraction import ExistingMemory, Message, run_pipeline
        from memories.extraction.model import ModelClient, ModelExtractor
        from namespaces.memory_format import Memory

        stamp = datetime(2026, 3, 1, tzinfo=UTC)
        namespace = [
            ExistingMemory(
                path=path,
                text=body,
                header=Memory(
                    tier=path.split("/")[0],
                    created=stamp,
                    updated=stamp,
                    cues=["q"],
                    sources=["old"],
                    body=body,
                ),
            )
            for path, body in NAMESPACE
        ]

        def lookup(texts, limit):
            def overlap(memory, words):
                return -len(words & {w.lower() for w in _WORD.findall(memory.text)})

            out = []
            for text in texts:
                words = {w.lower() for w in _WORD.findall(text) if len(w) > 3}
                out.append(sorted(namespace, key=lambda m: (overlap(m, words), m.path))[:limit])
            return out

        server = _Server()
        rows = []
        try:
            with ModelClient(model="bench", base_url=server.base_url) as client:
                extractor = ModelExtractor(client)
                for number, turns in enumerate(SESSIONS):
                    start = len(server.requests)
                    said = datetime(2026, 9, 15, 20, tzinfo=UTC)
                    messages = [
                        Message(
                            id=f"s{number}m{i}",
                            role=("user", "assistant")[i % 2],
                            content=text,
                            timestamp=said + timedelta(minutes=i),
                        )
                        for i, text in enumerate(turns)
                    ]
                    run_pipeline(
                        messages=messages,
                        session_id=None,
                        existing=lookup,
                        extractor=extractor,
                        now=said,
                    )
                    sent = server.requests[start:]
                    chars = sum(len(m["content"]) for r in sent for m in r["messages"])
                    rows.append({"session": number, "calls": len(sent), "prompt_chars": chars})
        finally:
            server.close()
        for row in rows:
            self.stdout.write(
                f"session {row['session']}: {row['calls']} calls, {row['prompt_chars']} "
                "prompt characters"
            )
        mean = sum(r["prompt_chars"] for r in rows) / len(rows)
        calls = sum(r["calls"] for r in rows) / len(rows)
        self.stdout.write(
            f"per session: {calls:.1f} calls, {mean:.0f} prompt characters "
            f"(~{mean / 4:.0f} tokens at 4 characters a token)"
        )
        if as_json:
            self.stdout.write(json.dumps({"sessions": rows, "prompt_chars_per_session": mean}))
