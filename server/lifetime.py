"""Service processes end with the process that started them, even after ``kill -9``.

A parent killed with SIGKILL cannot stop its children: django-q2's sentinel, workers,
monitor and pusher, and the children ``serve`` forks, would be adopted by init and go
on taking tasks beside the cluster that replaces them (seen: a killed ``qcluster``
left its sentinel and four workers running). Linux can tie a child's life to its
parent's: ``prctl(PR_SET_PDEATHSIG)`` has the kernel signal the child when the parent
exits, however it exits. Each child asks for SIGTERM, so it stops through its usual
handlers (the cluster stops its workers, gunicorn its own); a job a worker was running
when it went is handed out again by the queue (``memories.jobs``), as after any crash.

On a system without ``prctl`` this does nothing: GitLoom's service runs on Linux.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import multiprocessing.util
import os
import signal

_PR_SET_PDEATHSIG = 1


class _Hook:
    """multiprocessing keeps after-fork hooks in a weak registry; this is what it holds."""


_HOOK = _Hook()


def end_with_parent(signum: int = signal.SIGTERM) -> bool:
    """Have the kernel send ``signum`` to this process when its parent exits.

    Call it in a freshly forked child. Returns False where ``prctl`` is unavailable."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
        prctl = libc.prctl
    except (OSError, AttributeError):
        return False
    if prctl(_PR_SET_PDEATHSIG, signum, 0, 0, 0) != 0:
        return False
    # The parent may have died between the fork and the prctl: the child has already
    # been adopted (by init, pid 1), and no signal will ever come, so send it now.
    if os.getppid() == 1:
        os.kill(os.getpid(), signum)
    return True


def multiprocessing_children_end_with_parent() -> None:
    """Every process that ``multiprocessing`` forks from here on (in this process and
    in its descendants: the hook is inherited) ends with the process that forked it."""
    multiprocessing.util.register_after_fork(_HOOK, lambda _hook: end_with_parent())


def cluster_stops_once() -> None:
    """django-q2's cluster stops on the first SIGTERM or SIGINT and ignores any more.

    Its handler sets a multiprocessing Event, whose lock is not reentrant: a second
    signal arriving while the first handler holds that lock (a serve killed with
    SIGKILL sends its death signal, an impatient operator presses Ctrl-C twice) ran the
    handler again inside it, and the cluster's main process deadlocked on its own lock,
    leaving the sentinel, workers, monitor and pusher running (seen in
    tests/server/test_lifetime.py, about one run in five)."""
    from django_q.cluster import Cluster

    original = Cluster.sig_handler
    if getattr(original, "gitloom_once", False):
        return

    def sig_handler(self, signum, frame):
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        original(self, signum, frame)

    sig_handler.gitloom_once = True
    Cluster.sig_handler = sig_handler
