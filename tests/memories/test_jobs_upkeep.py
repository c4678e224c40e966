"""The queue's safety nets: stranded jobs are picked up; repositories are kept compact."""

from tests.support.archives import memory_bytes, tar_gz


def test_a_job_whose_drain_was_lost_is_run_by_the_sweep(api, settings, account):
    from memories.jobs import requeue_pending
    from memories.models import Job
    from memories.services import job_accept
    from namespaces.selectors import namespace_get_for_account

    api.post("/v1/namespaces", {"name": "default"}, format="json")
    # Accepted, but its drain task never reached the queue (say the process died).
    job, _ = job_accept(
        namespace=namespace_get_for_account(account=account, name="default"),
        messages=[{"role": "user", "content": "Dana keeps bees on the roof in Lyon."}],
    )
    assert Job.objects.get(pk=job.pk).status == "queued"
    settings.GITLOOM_QUEUE_SYNC = True
    assert requeue_pending() == 1
    job.refresh_from_db()
    assert job.status == "done" and job.commit
    assert requeue_pending() == 0


def test_upkeep_merges_small_packs_and_keeps_every_memory(api, account, fresh_object_store):
    import json

    from namespaces import repository
    from namespaces.models import Namespace
    from namespaces.services import namespace_upkeep_all

    api.post("/v1/namespaces", {"name": "default"}, format="json")
    for i in range(6):
        files = {f"facts/notes/note-{i}.md": memory_bytes(f"Note number {i} about llamas.")}
        assert (
            api.post(
                "/v1/namespaces/default/import", tar_gz(files), content_type="application/gzip"
            ).status_code
            == 201
        )
    prefix = Namespace.objects.get(name="default").storage_prefix
    before = repository.repository_snapshot(prefix=prefix)

    def packs() -> int:
        return len(json.loads(fresh_object_store.get(prefix + "head.json"))["packs"])

    assert packs() == 7  # the root commit's and one per import
    assert namespace_upkeep_all() == 1
    assert packs() < 7
    after = repository.repository_snapshot(prefix=prefix)
    assert after.commit == before.commit
    assert sorted(after.paths()) == sorted(before.paths()) and len(after.paths()) == 6
    assert api.get("/v1/memories").json()["memories"][0]["path"] == "facts/notes/note-0.md"


def test_a_waiting_jobs_age_shows_in_the_api_the_dashboard_and_the_admin(dashboard, admin_client):
    from datetime import timedelta

    from django.urls import reverse
    from django.utils import timezone
    from rest_framework.test import APIClient

    from accounts.models import Account
    from accounts.services import api_key_create
    from memories.models import Job
    from memories.services import job_accept
    from namespaces.services import namespace_create

    account = Account.objects.get(id="dash")
    namespace = namespace_create(account=account, name="default")
    job, _ = job_accept(
        namespace=namespace,
        messages=[{"role": "user", "content": "Dana keeps bees on the roof in Lyon."}],
    )
    # Accepted ten minutes ago and never started: a stuck queue.
    Job.objects.filter(pk=job.pk).update(created=timezone.now() - timedelta(minutes=10))
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {api_key_create(account=account, name='t')[1]}")
    listed = api.get("/v1/jobs?namespace=default").json()["jobs"][0]
    assert 600 <= listed["age_seconds"] < 660
    assert 600 <= api.get(f"/v1/jobs/{job.public_id}").json()["job"]["age_seconds"] < 660
    page = dashboard.get(reverse("dash-jobs", args=["default"])).content.decode()
    assert ">600 s<" in page or ">601 s<" in page, page
    admin = admin_client.get("/admin/memories/job/").content.decode()
    assert "600 s" in admin or "601 s" in admin
    Job.objects.filter(pk=job.pk).update(status=Job.Status.DONE, finished=timezone.now())
    assert api.get(f"/v1/jobs/{job.public_id}").json()["job"]["age_seconds"] is None
