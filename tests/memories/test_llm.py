"""The model client, driven through the real openai client over HTTP against the scripted
model server: structured JSON, validation, bounded retries, clear errors."""

from __future__ import annotations

import pytest
from django.test import override_settings
from pydantic import BaseModel

from memories.errors import ModelOutputInvalid, ModelUnavailable
from memories.extraction import Usage
from memories.extraction.model import ModelClient, model_client
from tests.support.model_server import ModelServer, Reply


class Answer(BaseModel):
    answer: str


@pytest.fixture
def server():
    with ModelServer() as running:
        yield running


@pytest.fixture
def waits():
    return []


@pytest.fixture
def client(server, waits):
    with ModelClient(
        model="scripted-model",
        base_url=server.base_url,
        api_key="sk-test",
        timeout=5,
        max_retries=3,
        invalid_retries=2,
        sleep=waits.append,  # record the waits instead of taking them
    ) as made:
        yield made


def ask(client):
    return client.chat_json(
        system="Say hello as JSON.",
        user="hello?",
        schema_name="answer",
        validate=Answer.model_validate,
    )


def test_chat_json_asks_for_json_and_returns_the_validated_object_with_usage(server, client):
    server.enqueue(Reply.chat({"answer": "hi"}, prompt_tokens=12, completion_tokens=3))

    parsed, usage = ask(client)

    assert parsed == Answer(answer="hi")
    assert usage == Usage(prompt_tokens=12, completion_tokens=3, calls=1)
    (request,) = server.requests
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == "Bearer sk-test"
    assert request.json["model"] == "scripted-model"
    assert request.json["response_format"] == {"type": "json_object"}
    assert request.system == "Say hello as JSON."
    assert request.user == "hello?"


def test_json_schema_mode_sends_the_schema(server):
    server.enqueue(Reply.chat({"answer": "hi"}))
    with ModelClient(
        model="m", base_url=server.base_url, response_format="json_schema", backoff_scale=0
    ) as client:
        client.chat_json(
            system="s",
            user="u",
            schema_name="answer",
            validate=Answer.model_validate,
            schema=Answer.model_json_schema(),
        )

    sent = server.requests[0].json["response_format"]
    assert sent["type"] == "json_schema"
    assert sent["json_schema"]["name"] == "answer"
    assert sent["json_schema"]["schema"]["required"] == ["answer"]


def test_rate_limit_is_retried_after_the_servers_retry_after(server, client, waits):
    server.enqueue(
        Reply.error(429, "slow down", retry_after=2),
        Reply.chat({"answer": "hi"}),
    )

    parsed, usage = ask(client)

    assert parsed.answer == "hi"
    assert len(server.requests) == 2
    assert waits == [2.0]  # the server's Retry-After, not the shorter first backoff
    assert usage.calls == 1  # the 429 spent no tokens


def test_server_errors_back_off_exponentially_then_the_model_is_unavailable(server, client, waits):
    server.enqueue(*[Reply.error(500, "boom")] * 4)

    with pytest.raises(ModelUnavailable) as caught:
        ask(client)

    assert caught.value.code == "model_unavailable"
    assert caught.value.status == 503
    assert "HTTP 500" in caught.value.message
    assert len(server.requests) == 4  # one try and max_retries=3 retries, no more
    assert waits == [0.5, 1.0, 2.0]


def test_waits_are_capped_and_scaled_by_settings(server, waits):
    server.enqueue(Reply.error(429, retry_after=3600), Reply.chat({"answer": "hi"}))
    with ModelClient(
        model="m", base_url=server.base_url, max_wait=10, backoff_scale=0.5, sleep=waits.append
    ) as client:
        ask(client)

    assert waits == [5.0]  # min(3600, max_wait=10) * backoff_scale=0.5


def test_a_slow_model_times_out_and_the_call_is_retried(server, waits):
    server.enqueue(Reply.chat({"answer": "late"}, delay=1.5), Reply.chat({"answer": "hi"}))
    with ModelClient(
        model="m", base_url=server.base_url, timeout=0.3, sleep=waits.append
    ) as client:
        parsed, _ = ask(client)

    assert parsed.answer == "hi"
    assert len(server.requests) == 2
    assert len(waits) == 1


