"""A helper process for per-event work (parsing pages, building rows) beside the UI's loop.

Why: pydantic's validation and row building hold the GIL, so on the UI's one loop they
compete with every paint and key; a thread would not run them alongside. A second
interpreter does (the machine's other core), while the UI fetches the next page.

The helper is a fresh interpreter (``python -m MODULE``, never a fork of this threaded
process) speaking length-prefixed pickles on its stdin/stdout: a request is ``(seq,
payload)``, an answer ``(seq, ok, result)``. Both ends are ours; nothing from a server is
unpickled (the helper receives bytes and sends back what it built). Its stderr goes
nowhere (a traceback there would land on the UI's screen and could quote an event), and it
logs nothing. It exits when its stdin closes, so it cannot outlive this process, even one
that was killed. If it cannot start or dies, every request waiting on it fails with
:class:`WorkerGone` and callers do the work in-line (nothing is lost); it is not restarted.

No Textual here, and nothing of ``tui.app``: the app names the module that does the work.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import pickle
import queue
import signal
import struct
import subprocess
import sys
import threading
from collections.abc import Callable
from concurrent.futures import Future, InvalidStateError
from typing import Any, BinaryIO

from tui.children import own_module_command

_HEADER = struct.Struct("<I")
_STOP = object()


class WorkerGone(RuntimeError):
    """The helper process could not start or has died: do the work in-line."""


def write_frame(stream: BinaryIO, value: Any) -> None:
    data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_HEADER.pack(len(data)))
    stream.write(data)
    stream.flush()


def read_frame(stream: BinaryIO) -> Any:
    """The next frame, or raises EOFError when the other end is gone."""
    head = stream.read(_HEADER.size)
    if len(head) < _HEADER.size:
        raise EOFError
    size = _HEADER.unpack(head)[0]
    data = stream.read(size)
    if len(data) < size:
        raise EOFError
    return pickle.loads(data)


def serve(handle: Callable[[Any], Any]) -> None:
    """The helper's side: answer requests on stdin until it closes. A request whose
    handling raises is answered ``ok=False`` with the exception's type name only (its text
    could quote an event); the caller then does that piece in-line."""
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # nothing printed may corrupt the frames
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the terminal's ^C is the app's to handle
    while True:
        try:
            seq, payload = read_frame(stdin)
        except EOFError:
            return
        if seq == 0:  # the parent asks whether the imports are done: they are
            write_frame(stdout, (0, True, None))
            continue
        try:
            answer = (seq, True, handle(payload))
        except Exception as exc:  # noqa: BLE001 - reported to the caller, which falls back
            answer = (seq, False, type(exc).__name__)
        try:
            write_frame(stdout, answer)
        except (BrokenPipeError, OSError):
            return


async def answer(future: Future[Any]) -> Any:
    """Await a :meth:`ProcessWorker.submit` future on the running loop. Unlike
    ``asyncio.wrap_future``, an answer that arrives after the loop has closed (the app
    quit while a page was being read) is dropped quietly, never logged on the terminal."""
    loop = asyncio.get_running_loop()
    waiter: asyncio.Future[Any] = loop.create_future()

    # the answered future is passed along, never captured: a closure over it would make a
    # reference cycle (future → its callback → the closure → future) that keeps its answer
    # (pages of bodies) until a full collection — or for good once the app freezes the heap
    def copy(answered: Future[Any]) -> None:
        if waiter.done():
            return
        error = answered.exception()
        if error is not None:
            waiter.set_exception(error)
        else:
            waiter.set_result(answered.result())

    def done(answered: Future[Any]) -> None:
        with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits
            loop.call_soon_threadsafe(copy, answered)

    future.add_done_callback(done)
    return await waiter


class ProcessWorker:
    """One helper process running ``python -m module``; :meth:`submit` returns a future.

    Started in a thread (:meth:`start` returns at once); until it has said it is ready,
    :attr:`ready` is False and callers work in-line rather than wait for its imports."""

    def __init__(self, module: str) -> None:
        self.module = module
        self._process: subprocess.Popen[bytes] | None = None
        self._pending: dict[int, Future[Any]] = {}
        self._lock = threading.Lock()
        self._outbox: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._seq = 0
        self._started = False
        self.ready = False
        self.broken = False

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    @property
    def usable(self) -> bool:
        """Started, ready and alive: worth sending work to."""
        return self.ready and not self.broken

    def start(self) -> None:
        """Start the helper in the background (once); never blocks the caller."""
        with self._lock:
            if self._started:
                return
            self._started = True
        threading.Thread(target=self._run_writer, name="ohtui-worker-out", daemon=True).start()

    def submit(self, payload: Any) -> Future[Any]:
        """Send ``payload`` to the helper; the future gets its answer, or WorkerGone."""
        future: Future[Any] = Future()
        with self._lock:
            if self.broken or not self._started:
                future.set_exception(WorkerGone("the helper process is not running"))
                return future
            self._seq += 1
            seq = self._seq
            self._pending[seq] = future
        future.set_running_or_notify_cancel()  # not cancellable: its answer comes anyway
        self._outbox.put((seq, payload))
        return future

    def close(self) -> None:
        """Stop the helper: its stdin closes, it exits; killed if it does not at once."""
        with self._lock:
            self._started = True  # a closed helper is not started again
        self._outbox.put(_STOP)
        process = self._process
        if process is None:
            self._fail_all()
            return
        with contextlib.suppress(OSError):
            if process.stdin is not None:
                process.stdin.close()
        try:
            process.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        self._fail_all()

    # --- the threads ---------------------------------------------------------------------

    def _spawn(self) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            own_module_command(self.module),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            close_fds=True,
        )

    def _run_writer(self) -> None:
        try:
            process = self._process = self._spawn()
        except OSError:
            self._fail_all()
            return
        threading.Thread(
            target=self._run_reader, args=(process,), name="ohtui-worker-in", daemon=True
        ).start()
        assert process.stdin is not None
        try:
            write_frame(process.stdin, (0, None))  # answered once its imports are done
            while (item := self._outbox.get()) is not _STOP:
                write_frame(process.stdin, item)
            process.stdin.close()  # closed: the helper reads the end and exits
        except (BrokenPipeError, OSError, ValueError):
            self._fail_all()

    def _run_reader(self, process: subprocess.Popen[bytes]) -> None:
        assert process.stdout is not None
        try:
            while True:
                seq, ok, result = read_frame(process.stdout)
                if seq == 0:
                    self.ready = True
                    continue
                with self._lock:
                    future = self._pending.pop(seq, None)
                if future is None:
                    continue
                with contextlib.suppress(InvalidStateError):
                    if ok:
                        future.set_result(result)
                    else:
                        future.set_exception(WorkerGone(f"the helper failed: {result}"))
        except (EOFError, OSError, ValueError, pickle.UnpicklingError):
            pass
        self._fail_all()

    def _fail_all(self) -> None:
        with self._lock:
            self.broken = True
            self.ready = False
            pending, self._pending = self._pending, {}
        for future in pending.values():
            with contextlib.suppress(InvalidStateError):
                future.set_exception(WorkerGone("the helper process stopped"))


_WORKERS: dict[str, ProcessWorker] = {}


def shared_worker(module: str) -> ProcessWorker:
    """The one helper for ``module`` in this process (started on first use by callers
    that call :meth:`ProcessWorker.start`), stopped when the interpreter exits."""
    worker = _WORKERS.get(module)
    if worker is None:
        worker = _WORKERS[module] = ProcessWorker(module)
    return worker


def release_worker(module: str, worker: ProcessWorker) -> None:
    """Its work is done: stop ``worker`` if it is the shared helper for ``module`` (in a
    thread: its exit is awaited) so its memory goes back while the app lives on; the next
    :func:`shared_worker` starts a fresh one."""
    if _WORKERS.get(module) is worker:
        del _WORKERS[module]
        threading.Thread(target=worker.close, name="ohtui-worker-stop", daemon=True).start()


def close_workers() -> None:
    """Stop every helper (the app calls this as it exits; atexit does too)."""
    for worker in list(_WORKERS.values()):
        worker.close()
    _WORKERS.clear()


atexit.register(close_workers)
