"""OpenTelemetry spans of a job and a retrieval, recorded by the real SDK (its in-memory
exporter) while the API runs a job inline against the scripted model server and then a
retrieval: the spans nest as the work does, carry the GenAI attribute names, and never
the transcript, the query, a memory's text, an account or a namespace."""

from __future__ import annotations

import pytest

from tests.support.model_server import ModelServer, pipeline_responder

SAID = "I bought a Sony A7III camera from Fotocentre in Bengaluru."
# a question no other test asks: the process's query cache must not already hold it
QUERY = "which camera did Priya buy for the tracing test"


@pytest.fixture(scope="module")
def exporter():
    from opentelemetry import trace
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    memory = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(memory))
    trace.set_tracer_provider(provider)  # once per process: the API allows no second
    yield memory
    memory.shutdown()  # the rest of the session's spans are not kept


@pytest.fixture
def spans(exporter):
    exporter.clear()
    yield exporter
    exporter.clear()


def test_a_job_and_a_retrieval_are_traced_without_text(
    api, spans, settings, django_capture_on_commit_callbacks
):
    assert api.post("/v1/namespaces", {"name": "user-77"}, format="json").status_code == 201
    settings.GITLOOM_QUEUE_SYNC = True
    with ModelServer() as model:
        model.responder = pipeline_responder
        settings.GITLOOM_LLM_BASE_URL = model.base_url
        settings.GITLOOM_LLM_API_KEY = "test"
        settings.GITLOOM_LLM_MODEL = "scripted-model"
        transcript = {"namespace": "user-77", "messages": [{"role": "user", "content": SAID}]}
        with django_capture_on_commit_callbacks(execute=True):
            assert api.post("/v1/memories", transcript, format="json").status_code == 202
    found = api.get("/v1/retrieve", {"namespace": "user-77", "query": QUERY}).json()
    assert found["results"]
    by_name = {}
    for span in spans.get_finished_spans():
        by_name.setdefault(span.name, []).append(span)

    (job,) = by_name["gitloom.job"]
    assert job.attributes["gitloom.job.status"] == "done"
    assert job.attributes["gitloom.job.kind"] == "ingest"
    for stage in ("pipeline", "commit", "index"):
        (span,) = by_name[f"gitloom.job.{stage}"]
        assert span.parent.span_id == job.context.span_id, stage
        assert span.context.trace_id == job.context.trace_id
        assert job.start_time <= span.start_time <= span.end_time <= job.end_time
    chats = by_name["chat scripted-model"]
    assert chats and all(c.parent.span_id == job.context.span_id for c in chats)
    chat = chats[0]
    assert chat.attributes["gen_ai.operation.name"] == "chat"
    assert chat.attributes["gen_ai.request.model"] == "scripted-model"
    assert chat.attributes["gen_ai.usage.input_tokens"] > 0
    assert chat.attributes["gen_ai.usage.output_tokens"] > 0

    (retrieve,) = by_name["gitloom.retrieve"]
    assert retrieve.attributes["gitloom.retrieval.arms"] == "lexical+semantic+graph"
    assert retrieve.attributes["gitloom.retrieval.results"] == len(found["results"])
    (fused,) = by_name["gitloom.retrieval.fused_query"]
    assert fused.parent.span_id == retrieve.context.span_id
    assert fused.attributes["db.system.name"] == "postgresql"
    embeddings = [
        s for s in by_name["embeddings"] if s.context.trace_id == retrieve.context.trace_id
    ]
    (embedding,) = embeddings  # a new query: embedded once, inside the retrieval
    assert embedding.attributes["gen_ai.operation.name"] == "embeddings"
    assert embedding.attributes["gen_ai.request.model"] == settings.GITLOOM_EMBEDDING_MODEL

    for span in spans.get_finished_spans():
        for value in span.attributes.values():
            text = str(value)
            for private in ("Sony", "camera", "Priya", "user-77", "acme"):
                assert private not in text, (span.name, value)
