# ruff: noqa: F811 — pytest fixtures are imported by name and used as parameters
"""The object store: same behaviour on the local directory and on S3 over HTTP."""

from __future__ import annotations

import threading
from datetime import datetime

import boto3
import pytest

from gitloom.core.errors import InvalidInput, InvalidName, ServiceUnavailable
from namespaces.storage import (
    S3ObjectStore,
    namespace_prefix,
    validate_key,
    validate_prefix,
)


def test_namespace_prefix_joins_validated_slugs():
    assert namespace_prefix("acme", "user-8213") == "acme#user-8213/"


@pytest.mark.parametrize(
    ("account", "namespace"),
    [
        ("acme#x", "ns"),
        ("acme", "ns/../other"),
        ("acme", "ns#x"),
        ("acme/x", "ns"),
        ("", "ns"),
        ("acme", ""),
        ("ACME", "ns"),
        ("acme", "a" * 65),
        ("acme", None),
    ],
)
def test_namespace_prefix_refuses_ids_that_could_reach_other_data(account, namespace):
    with pytest.raises(InvalidName):
        namespace_prefix(account, namespace)


@pytest.mark.parametrize(
    "key",
    ["", "/abs", "a//b", "../x", "a/../b", "a/./b", ".", "a b", "a\x00b", "a/b/", "é", "a\\b"],
)
def test_hostile_keys_are_refused(key):
    with pytest.raises(InvalidInput):
        validate_key(key)


def test_the_empty_prefix_is_refused_so_nothing_can_wipe_everything(object_store):
    object_store.put("acme#a/x", b"1")
    with pytest.raises(InvalidInput):
        object_store.delete_prefix("")
    with pytest.raises(InvalidInput):
        validate_prefix("acme#a")  # not a folder
    assert object_store.get("acme#a/x") == b"1"


def test_put_and_get_round_trip_and_missing_is_none(object_store):
    object_store.put("acme#a/packs/p1", b"\x00pack bytes\xff")
    assert object_store.get("acme#a/packs/p1") == b"\x00pack bytes\xff"
    assert object_store.get("acme#a/packs/missing") is None
    assert object_store.get_versioned("acme#a/packs/missing") is None


def test_put_if_absent_creates_once_and_never_overwrites(object_store):
    assert object_store.put_if_absent("acme#a/head.json", b"first") is True
    assert object_store.put_if_absent("acme#a/head.json", b"second") is False
    assert object_store.get("acme#a/head.json") == b"first"


def test_put_if_match_swaps_only_the_version_that_was_read(object_store):
    object_store.put_if_absent("acme#a/head.json", b"v1")
    data, etag = object_store.get_versioned("acme#a/head.json")
    assert data == b"v1"
    assert object_store.put_if_match("acme#a/head.json", b"v2", etag) is True
    # A writer still holding v1's version loses: no silent overwrite.
    assert object_store.put_if_match("acme#a/head.json", b"v2-stale", etag) is False
    assert object_store.get("acme#a/head.json") == b"v2"
    _, etag2 = object_store.get_versioned("acme#a/head.json")
    assert etag2 != etag


def test_put_if_match_on_a_missing_key_fails(object_store):
    assert object_store.put_if_match("acme#a/head.json", b"x", "0" * 32) is False
    assert object_store.get("acme#a/head.json") is None


