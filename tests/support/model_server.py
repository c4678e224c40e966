"""A scripted OpenAI-compatible HTTP server for tests.

A real HTTP server on ``127.0.0.1`` (a free port), in a daemon thread, serving
``POST /v1/chat/completions`` and ``POST /v1/embeddings``. The real ``openai`` client
talks to it over HTTP; nothing in the code under test is replaced.

A test scripts the chat endpoint with a queue of :class:`Reply` values (answered in
order) and/or a ``responder(request) -> Reply`` used when the queue is empty::

    with ModelServer() as server:
        server.enqueue(Reply.error(429, retry_after=1), Reply.chat({"memories": []}))
        client = ModelClient(model="scripted", base_url=server.base_url, backoff_scale=0)
        ...
        assert len(server.requests) == 2

Every request is recorded (path, headers, decoded JSON). ``delay`` (server-wide) and
``Reply.delay`` make the model slow, for timeout and queue-concurrency tests. With
nothing scripted, chat answers ``500`` with an "unscripted request" message (so a test
that forgot to script a call fails loudly); embeddings answer deterministic unit
vectors derived from each input's hash, of dimension ``embedding_dim``.
"""

from __future__ import annotations

import hashlib
import json
import math
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Reply:
    status: int = 200
    body: bytes = b""
    headers: tuple[tuple[str, str], ...] = ()
    delay: float = 0.0

    @classmethod
    def chat(
        cls,
        content: str | dict | list | None,
        *,
        prompt_tokens: int = 100,
        completion_tokens: int = 20,
        finish_reason: str = "stop",
        model: str = "scripted-model",
        delay: float = 0.0,
        reasoning: str | None = None,
        reasoning_field: str = "reasoning_content",
    ) -> Reply:
        """A chat completion whose message content is ``content`` (dicts are JSON-encoded;
        ``None`` sends a null content). ``reasoning`` adds a reasoning model's thinking
        as ``reasoning_field`` (vLLM and llama.cpp: ``reasoning_content``; Ollama:
        ``reasoning``)."""
        text = content if isinstance(content, str) or content is None else json.dumps(content)
        message: dict[str, Any] = {"role": "assistant", "content": text}
        if reasoning is not None:
            message[reasoning_field] = reasoning
        payload = {
            "id": "chatcmpl-scripted",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": model,
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": finish_reason,
                }
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }
        return cls.json(payload, delay=delay)

    @classmethod
    def json(cls, payload: Any, *, status: int = 200, delay: float = 0.0) -> Reply:
        return cls(
            status=status,
            body=json.dumps(payload).encode(),
            headers=(("Content-Type", "application/json"),),
            delay=delay,
        )

    @classmethod
    def error(
        cls,
        status: int,
        message: str = "scripted error",
        *,
        retry_after: float | str | None = None,
        delay: float = 0.0,
    ) -> Reply:
        """An OpenAI-style error body; ``retry_after`` sets the ``Retry-After`` header."""
        reply = cls.json(
            {"error": {"message": message, "type": "scripted", "code": str(status)}},
            status=status,
            delay=delay,
        )
        if retry_after is not None:
            value = retry_after if isinstance(retry_after, str) else f"{retry_after:g}"
            reply = Reply(reply.status, reply.body, (*reply.headers, ("Retry-After", value)), delay)
        return reply

    @classmethod
    def raw(
        cls, body: bytes, *, status: int = 200, content_type: str = "application/json"
    ) -> Reply:
        """Arbitrary bytes, e.g. a body that is not JSON at all."""
        return cls(status=status, body=body, headers=(("Content-Type", content_type),))


@dataclass
class RecordedRequest:
    path: str
    headers: dict[str, str]
    json: Any
    at: float = field(default_factory=time.monotonic)

    @property
    def messages(self) -> list[dict[str, Any]]:
        return list((self.json or {}).get("messages") or [])

    @property
    def system(self) -> str:
        return next(
            (m.get("content") or "" for m in self.messages if m.get("role") == "system"), ""
        )

    @property
    def user(self) -> str:
        """The first user message (the task; later ones are re-asks)."""
        return next((m.get("content") or "" for m in self.messages if m.get("role") == "user"), "")


Responder = Callable[[RecordedRequest], Reply]


