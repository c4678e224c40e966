"""The one module that speaks to a model: the ``openai`` client, retries and validation.

Everything else calls :class:`ModelClient` with domain-level arguments and gets parsed,
validated data back, or one of two errors:

* :class:`ModelUnavailable` (503) — the endpoint kept failing (429, 5xx, timeouts,
  connection errors) after a bounded number of retries, or refused the request outright.
* :class:`ModelOutputInvalid` — the endpoint answered, but kept answering something that
  is not the JSON we asked for, after a bounded number of re-asks.

Any OpenAI-compatible endpoint (hosted, vLLM, Ollama, llama.cpp server) works by
configuration. :meth:`ModelClient.from_settings` takes these from ``django.conf.settings``
(``server/settings.py`` reads them from the environment under the same names):

========================================  ===========================================
``GITLOOM_LLM_MODEL``                      model name; empty means "no model" (offline)
``GITLOOM_LLM_BASE_URL``                   e.g. ``http://localhost:11434/v1``; empty
                                           means the client's default (api.openai.com)
``GITLOOM_LLM_API_KEY``                    empty is allowed (local servers ignore it)
``GITLOOM_LLM_TIMEOUT``                    seconds per HTTP request (default 60)
``GITLOOM_LLM_MAX_RETRIES``                transient-error retries per call (default 4)
``GITLOOM_LLM_INVALID_RETRIES``            re-asks after malformed output (default 2)
``GITLOOM_LLM_BACKOFF_SCALE``              multiplies every wait; 0 in tests (default 1)
``GITLOOM_LLM_MAX_WAIT``                   cap on one wait, seconds (default 30)
``GITLOOM_LLM_RESPONSE_FORMAT``            ``json_object`` (default) or ``json_schema``
``GITLOOM_LLM_TEMPERATURE``                sent only when set (reasoning models refuse it)
``GITLOOM_LLM_MAX_TOKENS``                 sent only when set
========================================  ===========================================
"""

from __future__ import annotations

import email.utils
import functools
import json
import logging
import re
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, TypeVar

from django.conf import settings

from gitloom.core.metrics import MODEL_CALL_SECONDS, MODEL_CALLS, MODEL_ERRORS, MODEL_TOKENS
from gitloom.core.times import as_utc
from gitloom.core.tracing import span_done
from memories.errors import ModelOutputInvalid, ModelRequestRefused, ModelUnavailable
from memories.extraction.types import Usage

log = logging.getLogger(__name__)

T = TypeVar("T")


