"""The log the notices promise: written where ``ohtui info`` says, bounded, never a key.

A failure the app survives is told as a notice naming the log file, and the file holds its
traceback. Every key a client of the process was given is masked in the file (the client's
own redaction), control sequences are made visible (``cat`` of the log must not drive the
terminal), the file is private (600) and rotates (1 MiB x 3 old ones).
"""

from __future__ import annotations

import logging
import os
import re
import stat
from pathlib import Path

import pytest

from tests.helpers.app_helpers import SIZE, conversations_shown, make_app, notes_told, wait_for
from tui.app import log_file
from tui.app.log_file import BACKUPS, MAX_BYTES, start_log_file, stop_log_file
from tui.app.screens.conversations.conversations import ConversationsScreen
from tui.cli import main
from tui.client import OpenHandsClient
from tui.paths import log_dir
from tui.server import Store, load_demo

#: No pattern of the generic redaction knows this one: only the client's own masks it.
KEY = "plain-session-key-4471"


@pytest.fixture
def state(tmp_path, monkeypatch) -> Path:
    for name in list(os.environ):
        if name.startswith("OHTUI_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    for var in ("CONFIG", "DATA", "STATE", "CACHE"):
        monkeypatch.setenv(f"XDG_{var}_HOME", str(tmp_path / var.lower()))
    yield log_dir() / "ohtui.log"
    stop_log_file()


async def test_a_failure_the_notice_promises_to_log_is_in_the_file_without_the_key(
    make_server, state, monkeypatch
):
    store = Store()
    load_demo(store)
    server = make_server(store, session_key=KEY)
    path = start_log_file()
    assert path == state and not path.exists()  # nothing written until something happens
    app = make_app(server.base_url)
    app.client = OpenHandsClient(server.base_url, session_api_key=KEY)

    def broken(*_args) -> None:
        raise RuntimeError(f"refresh broke while holding {KEY}")

    monkeypatch.setattr(ConversationsScreen, "action_refresh", broken)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        notes = notes_told(app)
        await pilot.press("ctrl+r")
        await wait_for(lambda: len(notes) >= 1, pilot=pilot)
    assert f"details in {path}" in notes[0] and KEY not in notes[0]
    text = path.read_text(encoding="utf-8")
    assert "Traceback (most recent call last)" in text
    assert "RuntimeError: refresh broke while holding ****" in text
    assert KEY not in text
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_any_record_is_masked_and_made_safe_to_cat(state):
    # both keys known from now on (a test must not rely on another's client: xdist may run
    # it alone on its worker)
    OpenHandsClient("http://127.0.0.1:9", session_api_key=KEY)
    OpenHandsClient("http://127.0.0.1:9", api_key="another-plain-key-93")
    path = start_log_file()
    logging.getLogger("tui.client").warning(
        "GET failed with %s and \x1b]52;c;Y2xpcA==\x07 then %s", KEY, "another-plain-key-93"
    )
    try:
        raise ValueError(f"nested {KEY}")
    except ValueError:
        logging.getLogger("tui.app").exception("a failure")
    text = path.read_text(encoding="utf-8")
    assert KEY not in text and "another-plain-key-93" not in text
    assert "\x1b" not in text and "\x07" not in text and "␛]52" in text
    assert "ValueError: nested ****" in text


def test_the_log_is_bounded(state):
    path = start_log_file()
    line = "x" * 1000
    for _ in range((BACKUPS + 2) * MAX_BYTES // 1000):
        logging.getLogger("tui.app").warning(line)
    files = sorted(p.name for p in path.parent.iterdir())
    assert files == ["ohtui.log", *(f"ohtui.log.{n}" for n in range(1, BACKUPS + 1))]
    assert all(p.stat().st_size <= MAX_BYTES for p in path.parent.iterdir())


def test_without_a_log_the_notice_promises_none(state, monkeypatch):
    state.parent.parent.mkdir(parents=True)
    state.parent.write_text("a file where the log folder should be")
    assert start_log_file() is None  # cannot be written: said as nothing, never a crash
    assert log_file.current() is None


def test_info_names_the_log_file(state, capsys):
    assert main(["info"]) == 0
    out = capsys.readouterr().out
    assert re.search(rf"log file\s+{re.escape(str(state))}\s+\(not written yet\)", out)


def test_the_app_writes_its_log_while_it_runs(state, demo_server, monkeypatch):
    from tui.app.app import OhtuiApp

    seen: list[Path | None] = []

    def run(self, *args, **kwargs) -> None:
        seen.append(log_file.current())

    monkeypatch.setattr(OhtuiApp, "run", run)
    assert main(["--url", demo_server.base_url]) == 0
    assert seen == [state]
    assert log_file.current() is None  # closed with the app


def test_a_key_too_short_to_mask_does_not_garble_the_log(state):
    OpenHandsClient("http://127.0.0.1:9", session_api_key="a")  # as some tests' servers use
    path = start_log_file()
    logging.getLogger("tui.app").warning("a failure at startup")
    assert "a failure at startup" in path.read_text(encoding="utf-8")