def test_a_refused_request_is_not_retried(server, client):
    server.enqueue(Reply.error(401, "bad key"))

    with pytest.raises(ModelUnavailable) as caught:
        ask(client)

    assert caught.value.code == "model_request_refused"
    assert "401" in caught.value.message
    assert len(server.requests) == 1


def test_malformed_output_is_reasked_with_the_problem_then_fails_clearly(server, client):
    server.enqueue(
        Reply.chat("this is not json", prompt_tokens=10, completion_tokens=5),
        Reply.chat({"reply": "wrong key"}, prompt_tokens=10, completion_tokens=5),
        Reply.chat('{"answer": ', prompt_tokens=10, completion_tokens=5),
    )

    with pytest.raises(ModelOutputInvalid) as caught:
        ask(client)

    error = caught.value
    assert error.code == "model_output_invalid"
    assert "3 times" in error.message
    # Rejected answers cost tokens too; the job's usage must show them.
    assert error.details["usage"] == {
        "prompt_tokens": 30,
        "completion_tokens": 15,
        "total_tokens": 45,
        "calls": 3,
    }
    assert len(server.requests) == 3
    # The re-ask shows the model its own answer and what was wrong with it.
    reask = server.requests[1].messages
    assert reask[2] == {"role": "assistant", "content": "this is not json"}
    assert "not valid" in reask[3]["content"]
    assert "answer" in server.requests[2].messages[3]["content"]  # the missing field


def test_malformed_then_valid_output_succeeds_with_both_calls_counted(server, client):
    server.enqueue(
        Reply.chat("```json\n{broken", prompt_tokens=7, completion_tokens=2),
        Reply.chat('```json\n{"answer": "fenced"}\n```', prompt_tokens=9, completion_tokens=4),
    )

    parsed, usage = ask(client)

    assert parsed.answer == "fenced"
    assert usage == Usage(prompt_tokens=16, completion_tokens=6, calls=2)


def test_a_truncated_answer_is_reasked(server, client):
    server.enqueue(
        Reply.chat('{"answer": "hi"}', finish_reason="length"),
        Reply.chat({"answer": "short"}),
    )

    parsed, _ = ask(client)

    assert parsed.answer == "short"
    assert "token limit" in server.requests[1].messages[3]["content"]


def test_a_response_body_that_is_not_json_counts_as_invalid_output(server, client):
    server.enqueue(*[Reply.raw(b"<html>gateway hiccup</html>")] * 3)

    with pytest.raises(ModelOutputInvalid) as caught:
        ask(client)

    assert "not JSON" in caught.value.message
    assert len(server.requests) == 3


def test_no_model_configured_means_offline():
    with override_settings(GITLOOM_LLM_MODEL=""):
        assert model_client() is None


def test_model_client_is_built_from_settings(server):
    server.enqueue(Reply.error(503), Reply.error(503))
    with override_settings(
        GITLOOM_LLM_MODEL="llama-local",
        GITLOOM_LLM_BASE_URL=server.base_url,
        GITLOOM_LLM_API_KEY="",
        GITLOOM_LLM_BACKOFF_SCALE=0.0,
        GITLOOM_LLM_MAX_RETRIES=1,
    ):
        client = model_client()

    assert client is not None and client.model == "llama-local"
    with client, pytest.raises(ModelUnavailable):
        ask(client)
    assert len(server.requests) == 2  # GITLOOM_LLM_MAX_RETRIES=1 came from settings
    assert server.requests[0].json["model"] == "llama-local"


# --- what real endpoints send around the answer ---------------------------------------


