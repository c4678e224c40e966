"""The model write path through the HTTP API, with the scripted model answering through
the real openai client: the prompts' rules, reconcile's actions (a replacement kept
apart, a stale memory retired with nothing folded in), a rewrite whose file follows its
fact (listing, history, blame and as_of follow the move; stale cues pruned), the
speaker's clock, and the calls a session costs."""

from __future__ import annotations

import json

import pytest

from memories.extraction.model import RELATE_SYSTEM
from tests.support.model_server import ModelServer, Reply


@pytest.fixture
def ns(api):
    assert api.post("/v1/namespaces", {"name": "default"}, format="json").status_code == 201


@pytest.fixture
def model(settings):
    with ModelServer() as server:
        settings.GITLOOM_LLM_BASE_URL = server.base_url
        settings.GITLOOM_LLM_API_KEY = "test"
        settings.GITLOOM_LLM_MODEL = "scripted-model"
        settings.GITLOOM_LLM_BACKOFF_SCALE = 0
        yield server


@pytest.fixture
def say(api, ns, settings, django_capture_on_commit_callbacks):
    """Post one session and return its finished job."""
    settings.GITLOOM_QUEUE_SYNC = True
    counter = iter(range(1, 1000))

    def post(*turns, when="2026-09-15T18:00:00Z"):
        messages = [
            {
                "id": f"m{next(counter)}",
                "role": ["user", "assistant"][i % 2],
                "content": text,
                "timestamp": when,
            }
            for i, text in enumerate(turns)
        ]
        with django_capture_on_commit_callbacks(execute=True):
            response = api.post("/v1/memories", {"messages": messages}, format="json")
        assert response.status_code == 202, response.json()
        job = api.get(f"/v1/jobs/{response.json()['job']['id']}").json()["job"]
        assert job["status"] == "done", job
        return job

    return post


def fact(text, *, cues, title, topic, tier="facts", source="m1"):
    return {
        "tier": tier,
        "topic": topic,
        "title": title,
        "text": text,
        "cues": cues,
        "sources": [source],
    }


def listed(api):
    return [m["path"] for m in api.get("/v1/memories?namespace=default").json()["memories"]]


def body(api, path):
    return api.get(f"/v1/memories/{path}").json()["body"]


def top(api, query, **params):
    found = api.get("/v1/retrieve", {"query": query, **params}).json()["results"]
    return found[0] if found else None


# --- the prompts -------------------------------------------------------------------


def test_the_prompts_ask_for_cues_in_the_askers_voice_and_say_what_a_good_memory_is(
    api, say, model
):
    model.enqueue(Reply.chat({"memories": []}))

    say("I teach piano on Saturdays.")

    (request,) = model.chat_requests()
    system = request.system
    # cues as the asker will ask them: "I/my", others by name; never "the user"
    for example in ("what do I do for work", "where is my driving test", "what does Siobhan teach"):
        assert example in system
    assert 'Never "the user"' in system and "what is the user's" not in system
    # what is worth keeping, hedges and owners, accepted suggestions, dates
    for rule in ("moods", "weather", "in this chat", "hedge or owner", '"yes pls"'):
        assert rule in system
    assert "NEXT occurrence for a plan and its LAST for a past event" in system
    assert "A weekend is its date range" in system
    # an undated happening gets no date (never the day it was said); nothing added
    assert "never the day the message was sent" in system
    assert "add one from general knowledge" in system
    # the reconcile prompt: current value only, a replacement apart, retire, rename
    relate = RELATE_SYSTEM
    assert "CURRENT value only" in relate and "never fold it in" in relate
    assert '"memories": []' in relate and '"supersedes"' in relate
    assert '"title"' in relate and '"topic"' in relate


# --- reconcile -------------------------------------------------------------------------


def _first_car(say, model):
    model.enqueue(
        Reply.chat(
            {
                "memories": [
                    fact(
                        "Rosa drives a silver 2015 Honda Jazz.",
                        cues=["what car do I drive", "what year is my Honda Jazz"],
                        title="Rosa drives a Honda Jazz",
                        topic="car",
                    )
                ]
            }
        )
    )
    return say("I drive a silver 2015 Honda Jazz.")["result"]["created"][0]