class ModelClient:
    """A configured chat endpoint with bounded retries (embeddings are
    ``retrieval.embeddings``'s, the one embedding client).

    ``sleep`` is injectable so tests can observe the waits without taking them.
    """

    def __init__(
        self,
        *,
        model: str,
        base_url: str | None = None,
        api_key: str | None = None,
        timeout: float = 60.0,
        max_retries: int = 4,
        invalid_retries: int = 2,
        backoff_scale: float = 1.0,
        max_wait: float = 30.0,
        response_format: str = "json_object",
        temperature: float | None = None,
        max_tokens: int | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if not model:
            raise ValueError("ModelClient needs a model name")
        if response_format not in ("json_object", "json_schema"):
            raise ValueError("response_format must be 'json_object' or 'json_schema'")
        self.model = model
        self.base_url = base_url or None
        self.max_retries = max(0, int(max_retries))
        self.invalid_retries = max(0, int(invalid_retries))
        self.backoff_scale = max(0.0, float(backoff_scale))
        self.max_wait = max(0.0, float(max_wait))
        self.response_format = response_format
        # What is sent: the configured format, lowered for good when the endpoint
        # refuses it (json_schema -> json_object -> none; see _complete).
        self._format = response_format
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.sleep = sleep
        # The client's own retries are off: ours honour Retry-After with a cap, are
        # counted, and their sleep is injectable.
        import openai  # here, not at import: it costs ~1.7 s of every process's start

        self._client = openai.OpenAI(
            base_url=self.base_url,
            # Local OpenAI-compatible servers need no key, but the client insists on one.
            api_key=api_key or "not-needed",
            timeout=timeout,
            max_retries=0,
        )

    @classmethod
    def from_settings(cls, **overrides: Any) -> ModelClient:
        kwargs: dict[str, Any] = {
            "model": settings.GITLOOM_LLM_MODEL or "",
            "base_url": settings.GITLOOM_LLM_BASE_URL or None,
            "api_key": settings.GITLOOM_LLM_API_KEY or None,
            "timeout": settings.GITLOOM_LLM_TIMEOUT,
            "max_retries": settings.GITLOOM_LLM_MAX_RETRIES,
            "invalid_retries": settings.GITLOOM_LLM_INVALID_RETRIES,
            "backoff_scale": settings.GITLOOM_LLM_BACKOFF_SCALE,
            "max_wait": settings.GITLOOM_LLM_MAX_WAIT,
            "response_format": settings.GITLOOM_LLM_RESPONSE_FORMAT or "json_object",
            "temperature": settings.GITLOOM_LLM_TEMPERATURE,
            "max_tokens": settings.GITLOOM_LLM_MAX_TOKENS,
        }
        kwargs.update(overrides)
        return cls(**kwargs)

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> ModelClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- chat ------------------------------------------------------------------------

    def chat_json(
        self,
        *,
        system: str,
        user: str,
        schema_name: str,
        validate: Callable[[Any], T],
        schema: dict[str, Any] | None = None,
    ) -> tuple[T, Usage]:
        """Ask for one JSON object and return ``(validate(obj), usage)``.

        ``validate`` receives the decoded JSON and returns the parsed value or raises
        ``ValueError`` (pydantic's ``ValidationError`` is one) with a message the model
        can act on: it is sent back as a re-ask. ``schema`` is sent only in
        ``json_schema`` mode. Usage includes the tokens spent on rejected answers.
        """
        messages: list[dict[str, str]] = [
            {"role": "system", "content": system},
            {"role": "user", "content": user},
        ]
        usage = Usage()
        problem = ""
        for attempt in range(self.invalid_retries + 1):
            started, spent = time.perf_counter(), Usage()
            try:
                completion = self._complete(
                    messages=messages, schema_name=schema_name, schema=schema
                )
            except (ModelRequestRefused, ModelUnavailable):  # after the retries
                _observe_call(self.model, schema_name, started, "error", spent)
                raise
            except ValueError as exc:
                # The HTTP body itself was not JSON: the endpoint answered, with garbage.
                content, problem = None, f"the response body was not JSON ({_short(str(exc), 200)})"
                usage += Usage(calls=1)
            else:
                spent = _usage_of(completion)
                usage += spent
                content, problem = _content_of(completion)
            if content is not None:
                try:
                    parsed = validate(json.loads(content))
                except ValueError as exc:  # includes JSONDecodeError and ValidationError
                    problem = _short(str(exc))
                else:
                    _observe_call(self.model, schema_name, started, "ok", spent)
                    return parsed, usage
            _observe_call(self.model, schema_name, started, "invalid_output", spent)
            log.warning(
                "model %s gave invalid %s output (attempt %d): %s",
                self.model,
                schema_name,
                attempt + 1,
                problem,
            )
            # Re-ask in the same conversation so the model sees what it got wrong.
            messages = [
                *messages[:2],
                {"role": "assistant", "content": _short(content or "", 4000)},
                {
                    "role": "user",
                    "content": (
                        f"That reply was not valid: {problem}\n"
                        "Answer again with only the corrected JSON object."
                    ),
                },
            ]
        raise ModelOutputInvalid(
            f"The model {self.model!r} gave invalid {schema_name} output "
            f"{self.invalid_retries + 1} times; last problem: {problem}",
            schema=schema_name,
            usage=usage.as_dict(),
        )

    def _complete(
        self, *, messages: list[dict[str, str]], schema_name: str, schema: dict[str, Any] | None
    ) -> Any:
        while True:
            kwargs: dict[str, Any] = {"model": self.model, "messages": messages}
            if self._format == "json_schema" and schema is not None:
                kwargs["response_format"] = {
                    "type": "json_schema",
                    "json_schema": {"name": schema_name, "schema": schema},
                }
            elif self._format != "none":
                kwargs["response_format"] = {"type": "json_object"}
            if self.temperature is not None:
                kwargs["temperature"] = self.temperature
            if self.max_tokens is not None:
                kwargs["max_tokens"] = self.max_tokens
            try:
                return self._with_retries(
                    functools.partial(self._client.chat.completions.create, **kwargs)
                )
            except ModelRequestRefused as exc:
                # Many local servers refuse json_schema (or any response_format) with a
                # 400: ask again with the next weaker format, and keep to it from now on.
                sent = kwargs.get("response_format", {}).get("type", "none")
                if exc.details.get("upstream_status") not in (400, 422) or sent == "none":
                    raise
                weaker = "json_object" if sent == "json_schema" else "none"
                log.warning(
                    "model %s refused response_format %s (%s); asking again with %s",
                    self.model,
                    sent,
                    exc.details.get("upstream_status"),
                    weaker,
                )
                self._format = weaker

    # -- retries ---------------------------------------------------------------------

    def _with_retries(self, call: Callable[[], T]) -> T:
        import openai

        for attempt in range(self.max_retries + 1):
            try:
                return call()
            except openai.APIStatusError as exc:
                MODEL_ERRORS.labels(str(exc.status_code)).inc()
                transient = exc.status_code in (408, 409, 429) or exc.status_code >= 500
                if not transient:
                    # 400/401/403/404: configuration or request problem; retrying won't help.
                    raise ModelRequestRefused(
                        f"The model endpoint refused the request ({exc.status_code}): "
                        f"{_short(exc.message)}",
                        upstream_status=exc.status_code,
                    ) from exc
                failure = f"HTTP {exc.status_code}"
                wait = self._wait(attempt, retry_after=_retry_after(exc.response.headers))
            except openai.APITimeoutError:
                MODEL_ERRORS.labels("timeout").inc()
                failure = "timeout"
                wait = self._wait(attempt)
            except openai.APIConnectionError as exc:
                MODEL_ERRORS.labels("connection").inc()
                failure = f"connection error ({_short(str(exc.__cause__ or exc), 200)})"
                wait = self._wait(attempt)
            if attempt == self.max_retries:
                break
            log.warning(
                "model %s: %s; retry %d/%d in %.2fs",
                self.model,
                failure,
                attempt + 1,
                self.max_retries,
                wait,
            )
            self.sleep(wait)
        raise ModelUnavailable(
            f"The model endpoint kept failing ({failure}) after {self.max_retries + 1} attempts."
        )

    def _wait(self, attempt: int, *, retry_after: float | None = None) -> float:
        """Exponential backoff (0.5s, 1s, 2s, ...), raised to the server's Retry-After."""
        backoff = 0.5 * (2**attempt)
        wait = max(backoff, retry_after) if retry_after is not None else backoff
        return min(wait, self.max_wait) * self.backoff_scale


def model_client(**overrides: Any) -> ModelClient | None:
    """The configured model, or ``None`` when no model is configured (offline mode)."""
    if not (settings.GITLOOM_LLM_MODEL or overrides.get("model")):
        return None
    return ModelClient.from_settings(**overrides)


def _retry_after(headers: Any) -> float | None:
    """Seconds from ``Retry-After-Ms``/``Retry-After`` (delta-seconds or an HTTP date)."""
    value = headers.get("retry-after-ms")
    if value:
        try:
            return max(0.0, float(value) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    when = as_utc(when)
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


def _observe_call(model: str, schema: str, started: float, outcome: str, usage: Usage) -> None:
    seconds = time.perf_counter() - started
    MODEL_CALLS.labels(schema, outcome).inc()
    MODEL_CALL_SECONDS.labels(schema).observe(seconds)
    # One span per chat request, in OpenTelemetry's GenAI terms (never the prompt).
    span_done(
        f"chat {model}",
        seconds=seconds,
        attributes={
            "gen_ai.operation.name": "chat",
            "gen_ai.provider.name": "openai",
            "gen_ai.request.model": model,
            "gen_ai.output.type": "json",
            "gen_ai.usage.input_tokens": usage.prompt_tokens,
            "gen_ai.usage.output_tokens": usage.completion_tokens,
            "gitloom.model.schema": schema,
        },
        error="" if outcome == "ok" else outcome,
    )
    MODEL_TOKENS.labels(schema, "prompt").inc(usage.prompt_tokens)
    MODEL_TOKENS.labels(schema, "completion").inc(usage.completion_tokens)


def _usage_of(completion: Any) -> Usage:
    usage = getattr(completion, "usage", None)
    return Usage(
        prompt_tokens=getattr(usage, "prompt_tokens", 0) or 0,
        completion_tokens=getattr(usage, "completion_tokens", 0) or 0,
        calls=1,
    )


def _content_of(completion: Any) -> tuple[str | None, str]:
    """The answer's JSON text, or ``(None, why not)`` for answers with nothing usable.

    What real endpoints send around the answer is read past: a reasoning model's
    ``<think>…</think>`` block in the content, a separate ``reasoning_content`` (vLLM,
    llama.cpp) or ``reasoning`` (Ollama) field, which is only read when the content is
    empty, a markdown fence, and prose before or after the JSON object."""
    try:
        choice = completion.choices[0]
        finish_reason = getattr(choice, "finish_reason", None)
        message = choice.message
        content = message.content
    except (AttributeError, IndexError, KeyError, TypeError):
        # Lenient parsing lets a malformed completion through as odd types; same thing.
        return None, "the response was not a chat completion with a message"
    if finish_reason == "length":
        return None, "the answer was cut off at the token limit; answer more briefly"
    text = _without_thinking(content) if isinstance(content, str) else ""
    if not text.strip():
        # Some servers leave the content empty and put everything in the reasoning.
        reasoning = getattr(message, "reasoning_content", None) or getattr(
            message, "reasoning", None
        )
        text = _without_thinking(reasoning) if isinstance(reasoning, str) else ""
    if not text.strip():
        return None, "the answer was empty"
    return _json_text(text), ""


_THINK = re.compile(r"<(think|thinking|reasoning)>.*?</\1>", re.DOTALL | re.IGNORECASE)
_THINK_END = re.compile(r"</(think|thinking|reasoning)>", re.IGNORECASE)


def _without_thinking(text: str) -> str:
    """The text without reasoning blocks; a template that sends only the closing tag
    (the opening one was in the prompt) leaves what follows the last one."""
    text = _THINK.sub("", text)
    ends = list(_THINK_END.finditer(text))
    return text[ends[-1].end() :] if ends else text


def _json_text(text: str) -> str:
    """The first JSON object in ``text``: the text itself when it parses, else the
    object inside a fence or between prose (``raw_decode`` from each ``{`` in turn).
    Text with none comes back as it was, and its parse error goes back to the model."""
    stripped = _strip_fence(text)
    try:
        json.loads(stripped)
        return stripped
    except ValueError:
        pass
    decoder = json.JSONDecoder()
    start = text.find("{")
    for _ in range(100):  # bounded: a reply of stray braces costs a re-ask, not a loop
        if start < 0:
            break
        try:
            value, end = decoder.raw_decode(text, start)
        except ValueError:
            start = text.find("{", start + 1)
            continue
        if isinstance(value, dict):
            return text[start:end]
        start = text.find("{", end)
    return stripped


def _strip_fence(content: str) -> str:
    """Some local servers wrap JSON in a markdown fence even in JSON mode."""
    text = content.strip()
    if text.startswith("```"):
        text = text.split("\n", 1)[1] if "\n" in text else ""
        if text.rstrip().endswith("```"):
            text = text.rstrip()[:-3]
    return text


def _short(text: str, limit: int = 500) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
