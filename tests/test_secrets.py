"""Secrets never surface: one sentinel key used everywhere, then every output is searched.

The sentinel is the server's session key (so the app sends it on every request), every
sandbox's session key (so it sits in app-conversation records, websocket URLs and the VSCODE
exposed URL's ``tkn=``), and a reasoning item's ``encrypted_content``. Then the whole app is
walked (every screen, every event's detail in plain and raw form, the help and the spec
picker), logs are captured at DEBUG, the conversation is exported in both formats, and
``ohtui info`` is run: the sentinel must appear in none of it.
"""

from __future__ import annotations

import asyncio
import json
import logging

from tests.app_helpers import (
    SIZE,
    conversations_shown,
    list_ready,
    screen_ready,
    screen_text,
    settled,
    wait_for,
)
from tui.app.screens.conversation import ConversationScreen
from tui.app.screens.sandboxes import SandboxesScreen, SpecPicker
from tui.app.widgets.event_detail import EventDetail
from tui.app.widgets.event_list import EventList
from tui.cli import main
from tui.server import Store, add_live_demo, load_demo

KEY = "sk-SENTINEL-5ec2e7-key"
CIPHER = "gAAAAB-SENTINEL-ciphertext"
NEEDLES = (KEY, CIPHER, "5ec2e7", "SENTINEL-ciphertext")


def _secret_store() -> tuple[Store, dict[str, str]]:
    store = Store()
    names = load_demo(store)
    names["live"] = add_live_demo(store)
    sandboxes, _ = store.search_sandboxes(limit=100)
    for sandbox in sandboxes:
        store.update_sandbox(sandbox["id"], session_api_key=KEY)
    last = list(store.iter_events(names["hello"]))[-1]
    parent = json.loads(last.json)["id"]
    store.append_events(
        names["hello"],
        [
            {
                "id": "secret-reasoning",
                "timestamp": "2099-01-01T00:00:00.000000",
                "source": "agent",
                "kind": "MessageEvent",
                "parent_id": parent,
                "llm_message": {
                    "role": "assistant",
                    "content": [{"type": "text", "text": "I thought about it."}],
                    "responses_reasoning_item": {
                        "id": "rs_1",
                        "summary": ["weighed options"],
                        "encrypted_content": CIPHER,
                    },
                },
            }
        ],
    )
    return store, names


def _assert_clean(where: str, text: str) -> None:
    for needle in NEEDLES:
        assert needle not in text, f"{needle!r} shown in {where}"


async def test_no_secret_on_any_screen_log_or_export(
    make_server, caplog, tmp_path, capsys, monkeypatch
):
    caplog.set_level(logging.DEBUG)
    store, names = _secret_store()
    server = make_server(store, session_key=KEY)
    from tests.app_helpers import FIXED_NOW
    from tui.app.app import OhtuiApp
    from tui.client import OpenHandsClient

    app = OhtuiApp(
        OpenHandsClient(server.base_url, session_api_key=KEY),
        url=server.base_url,
        clock=lambda: FIXED_NOW,
    )
    seen: list[tuple[str, str]] = []

    def look(where: str) -> None:
        seen.append((where, screen_text(app)))
        seen.append((f"{where} (svg)", app.export_screenshot()))

    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        table = app.screen.query_one("DataTable")
        await wait_for(lambda: table.row_count >= 7, pilot=pilot)
        look("conversations")
        for name in ("hello", "live"):
            app.open_conversation(names[name])
            await wait_for(lambda: isinstance(app.screen, ConversationScreen), pilot=pilot)
            screen = app.screen
            await wait_for(
                lambda screen=screen: list_ready(screen) and screen.events.base.complete,
                pilot=pilot,
            )
            detail = screen.query_one(EventDetail)
            event_list = screen.query_one(EventList)
            for index in range(len(screen.window)):
                event_list.cursor = index
                want = screen.window.row(index).id
                await wait_for(
                    lambda detail=detail, want=want: (
                        detail._event is not None and detail._event.id == want
                    ),
                    pilot=pilot,
                )
                await settled(pilot)
                look(f"{name} event {index}")
                detail.raw_mode = True
                await settled(pilot)
                look(f"{name} event {index} raw")
                detail.raw_mode = False
            await pilot.press("question_mark")
            await settled(pilot)
            look(f"{name} help")
            await pilot.press("question_mark")
            await pilot.press("escape")
            await wait_for(lambda: conversations_shown(app), pilot=pilot)
        await pilot.press("2")
        await wait_for(lambda: screen_ready(app, SandboxesScreen), pilot=pilot)
        sandboxes = app.screen.query_one("DataTable")
        await wait_for(lambda: sandboxes.row_count > 0, pilot=pilot)
        await settled(pilot)
        look("sandboxes")
        cells = [
            str(cell) for row in range(sandboxes.row_count) for cell in sandboxes.get_row_at(row)
        ]
        assert any("tkn=" in cell for cell in cells)  # the VSCODE URL is listed, its token masked
        seen.append(("sandboxes table cells", "\n".join(cells)))
        await pilot.press("s")
        await wait_for(lambda: screen_ready(app, SpecPicker), pilot=pilot)
        await settled(pilot, keep={"specs"})  # its worker waits for the pick
        look("spec picker")
    assert any("secret-reasoning" in text or "I thought about it" in text for _, text in seen)

    for fmt in ("md", "jsonl"):
        target = tmp_path / f"hello.{fmt}"
        argv = [
            "export",
            names["hello"],
            "--format",
            fmt,
            "-o",
            str(target),
            "--url",
            server.base_url,
            "--session-key",
            KEY,
        ]
        assert await asyncio.to_thread(main, argv) == 0
        seen.append((f"export {fmt}", target.read_text(encoding="utf-8")))
    assert "weighed options" in seen[-1][1]  # the reasoning item itself was exported
    monkeypatch.setenv("OHTUI_SESSION_KEY", KEY)
    config = tmp_path / "config.toml"
    config.write_text(
        '[profiles.work]\nurl = "http://127.0.0.1:9"\nsession_key_env = "OHTUI_SESSION_KEY"\n'
    )
    monkeypatch.setenv("OHTUI_CONFIG", str(config))
    assert await asyncio.to_thread(main, ["info", "--profile", "work"]) == 0
    out = capsys.readouterr()
    seen.append(("ohtui info / stdout+stderr", out.out + out.err))
    seen.append(("logs", "\n".join(r.getMessage() for r in caplog.records)))
    for where, text in seen:
        _assert_clean(where, text)
