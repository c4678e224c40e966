"""Every list endpoint and dashboard list page makes the same number of database queries
whether it lists one row or many (pytest-django's query-count assertions).

Each test warms up once (an API key records its last use on its first request), counts
the queries of a one-row list, adds rows, and asserts the same count for the longer
list, and a ceiling for the count itself so a constant that creeps up is seen too.
"""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.fixtures_browser import page_client, person  # noqa: F401
from tests.support.archives import memory_bytes, tar_gz

MORE = 6


def queries_of(call) -> int:
    with CaptureQueriesContext(connection) as captured:
        response = call()
    assert response.status_code == 200, response.content[:300]
    return len(captured.captured_queries)


def assert_flat(call, add_rows, *, ceiling: int, assert_num_queries, rows_in) -> None:
    """The queries of ``call`` with one row, then with ``MORE`` rows: the same, and at
    most ``ceiling``; ``rows_in(response)`` says how many rows the answer listed."""
    call()  # warm-up: a key's first request records its use
    one = queries_of(call)
    assert one <= ceiling, f"{one} queries for one row"
    add_rows()
    with assert_num_queries(one):
        response = call()
    assert rows_in(response) == MORE


def namespace_with_memories(account, name: str, count: int):
    from memories.services import memory_import
    from namespaces.services import namespace_create

    namespace = namespace_create(account=account, name=name)
    files = {
        f"facts/topic/fact-{i}.md": memory_bytes(f"Fact number {i} about topic {name}.")
        for i in range(count)
    }
    memory_import(namespace=namespace, data=tar_gz(files), kind="tar")
    return namespace


def accept_jobs(namespace, count: int) -> None:
    from memories.services import job_accept

    for i in range(count):
        job_accept(namespace=namespace, messages=[{"role": "user", "content": f"Fact {i}."}])


# --- the API -----------------------------------------------------------------------


def test_namespaces_list_endpoint_queries_do_not_grow(api, account, django_assert_num_queries):
    from namespaces.services import namespace_create

    namespace_create(account=account, name="ns-0")
    assert_flat(
        lambda: api.get("/v1/namespaces"),
        lambda: [namespace_create(account=account, name=f"ns-{i}") for i in range(1, MORE)],
        ceiling=3,
        assert_num_queries=django_assert_num_queries,
        rows_in=lambda response: len(response.json()["namespaces"]),
    )


def test_memories_list_endpoint_queries_do_not_grow(api, account, django_assert_num_queries):
    from memories.services import memory_import

    namespace = namespace_with_memories(account, "default", 1)
    more = {f"facts/topic/more-{i}.md": memory_bytes(f"Another fact {i}.") for i in range(MORE - 1)}
    assert_flat(
        lambda: api.get("/v1/memories"),
        lambda: memory_import(namespace=namespace, data=tar_gz(more), kind="tar"),
        ceiling=3,
        assert_num_queries=django_assert_num_queries,
        rows_in=lambda response: len(response.json()["memories"]),
    )


def test_jobs_list_endpoint_queries_do_not_grow(api, account, django_assert_num_queries):
    from namespaces.services import namespace_create

    namespace = namespace_create(account=account, name="default")
    accept_jobs(namespace, 1)
    assert_flat(
        lambda: api.get("/v1/jobs"),
        lambda: accept_jobs(namespace, MORE - 1),
        ceiling=3,
        assert_num_queries=django_assert_num_queries,
        rows_in=lambda response: len(response.json()["jobs"]),
    )


def _run_job(namespace, text: str):
    from memories.jobs import job_run
    from memories.services import job_accept

    job, _ = job_accept(
        namespace=namespace, messages=[{"role": "user", "content": text, "id": "m1"}]
    )
    job = job_run(job=job)
    assert job.status == "done", job.error_message
    return job


