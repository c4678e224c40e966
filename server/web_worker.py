"""The web worker `manage.py serve` runs: gunicorn's threaded worker, its heartbeat
made at most once a second, its requests handed to the thread that went idle last.

gunicorn's gthread worker tells the master it is alive by a utime() on a file, on every
turn of its event loop: once per request and more under keep-alive. The master only
asks whether the file is older than the timeout (120 s), so one heartbeat a second says
the same at a fraction of the cost (py-spy: ~3 % of a worker's busy time under
`/v1/whoami`, with the file on tmpfs already).

Each request thread has its own database connection, so its own Postgres backend.
``concurrent.futures.ThreadPoolExecutor`` wakes its idle threads in turn, so a client
sending one request at a time was answered by each thread, and each backend, in
rotation: every request ran on the connection, backend and CPU caches that had been
idle longest. :class:`LastIdleFirstPool` gives a request to the thread that finished
last, whose connection and backend are warm; under load every thread is busy anyway.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from concurrent.futures import Future

from gunicorn.workers.gthread import ThreadWorker as _GunicornThreadWorker

HEARTBEAT_SECONDS = 1.0


class LastIdleFirstPool:
    """A thread pool (``submit`` and ``shutdown``, as gunicorn uses an executor) whose
    idle threads wait on a stack: a task goes to the thread that went idle last, a
    new thread is started only when none is idle, and at most ``max_workers`` run.
    Tasks that find every thread busy wait in arrival order."""

    def __init__(self, max_workers: int, *, name: str = "request") -> None:
        if max_workers < 1:
            raise ValueError("max_workers must be at least 1")
        self._max_workers = max_workers
        self._name = name
        self._lock = threading.Lock()
        self._idle: list[_Slot] = []  # the last to go idle at the end
        self._waiting: deque = deque()
        self._threads: list[threading.Thread] = []
        self._shutdown = False

    def submit(self, fn, /, *args, **kwargs) -> Future:
        future: Future = Future()
        task = (future, fn, args, kwargs)
        with self._lock:
            if self._shutdown:
                raise RuntimeError("cannot submit to a pool that is shut down")
            if self._idle:
                self._idle.pop().hand(task)
            elif len(self._threads) < self._max_workers:
                thread = threading.Thread(
                    target=self._work,
                    args=(_Slot(), task),
                    name=f"{self._name}-{len(self._threads) + 1}",
                )
                self._threads.append(thread)
                thread.start()
            else:
                self._waiting.append(task)
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """As the executor's: no more tasks; the waiting ones still run unless
        ``cancel_futures``; idle threads end, busy ones when the waiting tasks are done."""
        with self._lock:
            self._shutdown = True
            if cancel_futures:
                while self._waiting:
                    self._waiting.popleft()[0].cancel()
            while self._idle:
                self._idle.pop().hand(None)
            threads = list(self._threads)
        if wait:
            for thread in threads:
                thread.join()

    def _work(self, slot: _Slot, task) -> None:
        while task is not None:
            future, fn, args, kwargs = task
            if future.set_running_or_notify_cancel():
                try:
                    result = fn(*args, **kwargs)
                except BaseException as exc:  # noqa: BLE001 - handed to the future, as the executor does
                    future.set_exception(exc)
                else:
                    future.set_result(result)
            # Nothing of the finished task stays referenced while the thread waits.
            task = future = fn = args = kwargs = None
            with self._lock:
                if self._waiting:
                    task = self._waiting.popleft()
                    continue
                if self._shutdown:
                    return
                self._idle.append(slot)
            task = slot.take()


class _Slot:
    """Where an idle thread waits for its next task (None: end)."""

    __slots__ = ("_ready", "_task")

    def __init__(self) -> None:
        self._ready = threading.Semaphore(0)
        self._task = None

    def hand(self, task) -> None:
        self._task = task
        self._ready.release()

    def take(self):
        self._ready.acquire()
        task, self._task = self._task, None
        return task


class ThreadWorker(_GunicornThreadWorker):
    _last_heartbeat = float("-inf")

    def get_thread_pool(self) -> LastIdleFirstPool:
        return LastIdleFirstPool(self.cfg.threads)

    def notify(self) -> None:
        now = time.monotonic()
        if now - self._last_heartbeat >= HEARTBEAT_SECONDS:
            self._last_heartbeat = now
            super().notify()