class ModelServer:
    def __init__(self, *, embedding_dim: int = 8) -> None:
        self.requests: list[RecordedRequest] = []
        self.responder: Responder | None = None
        self.embedding_responder: Responder | None = None
        self.embedding_dim = embedding_dim
        self.delay = 0.0
        self._queue: deque[Reply] = deque()
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -------------------------------------------------------------------

    def start(self) -> ModelServer:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw) if raw else None
                except ValueError:
                    body = None
                request = RecordedRequest(
                    path=self.path,
                    headers={k.lower(): v for k, v in self.headers.items()},
                    json=body,
                )
                reply = server._answer(request)
                if server.delay or reply.delay:
                    time.sleep(server.delay + reply.delay)
                try:
                    self.send_response(reply.status)
                    for name, value in reply.headers:
                        self.send_header(name, value)
                    self.send_header("Content-Length", str(len(reply.body)))
                    self.end_headers()
                    self.wfile.write(reply.body)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test); nothing to tell it

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                pass  # keep test output quiet

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> ModelServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._httpd is not None, "server not started"
        return self._httpd.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    # -- scripting -------------------------------------------------------------------

    def enqueue(self, *replies: Reply) -> None:
        """Replies for the next chat requests, in order."""
        with self._lock:
            self._queue.extend(replies)

    def reset(self) -> None:
        with self._lock:
            self._queue.clear()
            self.requests.clear()
            self.responder = None
            self.embedding_responder = None
            self.delay = 0.0

    @property
    def pending(self) -> int:
        with self._lock:
            return len(self._queue)

    def chat_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.path.endswith("/chat/completions")]

    def _answer(self, request: RecordedRequest) -> Reply:
        with self._lock:
            self.requests.append(request)
            if request.path.endswith("/chat/completions"):
                if self._queue:
                    return self._queue.popleft()
                responder = self.responder
                if responder is None:
                    return Reply.error(500, f"unscripted request to {request.path}")
            elif request.path.endswith("/embeddings"):
                responder = self.embedding_responder or self._default_embeddings
            else:
                return Reply.error(404, f"no such endpoint: {request.path}")
        try:
            return responder(request)
        except Exception as exc:  # a broken responder should fail the test, not hang it
            return Reply.error(500, f"responder raised {exc!r}")

    def _default_embeddings(self, request: RecordedRequest) -> Reply:
        inputs = (request.json or {}).get("input") or []
        if isinstance(inputs, str):
            inputs = [inputs]
        data = [
            {
                "object": "embedding",
                "index": i,
                "embedding": hash_vector(str(text), self.embedding_dim),
            }
            for i, text in enumerate(inputs)
        ]
        tokens = sum(len(str(text).split()) for text in inputs)
        return Reply.json(
            {
                "object": "list",
                "data": data,
                "model": (request.json or {}).get("model", "scripted-embedder"),
                "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
            }
        )


def hash_vector(text: str, dim: int) -> list[float]:
    """A deterministic unit vector for ``text`` (same text, same vector)."""
    digest = b""
    counter = 0
    while len(digest) < dim:
        digest += hashlib.sha256(f"{counter}:{text}".encode()).digest()
        counter += 1
    raw = [(byte - 127.5) / 127.5 for byte in digest[:dim]]
    norm = math.sqrt(sum(v * v for v in raw)) or 1.0
    return [v / norm for v in raw]


def pipeline_responder(request: RecordedRequest) -> Reply:
    """A plausible model for the ingestion pipeline, for tests about jobs and queues.

    Extract: one ``facts`` memory per message, quoting it, citing it, with one cue.
    Relate: no links, no rewrites. Use with ``server.responder = pipeline_responder``
    (and ``server.delay`` for a slow model).
    """
    from memories.extraction.model import EXTRACT_SYSTEM

    if request.system == EXTRACT_SYSTEM:
        transcript = request.user.split("\n\n", 1)[0]  # what follows is KNOWN memories
        items = [json.loads(line) for line in transcript.splitlines()[1:] if line.strip()]
        memories = [
            {
                "tier": "facts",
                "topic": "conversation",
                "title": f"message {item['id']}",
                "text": item["text"],
                "cues": [f"what was said in message {item['id']}"],
                "sources": [item["id"]],
            }
            for item in items
        ]
        return Reply.chat({"memories": memories})
    return Reply.chat({"links": [], "rewrites": []})