def test_changes_endpoint_queries_do_not_grow(api, account, django_assert_num_queries):
    from memories.services import memory_import
    from namespaces.services import namespace_create

    namespace = namespace_create(account=account, name="default")
    start = api.get("/v1/namespaces/default/changes").json()["commit"]
    _run_job(namespace, "I bought a Fujifilm X100V camera in Tokyo for 1200 dollars.")
    more = {f"facts/topic/more-{i}.md": memory_bytes(f"Another fact {i}.") for i in range(MORE - 1)}
    assert_flat(
        lambda: api.get("/v1/namespaces/default/changes", {"since": start}),
        lambda: memory_import(namespace=namespace, data=tar_gz(more), kind="tar"),
        ceiling=3,  # the key, the namespace, the jobs the page names
        assert_num_queries=django_assert_num_queries,
        rows_in=lambda response: len(response.json()["changes"]),
    )


def test_blame_queries_do_not_grow_with_the_commits_it_names(
    api, account, django_assert_num_queries
):
    from namespaces.services import namespace_create

    namespace = namespace_create(account=account, name="default")
    first = _run_job(namespace, "I have a three-year-old beagle named Biscuit.")
    path = first.result["created"][0]
    url = f"/v1/memories/{path}/blame"
    api.get(url)
    one = queries_of(lambda: api.get(url))
    assert one <= 3  # the key, the namespace, the jobs the commits name
    _run_job(namespace, "Quick correction: Biscuit is actually four years old, not three.")
    with django_assert_num_queries(one):
        response = api.get(url)
    assert len(response.json()["commits"]) == 2


def test_jobs_list_endpoint_pages_with_a_cursor(api, account, django_assert_num_queries):
    from namespaces.services import namespace_create

    namespace = namespace_create(account=account, name="default")
    accept_jobs(namespace, 5)
    first = api.get("/v1/jobs", {"limit": 2}).json()
    assert len(first["jobs"]) == 2 and first["next_cursor"] == first["jobs"][-1]["id"]
    seen = [job["id"] for job in first["jobs"]]
    cursor = first["next_cursor"]
    while cursor:
        with django_assert_num_queries(3):  # the key with the namespace, the cursor, the page
            page = api.get("/v1/jobs", {"limit": 2, "cursor": cursor}).json()
        seen += [job["id"] for job in page["jobs"]]
        cursor = page["next_cursor"]
    everything = api.get("/v1/jobs").json()
    assert everything["next_cursor"] is None
    assert seen == [job["id"] for job in everything["jobs"]] and len(seen) == 5
    bad = api.get("/v1/jobs", {"cursor": "not-a-job"})
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "invalid"


def test_keys_list_endpoint_queries_do_not_grow(dashboard, django_assert_num_queries):
    from accounts.models import Account
    from accounts.services import api_key_create

    account = Account.objects.get(id="dash")
    api_key_create(account=account, name="key-0")
    assert_flat(
        lambda: dashboard.get("/v1/keys"),
        lambda: [api_key_create(account=account, name=f"key-{i}") for i in range(1, MORE)],
        ceiling=5,
        assert_num_queries=django_assert_num_queries,
        rows_in=lambda response: len(response.json()["keys"]),
    )


# --- the dashboard -----------------------------------------------------------------


def account_of(user):
    return user.memberships.get().account


def test_namespace_list_page_queries_do_not_grow(
    page_client,  # noqa: F811
    person,  # noqa: F811
    django_assert_num_queries,
):
    account = account_of(person)
    namespace_with_memories(account, "ns-0", 2)
    assert_flat(
        lambda: page_client.get("/namespaces/"),
        lambda: [namespace_with_memories(account, f"ns-{i}", 2) for i in range(1, MORE)],
        ceiling=8,
        assert_num_queries=django_assert_num_queries,
        # every row shows its own namespace's memory count
        rows_in=lambda response: response.text.count('<td class="num">2</td>'),
    )