def test_a_new_car_is_a_new_memory_and_the_old_one_is_kept_apart_in_the_past(api, say, model):
    jazz = _first_car(say, model)
    assert len(model.chat_requests()) == 1  # one draft, nothing in the namespace: no relate
    model.enqueue(
        Reply.chat(
            {
                "memories": [
                    fact(
                        "Rosa bought a blue 2022 Toyota Yaris on 2026-09-14.",
                        cues=["what car do I drive", "when did I buy my Toyota Yaris"],
                        title="Rosa's Toyota Yaris",
                        topic="car",
                        source="m2",
                    )
                ]
            }
        ),
        Reply.chat(
            {
                "links": [{"from": "n1", "to": "e1", "type": "supersedes"}],
                "rewrites": [
                    {
                        "target": "e1",
                        "memories": [],
                        "text": "Rosa drove a silver 2015 Honda Jazz until she sold it in "
                        "September 2026.",
                        "cues": ["what car did I drive before", "what year was my Honda Jazz"],
                    }
                ],
            }
        ),
    )

    job = say("Sold the Jazz! Picked up a blue 2022 Toyota Yaris yesterday.")

    (yaris,) = job["result"]["created"]
    assert job["result"]["rewritten"] == [jazz]  # the old memory, nothing folded into it
    # Reconcile was shown the old car among its candidates, and the prompt names its key.
    relate = model.chat_requests()[-1].user
    assert "Honda Jazz" in relate and '"similar_existing": ["e1"]' in relate
    # Two files, one thing each: neither holds both cars.
    assert "Jazz" not in body(api, yaris) and "Yaris" not in body(api, jazz)
    assert body(api, jazz).startswith("Rosa drove")
    # Current truth first: the new car answers, the old one never ranks above it.
    assert top(api, "what car do I drive")["path"] == yaris
    assert {"type": "supersedes", "path": jazz} in api.get(f"/v1/memories/{yaris}").json()[
        "related"
    ]
    assert len(model.chat_requests()) == 3  # extract + one relate per session, no more


def test_a_memory_a_move_made_stale_is_retired_without_folding_anything_into_it(api, say, model):
    model.enqueue(
        Reply.chat(
            {
                "memories": [
                    fact(
                        "Rosa shares a flat in Bristol with her partner Tom.",
                        cues=["who do I live with", "who is my partner"],
                        title="Rosa's flat in Bristol",
                        topic="home",
                    )
                ]
            }
        )
    )
    (flat,) = say("I share a flat in Bristol with my partner Tom.")["result"]["created"]
    model.enqueue(
        Reply.chat(
            {
                "memories": [
                    fact(
                        "Rosa moved to Bath on 2026-09-12.",
                        cues=["where do I live", "when did I move to Bath"],
                        title="Rosa moved to Bath",
                        topic="home",
                        source="m2",
                    )
                ]
            }
        ),
        Reply.chat(
            {
                "links": [],
                "rewrites": [
                    {
                        "target": "e1",
                        "memories": [],
                        "text": "Rosa's partner is Tom; they shared a flat in Bristol until "
                        "Rosa moved to Bath on 2026-09-12.",
                        "cues": ["who is my partner", "where did I live before Bath"],
                    }
                ],
            }
        ),
    )

    job = say("We moved to Bath on Saturday!")

    (bath,) = job["result"]["created"]
    (rewritten,) = job["result"]["rewritten"]
    assert "Bath" in body(api, bath) and "partner" not in body(api, bath)
    assert body(api, rewritten).startswith("Rosa's partner is Tom; they shared")
    assert sorted(listed(api)) == sorted([bath, rewritten])
    # Still about the Bristol flat (the name still fits): rewritten in place.
    assert rewritten == flat and "moved" not in job["result"]
    assert top(api, "who is my partner")["path"] == flat


# --- a rewrite follows its fact -------------------------------------------------------


