"""Run a Postgres build's vector operations on an emulated CPU without AVX-512.

QEMU's user-mode emulator (`qemu-x86_64`, Debian package `qemu-user`) runs the server's
own `postgres --single` binary as a Haswell (AVX2, no AVX-512) would: a pgvector compiled
to use AVX-512 unconditionally dies there with SIGILL, one that picks its kernels at run
time works. The CI machine may have AVX-512, so this is what stands in for a user's CPU.
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

# Each line is one statement in single-user mode. 300 rows of 384-d vectors, an HNSW
# cosine index over them, and a query the index must answer (seqscan off), plus the
# functions the issue saw crash (vector_norm, array_to_vector).
PROBE_SQL = """\
CREATE EXTENSION vector
CREATE TABLE probe (id int PRIMARY KEY, v vector(384))
INSERT INTO probe SELECT i, (SELECT array_agg(sin(i * j)::real) FROM generate_series(1, 384) j)::vector FROM generate_series(1, 300) i
SELECT round(vector_norm(v)::numeric, 3) AS norm FROM probe WHERE id = 1
CREATE INDEX probe_hnsw ON probe USING hnsw (v vector_cosine_ops)
SET enable_seqscan = off
SELECT id AS nearest FROM probe ORDER BY v <=> (SELECT v FROM probe WHERE id = 7) LIMIT 1
"""


@dataclass
class ProbeRun:
    returncode: int
    output: str

    @property
    def killed_by_illegal_instruction(self) -> bool:
        return self.returncode in (-4, 132) or "Illegal instruction" in self.output


def qemu() -> str | None:
    return shutil.which("qemu-x86_64")


def _unprivileged_user() -> str | None:
    """Postgres refuses to run as root: pick a user to run it as (None: we aren't root)."""
    if os.geteuid() != 0:
        return None
    for name in ("pgserver", "nobody"):
        try:
            pwd.getpwnam(name)
            return name
        except KeyError:
            continue
    raise RuntimeError("no unprivileged user to run postgres as")


def run_vector_probe(bin_dir: Path, workdir: Path, *, cpu: str = "Haswell") -> ProbeRun:
    """initdb natively, then run PROBE_SQL in `postgres --single` under `qemu -cpu cpu`."""
    user = _unprivileged_user()
    workdir.mkdir(parents=True, exist_ok=True)
    pgdata = workdir / "pgdata"
    if user is not None:
        entry = pwd.getpwnam(user)
        os.chown(workdir, entry.pw_uid, entry.pw_gid)
        for parent in workdir.parents:  # the user must be able to reach it
            os.chmod(parent, os.stat(parent).st_mode | 0o011)
    subprocess.run(
        [
            str(bin_dir / "initdb"),
            "-D",
            str(pgdata),
            "-U",
            "postgres",
            "--auth=trust",
            "-E",
            "utf8",
        ],
        check=True,
        capture_output=True,
        user=user,
        timeout=120,
    )
    result = subprocess.run(
        [qemu(), "-cpu", cpu, str(bin_dir / "postgres"), "--single", "-D", str(pgdata), "postgres"],
        input=PROBE_SQL,
        capture_output=True,
        text=True,
        user=user,
        timeout=600,
    )
    return ProbeRun(returncode=result.returncode, output=result.stdout + result.stderr)
