"""The web worker `manage.py serve` runs: gunicorn's threaded worker, each request read
whole by its event loop before a thread sees it, its heartbeat made at most once a
second, its requests handed to the thread that went idle last.

Slow clients. gunicorn's gthread worker (27.x) hands a connection to a request thread
as soon as its first byte arrives, and the thread then reads the headers and body with
blocking calls and no deadline: a client that sends half its headers and stops holds a
thread for as long as it likes, and with every thread of a worker so held, the worker
still accepts new connections and queues them behind the stuck ones (4 threads per
worker: a handful of such sockets stopped the service). gunicorn has no setting that
bounds header or body time, nor does uvicorn (only its keep-alive). So the worker's
event loop reads each request itself, without blocking, and h11 (the HTTP/1.1 state
machine httpx and uvicorn use) says when the message is complete (Content-Length or
chunked framing); only then is the connection handed to a thread, with the bytes
already read put back in front of gunicorn's own parser, which parses them as before.
A request whose headers (``GITLOOM_HTTP_HEADER_TIMEOUT``) or body
(``GITLOOM_HTTP_BODY_TIMEOUT``) do not arrive in time is answered 408 and closed; one
client address may hold at most ``GITLOOM_HTTP_CONNECTIONS_PER_CLIENT`` unanswered or
idle connections per worker (a new one closes its longest-waiting one); a thread
writing a response to a client that stopped reading gives up after
``GITLOOM_HTTP_SEND_TIMEOUT`` without progress.

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

import contextlib
import errno
import selectors
import socket
import threading
import time
from collections import OrderedDict, deque
from concurrent.futures import Future
from functools import partial

import h11
from gunicorn import util
from gunicorn.workers.gthread import TConn
from gunicorn.workers.gthread import ThreadWorker as _GunicornThreadWorker

HEARTBEAT_SECONDS = 1.0
# How often the event loop looks for requests past their deadline.
DEADLINE_SWEEP_SECONDS = 0.25
_RECV_BYTES = 64 * 1024
# Largest request head (request line and headers) read: past it, 431. Above what
# gunicorn's own limits let through in practice (a 4094-byte request line, fields of
# 8190 bytes), so gunicorn still answers its 414/431 for what fits here.
MAX_HEAD_BYTES = 64 * 1024


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
            outcome = None
            if future.set_running_or_notify_cancel():
                try:
                    outcome = (fn(*args, **kwargs), None)
                except BaseException as exc:  # noqa: BLE001 - handed to the future, as the executor does
                    outcome = (None, exc)
            # The thread is idle (or has its next task) before the future is resolved: a
            # caller that submits again as soon as it has the result finds this thread.
            with self._lock:
                if self._waiting:
                    task, idle = self._waiting.popleft(), False
                elif self._shutdown:
                    task, idle = None, False
                else:
                    task, idle = None, True
                    self._idle.append(slot)
            if outcome is not None:
                result, exc = outcome
                if exc is not None:
                    future.set_exception(exc)
                else:
                    future.set_result(result)
            # Nothing of the finished task stays referenced while the thread waits.
            future = fn = args = kwargs = outcome = result = exc = None
            if idle:
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


class _Conn(TConn):
    """gunicorn's connection, with the bytes the event loop read for its next request
    handed to the parser before the thread parses, and a send timeout for the thread."""

    def __init__(self, cfg, sock, client, server, limits: _Limits) -> None:
        super().__init__(cfg, sock, client, server)
        self.limits = limits
        self.early = b""
        self.reading: _Reading | None = None

    @property
    def address(self) -> str:
        return self.client[0] if isinstance(self.client, tuple) else "local"

    def init(self) -> None:
        # Runs in the request thread after gunicorn made the socket blocking: the
        # message is whole in ``early``, so a read should never wait; a write to a
        # client that stopped reading gives up after the send timeout.
        super().init()
        self.sock.settimeout(self.limits.send)
        if self.early:
            self.parser.unreader.unread(self.early)
            self.early = b""


class _Limits:
    def __init__(self) -> None:
        from django.conf import settings

        self.header = settings.GITLOOM_HTTP_HEADER_TIMEOUT
        self.body = settings.GITLOOM_HTTP_BODY_TIMEOUT
        self.send = settings.GITLOOM_HTTP_SEND_TIMEOUT or None
        self.per_client = settings.GITLOOM_HTTP_CONNECTIONS_PER_CLIENT
        # Past this declared length the application refuses the body (413) unread.
        self.body_bytes = max(settings.GITLOOM_MAX_BODY_BYTES, settings.GITLOOM_MAX_IMPORT_BYTES)


def _head_complete(buffer: bytearray) -> bool:
    return b"\r\n\r\n" in buffer or b"\n\n" in buffer


class _Reading:
    """One request being read by the event loop: the raw bytes so far, h11's view of
    them, and the moment it must be whole by."""

    __slots__ = ("buffer", "deadline", "parser")

    def __init__(self, deadline: float) -> None:
        self.buffer = bytearray()
        self.deadline = deadline
        self.parser = h11.Connection(h11.SERVER, max_incomplete_event_size=MAX_HEAD_BYTES)


class ThreadWorker(_GunicornThreadWorker):
    _last_heartbeat = float("-inf")

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._limits: _Limits | None = None
        self._reading: dict[int, _Conn] = {}
        # Per client address, its connections waiting on the client (being read or
        # kept alive), longest-waiting first.
        self._waiting_by_client: dict[str, OrderedDict[int, _Conn]] = {}
        self._next_sweep = 0.0

    def init_process(self) -> None:
        self._limits = _Limits()
        super().init_process()

    def get_thread_pool(self) -> LastIdleFirstPool:
        return LastIdleFirstPool(self.cfg.threads)

    # --- connections waiting on their client, in the event loop --------------------

    def accept(self, listener) -> None:
        try:
            client_sock, client_addr = listener.accept()
        except OSError as exc:
            if exc.errno not in (errno.EAGAIN, errno.ECONNABORTED, errno.EWOULDBLOCK):
                raise
            return
        self.nr_conns += 1
        conn = _Conn(self.cfg, client_sock, client_addr, listener.getsockname(), self._limits)
        self._read_next_request(conn, registered=False)

    def on_client_socket_readable(self, conn, client) -> None:
        # A kept-alive connection's next request begins: read it here, not in a thread.
        self.keepalived_conns.remove(conn)
        self._read_next_request(conn, registered=True)

    def finish_request(self, conn, fs) -> None:
        try:
            result = fs.result() if not fs.cancelled() else False
        except Exception:  # noqa: BLE001 - gunicorn's own finish_request closes it below
            result = False
        if result and self.alive and conn.parser.unreader.buf.getvalue():
            # A pipelined request already (partly) read: finish reading it here too.
            self._read_next_request(
                conn, registered=False, data=conn.parser.unreader.take_buffered()
            )
            return
        super().finish_request(conn, fs)
        if self.keepalived_conns and self.keepalived_conns[-1] is conn:
            self._waiting_by_client.setdefault(conn.address, OrderedDict())[id(conn)] = conn
            self._bound_client(conn.address)

    def murder_keepalived(self, force=False) -> None:
        # gunicorn's, forgetting each closed connection in the per-client count too.
        now = time.monotonic()
        while self.keepalived_conns:
            conn = self.keepalived_conns[0]
            if conn.timeout > now and not force:
                break
            self.keepalived_conns.popleft()
            self._forget_waiting(id(conn), conn.address)
            with contextlib.suppress(OSError, KeyError, ValueError):
                self.poller.unregister(conn.sock)
            self.nr_conns -= 1
            conn.close()

    def murder_pending(self) -> None:
        super().murder_pending()
        now = time.monotonic()
        if now < self._next_sweep:
            return
        self._next_sweep = now + DEADLINE_SWEEP_SECONDS
        for conn in [c for c in self._reading.values() if c.reading.deadline <= now]:
            self._drop(conn, answer=True)
        if not self.alive:
            # Stopping: a connection that has sent nothing yet is not waited for.
            for conn in [c for c in self._reading.values() if not c.reading.buffer]:
                self._drop(conn, answer=False)

    def _read_next_request(self, conn: _Conn, *, registered: bool, data: bytes = b"") -> None:
        conn.sock.setblocking(False)
        conn.reading = _Reading(time.monotonic() + self._limits.header)
        self._reading[id(conn)] = conn
        waiting = self._waiting_by_client.setdefault(conn.address, OrderedDict())
        waiting[id(conn)] = conn
        waiting.move_to_end(id(conn))
        callback = partial(self._on_readable, conn)
        if registered:
            self.poller.modify(conn.sock, selectors.EVENT_READ, callback)
        else:
            self.poller.register(conn.sock, selectors.EVENT_READ, callback)
        self._bound_client(conn.address)
        if data:
            self._take(conn, data)
        elif registered:
            self._on_readable(conn, conn.sock)

    def _on_readable(self, conn: _Conn, _sock) -> None:
        try:
            data = conn.sock.recv(_RECV_BYTES)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data:
            if conn.reading.buffer:
                # Half a request, then the client stopped sending: gunicorn's parser
                # meets the end too and answers as it always did (a cut-short body: 400).
                self._hand_over(conn)
            else:  # the client went away
                self._drop(conn, answer=False)
            return
        self._take(conn, data)

    def _take(self, conn: _Conn, data: bytes) -> None:
        reading = conn.reading
        reading.buffer += data
        try:
            reading.parser.receive_data(data)
            while True:
                event = reading.parser.next_event()
                if event is h11.NEED_DATA:
                    return
                if isinstance(event, h11.Request):
                    reading.deadline = time.monotonic() + self._limits.body
                    length = dict(event.headers).get(b"content-length")
                    if length is not None and int(length) > self._limits.body_bytes:
                        break  # refused unread by the application (413)
                    if reading.parser.they_are_waiting_for_100_continue:
                        # The client waits for this before its body (curl: up to 1 s).
                        with contextlib.suppress(OSError):
                            conn.sock.send(b"HTTP/1.1 100 Continue\r\n\r\n")
                elif isinstance(event, (h11.EndOfMessage, h11.ConnectionClosed)):
                    break
        except (h11.RemoteProtocolError, ValueError):
            if len(reading.buffer) > MAX_HEAD_BYTES and not _head_complete(reading.buffer):
                self._drop(conn, answer=True, status=431)
                return
            # gunicorn's parser answers it, as it always did, from the bytes read so
            # far: the client's side is shut, so it cannot wait for more.
            with contextlib.suppress(OSError):
                conn.sock.shutdown(socket.SHUT_RD)
        self._hand_over(conn)

    def _hand_over(self, conn: _Conn) -> None:
        """The request is whole (or gunicorn must answer it): to a thread."""
        self._stop_waiting(conn)
        conn.early = bytes(conn.reading.buffer)
        conn.reading = None
        if conn.initialized:
            conn.parser.unreader.unread(conn.early)
            conn.early = b""
        conn.data_ready = True
        self.enqueue_req(conn)

    def _stop_waiting(self, conn: _Conn) -> None:
        self._reading.pop(id(conn), None)
        self._forget_waiting(id(conn), conn.address)
        with contextlib.suppress(KeyError, ValueError, OSError):
            self.poller.unregister(conn.sock)

    def _forget_waiting(self, conn_id: int, address: str | None = None) -> None:
        addresses = [address] if address is not None else list(self._waiting_by_client)
        for each in addresses:
            waiting = self._waiting_by_client.get(each)
            if waiting is not None and waiting.pop(conn_id, None) is not None:
                if not waiting:
                    del self._waiting_by_client[each]
                return

    def _bound_client(self, address: str) -> None:
        if self._limits.per_client <= 0:
            return  # no bound (behind a proxy every client has the proxy's address)
        waiting = self._waiting_by_client.get(address)
        while waiting is not None and len(waiting) > self._limits.per_client:
            _, oldest = next(iter(waiting.items()))
            if oldest in self.keepalived_conns:
                self.keepalived_conns.remove(oldest)
            self._drop(oldest, answer=oldest.reading is not None and bool(oldest.reading.buffer))
            waiting = self._waiting_by_client.get(address)

    def _drop(self, conn: _Conn, *, answer: bool, status: int = 408) -> None:
        """Close a connection waiting on its client; 408 (or ``status``) if it began a
        request."""
        self._stop_waiting(conn)
        conn.reading = None
        if answer:
            # A client whose buffer is full or that is gone is just closed.
            with contextlib.suppress(OSError):
                util.write_error(conn.sock, status, "", "")
        self.nr_conns -= 1
        with contextlib.suppress(OSError):
            conn.sock.shutdown(socket.SHUT_RDWR)
        conn.close()

    def notify(self) -> None:
        now = time.monotonic()
        if now - self._last_heartbeat >= HEARTBEAT_SECONDS:
            self._last_heartbeat = now
            super().notify()