def test_a_rewrite_that_changes_the_fact_moves_its_file_and_history_follows(api, say, model):
    model.enqueue(
        Reply.chat(
            {
                "memories": [
                    fact(
                        "Rosa lives in Bristol.",
                        cues=["where do I live", "do I live in Bristol"],
                        title="Rosa lives in Bristol",
                        topic="Bristol",
                    )
                ]
            }
        )
    )
    first = say("I live in Bristol.")
    (old,) = first["result"]["created"]
    assert old.startswith("facts/bristol/rosa-lives-in-bristol-")
    model.enqueue(
        Reply.chat(
            {
                "memories": [
                    fact(
                        "Rosa moved to Bath on 2026-09-12.",
                        cues=["when did I move to Bath"],
                        title="move to Bath",
                        topic="home",
                        source="m2",
                    )
                ]
            }
        ),
        Reply.chat(
            {
                "links": [],
                "rewrites": [
                    {
                        "target": "e1",
                        "memories": ["n1"],
                        "text": "Rosa lives in Bath (since 2026-09-12).",
                        # the last names the old value: the text no longer answers it
                        "cues": ["where do I live", "since when do I live in Bath", "Bristol"],
                        "title": "Rosa lives in Bath",
                        "topic": "Bath",
                    }
                ],
            }
        ),
    )

    second = say("We moved to Bath on Saturday.", when="2026-09-14T09:00:00Z")

    (new,) = second["result"]["rewritten"]
    assert new.startswith("facts/bath/rosa-lives-in-bath-")
    assert second["result"]["created"] == [] and second["result"]["moved"] == {old: new}
    assert listed(api) == [new]
    assert api.get(f"/v1/memories/{old}").status_code == 404
    memory = api.get(f"/v1/memories/{new}").json()
    assert memory["body"] == "Rosa lives in Bath (since 2026-09-12)."
    assert memory["cues"] == ["where do I live", "since when do I live in Bath"]
    # One commit moved it: history follows the file back to its old path.
    versions = api.get(f"/v1/memories/{new}/history").json()["versions"]
    assert [v["commit"] for v in versions] == [second["commit"], first["commit"]]
    assert [v["path"] for v in versions] == [new, old]
    assert versions[0]["moved_from"] == old and versions[0]["change"] == "modify"
    assert f"--- a/{old}" in versions[0]["diff"] and f"+++ b/{new}" in versions[0]["diff"]
    assert versions[1]["change"] == "add"
    # Blame carries the lines the move did not change back to the first job.
    blame = api.get(f"/v1/memories/{new}/blame").json()
    owners = {hunk["commit"] for hunk in blame["hunks"]}
    assert first["commit"] in owners and second["commit"] in owners
    # As of the first commit, the old file and text answer; at the head, the new one.
    then = top(api, "where do I live", as_of=first["commit"])
    assert then["path"] == old and then["content"].strip().endswith("Rosa lives in Bristol.")
    assert top(api, "where do I live")["path"] == new


def test_an_offline_rewrite_moves_its_file_the_same_way(api, say):
    (old,) = say("I live in Bristol.")["result"]["created"]
    assert old.startswith("facts/bristol/")

    job = say("We moved to Bath.")

    (new,) = job["result"]["rewritten"]
    assert new.startswith("facts/bath/") and job["result"]["moved"] == {old: new}
    assert listed(api) == [new]
    history = api.get(f"/v1/memories/{new}/history").json()["versions"]
    assert [v["path"] for v in history] == [new, old]


# --- the speaker's clock -------------------------------------------------------------