def test_keys_page_queries_do_not_grow(
    page_client,  # noqa: F811
    person,  # noqa: F811
    django_assert_num_queries,
):
    from accounts.services import api_key_create

    account = account_of(person)
    api_key_create(account=account, name="key-0")
    assert_flat(
        lambda: page_client.get("/keys/"),
        lambda: [api_key_create(account=account, name=f"key-{i}") for i in range(1, MORE)],
        ceiling=8,
        assert_num_queries=django_assert_num_queries,
        rows_in=lambda response: sum(response.text.count(f">key-{i}<") for i in range(MORE)),
    )


def test_memory_browser_page_queries_do_not_grow(
    page_client,  # noqa: F811
    person,  # noqa: F811
    django_assert_num_queries,
):
    from memories.services import memory_import

    namespace = namespace_with_memories(account_of(person), "notes", 1)
    more = {f"facts/topic/more-{i}.md": memory_bytes(f"Another fact {i}.") for i in range(MORE - 1)}
    assert_flat(
        lambda: page_client.get("/namespaces/notes/"),
        lambda: memory_import(namespace=namespace, data=tar_gz(more), kind="tar"),
        ceiling=8,
        assert_num_queries=django_assert_num_queries,
        rows_in=lambda response: response.text.count('href="/namespaces/notes/memories/'),
    )


def test_jobs_page_queries_do_not_grow(
    page_client,  # noqa: F811
    person,  # noqa: F811
    django_assert_num_queries,
):
    from namespaces.services import namespace_create

    namespace = namespace_create(account=account_of(person), name="notes")
    accept_jobs(namespace, 1)
    assert_flat(
        lambda: page_client.get("/namespaces/notes/jobs/"),
        lambda: accept_jobs(namespace, MORE - 1),
        ceiling=8,
        assert_num_queries=django_assert_num_queries,
        rows_in=lambda response: len(
            set(re.findall(r'href="/namespaces/notes/jobs/([0-9a-f-]{36})/"', response.text))
        ),
    )


@pytest.fixture(autouse=True)
def _db(db):
    """Every test here uses the database."""


def test_memory_page_with_its_blame_queries_do_not_grow_with_the_jobs_it_names(
    page_client,  # noqa: F811
    person,  # noqa: F811
    django_assert_num_queries,
):
    from namespaces.services import namespace_create

    namespace = namespace_create(account=account_of(person), name="notes")
    first = _run_job(namespace, "I have a three-year-old beagle named Biscuit.")
    path = first.result["created"][0]
    url = f"/namespaces/notes/memories/{path}"
    page_client.get(url)
    one = queries_of(lambda: page_client.get(url))
    assert one <= 8
    for text in (
        "Quick correction: Biscuit is actually four years old, not three.",
        "Biscuit, my beagle, now weighs 12 kg and loves the Pune park.",
    ):
        _run_job(namespace, text)
    with django_assert_num_queries(one):
        response = page_client.get(url)
    assert response.text.count('href="/namespaces/notes/jobs/') >= 2


def test_job_page_and_its_revert_page_queries_do_not_grow_with_its_messages(
    page_client,  # noqa: F811
    person,  # noqa: F811
    django_assert_num_queries,
):
    from memories.jobs import job_run
    from memories.services import job_accept
    from namespaces.services import namespace_create

    namespace = namespace_create(account=account_of(person), name="notes")
    counts = []
    for messages in (1, MORE):
        job, _ = job_accept(
            namespace=namespace,
            messages=[
                {"role": "user", "content": f"I visited my cousin number {i} in Lyon {messages}."}
                for i in range(messages)
            ],
        )
        job = job_run(job=job)
        assert job.status == "done" and job.commit
        for url in (
            f"/namespaces/notes/jobs/{job.public_id}/",
            f"/namespaces/notes/jobs/{job.public_id}/revert/",
        ):
            page_client.get(url)
            counts.append(queries_of(lambda url=url: page_client.get(url)))
    assert counts[:2] == counts[2:] and max(counts) <= 8, counts
