"""Hostile tar uploads are refused before their headers are held.

Each is refused through the API with its code and nothing changed; the work reading it
took (``memories.archives.TarWork``: bytes decompressed, headers and PAX records
visited) is bounded by the caps, not by the sizes the archive declares. Work, not
seconds: a shared machine's timings prove nothing.
"""

import gzip

import pytest

from gitloom.core.errors import GitLoomError
from memories.archives import TarWork
from memories.imports import tar_members
from namespaces.memory_format import MAX_MEMORY_BYTES
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


def _refused(api, data, code="invalid_archive") -> tuple[dict, TarWork]:
    """The API's refusal (nothing changed), and the work reading the archive takes."""
    before = api.get("/v1/memories").json()["commit"]
    response = _import(api, data)
    assert response.status_code == 400, response.json()
    assert response.json()["error"]["code"] == code
    assert api.get("/v1/memories").json()["commit"] == before
    work = TarWork()
    with pytest.raises(GitLoomError) as refused:
        for _ in tar_members(data, work=work):
            pass
    assert refused.value.code == code
    return response.json(), work


CHUNK = 64 * 1024  # the reader decompresses at most this much beyond what it needs


@pytest.mark.parametrize("kind", [b"x", b"L"], ids=["pax", "gnu-long-name"])
def test_an_extended_header_of_a_gibibyte_is_refused_before_it_is_read(api, ns, kind):
    # About 1 MB on the wire: the header says 1 GiB and the zeros are really there.
    data = gzip.compress(tar_header("././@LongLink", size=GIB, kind=kind)) + gzip_of_zeros(GIB)
    assert len(data) < 2 * 1024 * 1024
    body, work = _refused(api, data)
    assert "limit" in body["error"]["message"]
    assert work.headers == 1 and work.inflated <= 2 * CHUNK  # not the gibibyte


def test_a_quadratic_pax_header_cve_2024_6232_is_refused_at_its_first_record(api, ns):
    # Python's unpatched tarfile spends minutes on this header (records that never close).
    records = b"2 " * 30_000 + b"="
    data = tar_header("pax", size=len(records), kind=b"x") + records
    data += b"\0" * (-len(records) % 512) + tar_header(CAMERA, size=0) + b"\0" * 1024
    _, work = _refused(api, gzip.compress(data))
    assert work.headers == 1 and work.records == 1 and work.inflated <= 2 * CHUNK


def test_a_file_that_unpacks_past_the_import_limit_is_refused(api, ns, settings):
    settings.GITLOOM_MAX_IMPORT_BYTES = 1024 * 1024
    files = {f"facts/topic/item-{i:03d}.md": memory_bytes("x" * 60_000) for i in range(40)}
    _, work = _refused(api, tar_gz(files), code="import_too_large")
    # Stopped at the file that passes the limit: ~18 of the 40 headers, ~1 MiB read.
    assert work.headers <= 19
    assert work.inflated <= settings.GITLOOM_MAX_IMPORT_BYTES + 2 * CHUNK


def test_a_member_of_a_gibibyte_is_refused_without_unpacking_it(api, ns):
    data = gzip.compress(tar_header("facts/a/huge.md", size=GIB)) + gzip_of_zeros(GIB)
    _, work = _refused(api, data, code="invalid_memory")
    assert work.headers == 1 and work.inflated <= MAX_MEMORY_BYTES + 2 * CHUNK


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
