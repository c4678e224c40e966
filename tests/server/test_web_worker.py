"""The web worker's request threads: a lone client is served by one warm thread (and so
one database connection and backend), concurrent requests by as many threads as the
worker has, no more; a task's outcome reaches gunicorn through its future."""

from __future__ import annotations

import threading

import pytest

from server.web_worker import LastIdleFirstPool, ThreadWorker


def _run_together(pool: LastIdleFirstPool, count: int) -> set[int]:
    """``count`` tasks that only finish once all of them have started: the idents of
    the threads they ran on."""
    barrier = threading.Barrier(count, timeout=10)

    def task() -> int:
        barrier.wait()
        return threading.get_ident()

    return {future.result(timeout=10) for future in [pool.submit(task) for _ in range(count)]}


def test_one_request_at_a_time_runs_on_the_thread_that_went_idle_last():
    pool = LastIdleFirstPool(4)
    try:
        assert len(_run_together(pool, 4)) == 4  # four threads started, now idle
        ran_on = [pool.submit(threading.get_ident).result(timeout=10) for _ in range(20)]
        # A stdlib ThreadPoolExecutor hands these to its four idle threads in turn.
        assert len(set(ran_on)) == 1
    finally:
        pool.shutdown()


def test_no_more_threads_than_asked_and_every_waiting_task_runs():
    pool = LastIdleFirstPool(2)
    release = threading.Event()
    started = []
    try:
        futures = [
            pool.submit(lambda n=n: (started.append(n), release.wait(10), threading.get_ident()))
            for n in range(5)
        ]
        threading.Event().wait(0.2)
        assert sorted(started) == [0, 1]  # two threads busy, three tasks waiting
        release.set()
        idents = {future.result(timeout=10)[2] for future in futures}
        assert sorted(started) == [0, 1, 2, 3, 4]  # the waiting ones in arrival order
        assert started[2:] == [2, 3, 4]
        assert len(idents) == 2
    finally:
        release.set()
        pool.shutdown()


def test_a_failing_task_hands_its_exception_to_its_future_and_the_thread_goes_on():
    pool = LastIdleFirstPool(1)
    try:

        def fail():
            raise ValueError("broken request")

        with pytest.raises(ValueError, match="broken request"):
            pool.submit(fail).result(timeout=10)
        assert pool.submit(lambda: "next").result(timeout=10) == "next"
    finally:
        pool.shutdown()


def test_shutdown_lets_accepted_tasks_finish_and_refuses_new_ones():
    pool = LastIdleFirstPool(1)
    release = threading.Event()
    first = pool.submit(release.wait, 10)
    second = pool.submit(lambda: "waited its turn")
    cancelled_pool = LastIdleFirstPool(1)
    blocked = cancelled_pool.submit(release.wait, 10)
    dropped = cancelled_pool.submit(lambda: "never")
    cancelled_pool.shutdown(wait=False, cancel_futures=True)
    pool.shutdown(wait=False)
    with pytest.raises(RuntimeError):
        pool.submit(lambda: None)
    release.set()
    pool.shutdown(wait=True)
    cancelled_pool.shutdown(wait=True)
    assert first.result(timeout=10) is True and second.result(timeout=10) == "waited its turn"
    assert blocked.result(timeout=10) is True and dropped.cancelled()
    assert not any(t.name.startswith("request-") and t.is_alive() for t in threading.enumerate())


def test_serves_gunicorn_worker_uses_it():
    class Config:
        threads = 3

    worker = ThreadWorker.__new__(ThreadWorker)
    worker.cfg = Config()
    pool = worker.get_thread_pool()
    try:
        assert isinstance(pool, LastIdleFirstPool)
        assert len(_run_together(pool, 3)) == 3
    finally:
        pool.shutdown()
