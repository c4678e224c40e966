"""Concurrent DELETEs of one namespace: one deletes it, the others get 404, never 500
(issue 28, item 4: ``Namespace.DoesNotExist`` from ``select_for_update().get``)."""

import threading

import pytest

from gitloom.core.errors import NamespaceNotFound
from namespaces.models import Namespace
from namespaces.services import namespace_delete


@pytest.mark.django_db(transaction=True)
def test_concurrent_deletes_of_one_namespace_are_one_204_and_404s(account):
    from django.db import connection
    from rest_framework.test import APIClient

    from tests.conftest import _key_client

    api = _key_client(account)
    assert api.post("/v1/namespaces", {"name": "doomed"}, format="json").status_code == 201
    answers: list = []
    start = threading.Barrier(8)

    def delete():
        client = APIClient(raise_request_exception=False)
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {api.secret}")
        try:
            start.wait()
            response = client.delete("/v1/namespaces/doomed")
            code = response.json()["error"]["code"] if response.status_code != 204 else None
            answers.append((response.status_code, code))
        finally:
            connection.close()

    threads = [threading.Thread(target=delete) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert len(answers) == 8
    assert answers.count((204, None)) == 1, answers
    assert set(answers) - {(204, None)} <= {(404, "namespace_not_found")}, answers
    assert not Namespace.objects.filter(name="doomed").exists()


def test_a_delete_that_lost_the_race_is_namespace_not_found(api):
    # What the loser holds: the namespace resolved before the winner's delete committed.
    assert api.post("/v1/namespaces", {"name": "doomed"}, format="json").status_code == 201
    stale = Namespace.objects.get(name="doomed")
    namespace_delete(namespace=Namespace.objects.get(pk=stale.pk))
    with pytest.raises(NamespaceNotFound):
        namespace_delete(namespace=stale)