@pytest.mark.parametrize(
    "content",
    [
        # a reasoning model's thinking inline, with a decoy object inside it
        '<think>The user greets me. Maybe {"answer": "wrong"}? No.</think>\n{"answer": "hi"}',
        # a chat template that put the opening tag in the prompt sends only the closing one
        'Greeting, so answer hi.</think>\n\n{"answer": "hi"}',
        # a fence with a language, prose around it
        'Here you go:\n```json\n{"answer": "hi"}\n```\nLet me know if you need more.',
        # trailing text after the object
        '{"answer": "hi"}\n\nI answered with a greeting.',
    ],
    ids=["think-block", "closing-think-only", "fenced-with-prose", "trailing-text"],
)
def test_the_answer_is_read_past_thinking_fences_and_prose(server, client, content):
    server.enqueue(Reply.chat(content))

    parsed, usage = ask(client)

    assert parsed == Answer(answer="hi")
    assert usage.calls == 1 and len(server.requests) == 1  # read, not re-asked


@pytest.mark.parametrize("field", ["reasoning_content", "reasoning"])
def test_a_reasoning_field_is_not_the_answer(server, client, field):
    server.enqueue(
        Reply.chat(
            {"answer": "hi"},
            reasoning='They said hello. I could answer {"answer": "bye"} but hi fits.',
            reasoning_field=field,
        )
    )

    parsed, _ = ask(client)

    assert parsed == Answer(answer="hi")


def test_an_answer_left_in_the_reasoning_field_is_read_when_the_content_is_empty(server, client):
    server.enqueue(
        Reply.chat(None, reasoning='A greeting.\n\nFinal answer:\n{"answer": "hi"}'),
    )

    parsed, usage = ask(client)

    assert parsed == Answer(answer="hi") and usage.calls == 1


def test_thinking_with_no_answer_after_it_is_reasked(server, client):
    server.enqueue(
        Reply.chat("<think>I should greet them.</think>"),
        Reply.chat({"answer": "hi"}),
    )

    parsed, usage = ask(client)

    assert parsed == Answer(answer="hi") and usage.calls == 2
    assert "empty" in server.requests[1].messages[3]["content"]


def _refusing(*formats):
    """A server that answers 400 to a request whose response_format is one of these."""

    def respond(request):
        sent = (request.json.get("response_format") or {}).get("type", "none")
        if sent in formats:
            return Reply.error(400, f"response_format {sent} is not supported")
        return Reply.chat({"answer": "hi"})

    return respond


def schema_client(server):
    return ModelClient(
        model="m", base_url=server.base_url, response_format="json_schema", backoff_scale=0
    )


def ask_with_schema(client):
    return client.chat_json(
        system="s",
        user="u",
        schema_name="answer",
        validate=Answer.model_validate,
        schema=Answer.model_json_schema(),
    )


def test_a_server_refusing_json_schema_is_asked_again_with_json_object(server):
    server.responder = _refusing("json_schema")

    with schema_client(server) as client:
        assert ask_with_schema(client)[0] == Answer(answer="hi")
        assert ask_with_schema(client)[0] == Answer(answer="hi")

    sent = [(r.json.get("response_format") or {}).get("type") for r in server.requests]
    # refused once, then the client keeps to what the server takes
    assert sent == ["json_schema", "json_object", "json_object"]


def test_a_server_refusing_any_response_format_is_asked_without_one(server):
    server.responder = _refusing("json_schema", "json_object")

    with schema_client(server) as client:
        parsed, usage = ask_with_schema(client)

    assert parsed == Answer(answer="hi") and usage.calls == 1
    sent = [(r.json.get("response_format") or {}).get("type") for r in server.requests]
    assert sent == ["json_schema", "json_object", None]


def test_a_refusal_that_is_not_about_the_format_still_fails_at_once(server):
    server.responder = lambda request: Reply.error(400, "model 'm' not found")

    with (
        ModelClient(model="m", base_url=server.base_url, backoff_scale=0) as client,
        pytest.raises(ModelUnavailable) as caught,
    ):
        ask(client)

    assert caught.value.code == "model_request_refused"
    # json_object refused, then no format refused too: two requests, never a loop
    assert len(server.requests) == 2
