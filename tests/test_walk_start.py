"""The whole-log walk's start (tui/app/page_pipeline.py ``settle``): a long conversation's
helper process starts as the index begins to wait for the user to be quiet, so its imports
overlap that wait; the index itself still waits. A short conversation starts no helper.
And the helper's interpreter imports no httpx (``tui.client``'s names load on first use)."""

from __future__ import annotations

import asyncio
import subprocess
import sys

from tui.app.page_pipeline import PagePipeline
from tui.app.page_worker import MODULE
from tui.client.process_worker import ProcessWorker


class _Recorder(ProcessWorker):
    """A helper that only notes that it was asked to start (no process)."""

    def __init__(self) -> None:
        super().__init__(MODULE)
        self.asked_to_start = asyncio.Event()

    def start(self) -> None:
        self.asked_to_start.set()


def _pipeline(worker: ProcessWorker) -> PagePipeline:
    pipeline = PagePipeline(None, "c")  # type: ignore[arg-type] - settle makes no request
    pipeline.worker = worker
    return pipeline


async def test_a_long_conversations_helper_starts_while_the_index_waits_for_quiet():
    worker = _Recorder()
    pipeline = _pipeline(worker)
    pipeline.index_called()
    with pipeline.asked():  # the user is loading rows (End): the index waits
        settling = asyncio.ensure_future(pipeline.settle(5_000))
        await worker.asked_to_start.wait()  # ... and its helper starts meanwhile
        assert not settling.done()
    await settling
    assert pipeline._settled


async def test_a_short_conversation_starts_no_helper():
    worker = _Recorder()
    pipeline = _pipeline(worker)
    pipeline.index_called()
    await pipeline.settle(100)
    assert not worker.asked_to_start.is_set() and not pipeline._settled


def test_the_helpers_imports_leave_httpx_out():
    code = (
        "import sys, tui.app.page_worker, tui.app.page_walker\n"
        "print(sorted(m for m in ('httpx', 'httpcore', 'anyio') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
