"""Hostile tar uploads are refused in milliseconds, before their headers are held."""

import gzip
import time

import pytest

from tests.support.archives import (
    CAMERA,
    gzip_of_zeros,
    memory_bytes,
    sample_files,
    tar_gz,
    tar_header,
)

GIB = 1024**3


@pytest.fixture
def ns(api):
    assert api.post("/v1/namespaces", {"name": "default"}, format="json").status_code == 201
    assert _import(api, tar_gz({CAMERA: memory_bytes("Bought a Sony A7III.")})).status_code == 201
    return "default"


def _import(api, data):
    return api.post("/v1/namespaces/default/import", data, content_type="application/gzip")


def _refused_quickly(api, data, code="invalid_archive"):
    before = api.get("/v1/memories").json()["commit"]
    started = time.monotonic()
    response = _import(api, data)
    took = time.monotonic() - started
    assert response.status_code == 400, response.json()
    assert response.json()["error"]["code"] == code
    assert took < 2.0, f"took {took:.1f} s"
    assert api.get("/v1/memories").json()["commit"] == before
    return response


@pytest.mark.parametrize("kind", [b"x", b"L"], ids=["pax", "gnu-long-name"])
def test_an_extended_header_of_a_gibibyte_is_refused_before_it_is_read(api, ns, kind):
    # About 1 MB on the wire: the header says 1 GiB and the zeros are really there.
    data = gzip.compress(tar_header("././@LongLink", size=GIB, kind=kind)) + gzip_of_zeros(GIB)
    assert len(data) < 2 * 1024 * 1024
    response = _refused_quickly(api, data)
    assert "limit" in response.json()["error"]["message"]


def test_a_quadratic_pax_header_cve_2024_6232_is_refused_in_milliseconds(api, ns):
    # Python's unpatched tarfile spends minutes on this header (records that never close).
    records = b"2 " * 30_000 + b"="
    data = tar_header("pax", size=len(records), kind=b"x") + records
    data += b"\0" * (-len(records) % 512) + tar_header(CAMERA, size=0) + b"\0" * 1024
    _refused_quickly(api, gzip.compress(data))


def test_a_file_that_unpacks_past_the_import_limit_is_refused(api, ns, settings):
    settings.GITLOOM_MAX_IMPORT_BYTES = 1024 * 1024
    files = {f"facts/topic/item-{i:03d}.md": memory_bytes("x" * 60_000) for i in range(40)}
    _refused_quickly(api, tar_gz(files), code="import_too_large")


def test_a_member_of_a_gibibyte_is_refused_without_unpacking_it(api, ns):
    data = gzip.compress(tar_header("facts/a/huge.md", size=GIB)) + gzip_of_zeros(GIB)
    _refused_quickly(api, data, code="invalid_memory")


def test_long_names_and_pax_paths_written_by_tarfile_still_import(api, ns):
    import io
    import tarfile

    long_path = "facts/" + "t" * 60 + "/" + "n" * 90 + ".md"
    body = memory_bytes("A memory at a long path.")
    for fmt in (tarfile.PAX_FORMAT, tarfile.GNU_FORMAT):
        out = io.BytesIO()
        with tarfile.open(fileobj=out, mode="w:gz", format=fmt) as archive:
            for name, content in {**sample_files(), long_path: body}.items():
                info = tarfile.TarInfo(name)
                info.size = len(content)
                archive.addfile(info, io.BytesIO(content))
        response = _import(api, out.getvalue())
        assert response.status_code in (200, 201), response.json()
        assert api.get(f"/v1/memories/{long_path}").status_code == 200
    plain = io.BytesIO()
    with tarfile.open(fileobj=plain, mode="w", format=tarfile.PAX_FORMAT) as archive:
        info = tarfile.TarInfo("facts/plain/tar-00000000.md")
        info.size = len(body)
        archive.addfile(info, io.BytesIO(body))
    assert _import(api, plain.getvalue()).status_code == 201