def test_a_message_at_minus_five_reaches_the_model_on_its_own_day(api, say, model):
    model.enqueue(
        Reply.chat(
            {
                "memories": [
                    fact(
                        "Rosa has a driving lesson on 2026-03-11.",
                        cues=["when is my next driving lesson"],
                        title="driving lesson",
                        topic="driving",
                        tier="events",
                    )
                ]
            }
        )
    )

    # Tuesday 21:30 in New York is already Wednesday 02:30 in UTC.
    job = say("Driving lesson tomorrow, can't wait", when="2026-03-10T21:30:00-05:00")

    line = json.loads(model.chat_requests()[0].user.splitlines()[1])
    assert line["weekday"] == "Tuesday" and line["time"] == "2026-03-10T21:30:00-05:00"
    # The job keeps the offset it was given (blame shows the cited message as posted);
    # the memory's own times are UTC.
    (path,) = job["result"]["created"]
    (commit,) = api.get(f"/v1/memories/{path}/blame").json()["commits"]
    assert commit["messages"][0]["timestamp"] == "2026-03-10T21:30:00-05:00"
    assert api.get(f"/v1/memories/{path}").json()["created"].startswith("2026-03-11T02:30:00")


def test_a_link_to_a_moved_file_follows_it(api, say, model):
    model.enqueue(
        Reply.chat(
            {
                "memories": [
                    fact(
                        "Rosa lives in Bristol.",
                        cues=["where do I live"],
                        title="Rosa lives in Bristol",
                        topic="home",
                    ),
                    fact(
                        "Rosa's flat has a garden with two apple trees.",
                        cues=["does my flat have a garden"],
                        title="Rosa's garden",
                        topic="home",
                    ),
                ]
            }
        ),
        Reply.chat({"links": [{"from": "n2", "to": "n1", "type": "same-home"}], "rewrites": []}),
    )
    first = say("I live in Bristol, the flat has a garden with two apple trees.")
    home, garden = sorted(first["result"]["created"], key=lambda p: "garden" in p)
    assert api.get(f"/v1/memories/{garden}").json()["related"] == [
        {"type": "same-home", "path": home}
    ]

    def relate(request):
        # rewrite whichever existing memory the prompt keyed as the Bristol one
        existing = request.user.split("EXISTING memories:\n", 1)[1].splitlines()
        key = next(json.loads(line)["key"] for line in existing if "Bristol" in line)
        rewrite = {"target": key, "memories": ["n1"], "text": "Rosa lives in Bath."}
        return Reply.chat({"links": [], "rewrites": [{**rewrite, "title": "Rosa lives in Bath"}]})

    model.enqueue(
        Reply.chat(
            {
                "memories": [
                    fact(
                        "Rosa moved to Bath.",
                        cues=["where do I live now"],
                        title="move",
                        topic="home",
                        source="m2",
                    )
                ]
            }
        )
    )
    model.responder = relate

    second = say("We moved to Bath.")

    (new,) = second["result"]["rewritten"]
    assert second["result"]["moved"] == {home: new} and "rosa-lives-in-bath" in new
    # The garden's link names the file where it is now, in the same commit.
    after = api.get(f"/v1/memories/{garden}").json()
    assert after["related"] == [{"type": "same-home", "path": new}]
    versions = api.get(f"/v1/memories/{garden}/history").json()["versions"]
    assert versions[0]["commit"] == second["commit"]


def test_reverting_the_job_that_moved_a_file_puts_it_back_where_it_was(api, say):
    (old,) = say("I live in Bristol.")["result"]["created"]
    job = say("We moved to Bath.")
    (new,) = job["result"]["rewritten"]

    response = api.post(f"/v1/jobs/{job['id']}/revert", {}, format="json")

    assert response.status_code == 201, response.json()
    assert listed(api) == [old] and new != old
    assert body(api, old) == "I live in Bristol."


def test_a_rerun_after_a_crash_reports_the_move_its_commit_made(api, say):
    from memories.jobs import job_run
    from memories.models import Job

    (old,) = say("I live in Bristol.")["result"]["created"]
    moved = say("We moved to Bath.")
    job = Job.objects.get(public_id=moved["id"])
    # The commit landed, the job row was never told: the re-run adopts the commit.
    Job.objects.filter(pk=job.pk).update(status="running", commit="", result={})

    rerun = job_run(job=Job.objects.get(pk=job.pk))

    assert rerun.status == "done" and rerun.commit == moved["commit"]
    assert rerun.result["moved"] == moved["result"]["moved"] and old in rerun.result["moved"]
    assert rerun.result["rewritten"] == moved["result"]["rewritten"]
    assert rerun.result["created"] == []