def test_concurrent_compare_and_swap_loses_no_increment(object_store):
    key = "acme#counter/head.json"
    object_store.put_if_absent(key, b"0")
    threads, rounds = 6, 8

    def bump():
        for _ in range(rounds):
            while True:
                data, etag = object_store.get_versioned(key)
                if object_store.put_if_match(key, str(int(data) + 1).encode(), etag):
                    break

    workers = [threading.Thread(target=bump) for _ in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert object_store.get(key) == str(threads * rounds).encode()


def test_list_sees_only_its_prefix_with_sizes_and_times(object_store):
    object_store.put("acme#a/packs/one", b"1")
    object_store.put("acme#a/packs/two", b"22")
    object_store.put("acme#ab/packs/other", b"333")  # shares the leading characters
    listed = object_store.list("acme#a/")
    assert [(o.key, o.size) for o in listed] == [("acme#a/packs/one", 1), ("acme#a/packs/two", 2)]
    assert all(isinstance(o.last_modified, datetime) and o.last_modified.tzinfo for o in listed)
    assert object_store.list("acme#missing/") == []


def test_delete_prefix_removes_one_namespace_only(object_store):
    object_store.put("acme#a/head.json", b"a")
    object_store.put("acme#a/packs/p", b"a")
    object_store.put("acme#ab/head.json", b"b")
    assert object_store.delete_prefix("acme#a/") == 2
    assert object_store.list("acme#a/") == []
    assert object_store.get("acme#ab/head.json") == b"b"
    object_store.delete("acme#ab/head.json")
    object_store.delete("acme#ab/head.json")  # deleting twice is fine
    assert object_store.get("acme#ab/head.json") is None


def test_put_many_writes_every_object(object_store):
    object_store.put_many({"acme#a/packs/p.pack": b"pack", "acme#a/packs/p.idx": b"idx"})
    assert object_store.get("acme#a/packs/p.pack") == b"pack"
    assert object_store.get("acme#a/packs/p.idx") == b"idx"
    with pytest.raises(InvalidInput):
        object_store.put_many({"acme#a/ok": b"1", "../escape": b"2"})


def test_fetch_to_file_copies_and_reports_missing(object_store, tmp_path):
    object_store.put("acme#a/packs/p", b"pack")
    target = tmp_path / "fetched" / "p"
    assert object_store.fetch_to_file("acme#a/packs/p", target) is True
    assert target.read_bytes() == b"pack"
    assert object_store.fetch_to_file("acme#a/packs/none", tmp_path / "none") is False
    assert not (tmp_path / "none").exists()


def test_stats_count_uploaded_bytes(object_store):
    before = object_store.stats.snapshot()
    object_store.put("acme#a/x", b"12345")
    object_store.put_if_absent("acme#a/y", b"123")
    assert object_store.stats.bytes_uploaded - before.bytes_uploaded == 8


def test_local_store_leaves_no_temp_files_inside_a_namespace(local_store):
    local_store.put("acme#a/x", b"1")
    local_store.put_if_absent("acme#a/y", b"2")
    local_store.put_if_absent("acme#a/y", b"3")
    _, etag = local_store.get_versioned("acme#a/y")
    local_store.put_if_match("acme#a/y", b"4", etag)
    local_store.put_if_match("acme#a/y", b"5", etag)
    files = sorted(p.name for p in (local_store.root / "acme#a").iterdir())
    assert files == ["x", "y"]
    assert local_store.get("acme#a/y") == b"4"


def test_s3_key_prefix_keeps_objects_under_it(moto_server, tmp_path):
    bucket = "gitloom-test-prefixed"
    store = S3ObjectStore(
        bucket=bucket, endpoint_url=moto_server, key_prefix="gl/", cache_dir=tmp_path
    )
    store.ensure_bucket()
    store.put("acme#a/head.json", b"x")
    raw = boto3.client("s3", endpoint_url=moto_server).list_objects_v2(Bucket=bucket)
    assert [o["Key"] for o in raw["Contents"]] == ["gl/acme#a/head.json"]
    assert [o.key for o in store.list("acme#a/")] == ["acme#a/head.json"]


def test_unreachable_s3_is_a_service_unavailable_error(fake_aws_env, tmp_path):
    store = S3ObjectStore(
        bucket="gitloom-nowhere", endpoint_url="http://127.0.0.1:9", cache_dir=tmp_path
    )
    with pytest.raises(ServiceUnavailable):
        store.get("acme#a/head.json")


def test_a_missing_bucket_is_a_service_unavailable_error(moto_server, tmp_path):
    store = S3ObjectStore(
        bucket="gitloom-never-created", endpoint_url=moto_server, cache_dir=tmp_path
    )
    with pytest.raises(ServiceUnavailable):
        store.get("acme#a/head.json")
    with pytest.raises(ServiceUnavailable):
        store.put("acme#a/head.json", b"x")
