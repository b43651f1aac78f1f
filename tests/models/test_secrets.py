"""Secrets never surface: sentinels put everywhere, then every output is searched.

The sentinel is the server's session key (so the app sends it on every request), every
sandbox's session key (so it sits in app-conversation records, websocket URLs and the VSCODE
exposed URL's ``tkn=``), and a reasoning item's ``encrypted_content``. Then the whole app is
walked (every screen, every event's detail in plain and raw form, the help and the spec
picker), logs are captured at DEBUG, the conversation is exported in both formats, and
``ohtui info`` is run: the sentinel must appear in none of it. A second conversation holds
one sentinel per secret shape (a ``{"key": "api_key"}`` state update, ``GITHUB_TOKEN``,
``OPENAI_API_KEY``, an ``X-API-Key`` header, a secret registry, a password in a URL, tokens
inside log lines, a title; and issue 32's: a Stripe key, a Slack webhook URL, a ``Cookie:``
header, an Azure ``AccountKey=``, ``mysql -pPASS``, an AWS secret key in a message, a
thinking block's signature and a redacted thinking block's data): every screen, copy, log
line, export and insights view and report is searched for each.
"""

from __future__ import annotations

import asyncio
import json
import logging

from tests.helpers.app_helpers import (
    SIZE,
    conversations_shown,
    event_log,
    list_ready,
    screen_ready,
    screen_text,
    settled,
    wait_for,
)
from tui.app.screens.conversation import ConversationScreen
from tui.app.screens.sandboxes.sandboxes import SandboxesScreen, SpecPicker
from tui.app.widgets.conversation.event_detail import EventDetail
from tui.app.widgets.conversation.event_list import EventList
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
    from tests.helpers.app_helpers import FIXED_NOW
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


# --- one sentinel per secret shape ------------------------------------------------------------

SHAPES_CID = "5ec7e75ec7e75ec7e75ec7e75ec7e700"
#: shape → (the secret as it sits in the event, the part that must never be seen)
SHAPES = {
    "state update api_key": ("S3ntinelStateApiKey0001", "S3ntinelStateApiKey0001"),
    "GITHUB_TOKEN ghp_": ("ghp_S3ntinelGithubTokenAAAA0002", "S3ntinelGithubTokenAAAA0002"),
    "OPENAI_API_KEY sk-": ("sk-S3ntinelOpenAI00000000003", "S3ntinelOpenAI00000000003"),
    "X-API-Key header": ("S3ntinelXApiKey0004", "S3ntinelXApiKey0004"),
    "secret registry": ("S3ntinelRegistry0005", "S3ntinelRegistry0005"),
    "password in a URL": ("S3ntinelUrlPass0006", "S3ntinelUrlPass0006"),
    "token in a log line": ("xoxb-S3ntinelSlack0007", "S3ntinelSlack0007"),
    "bearer in a log line": ("S3ntinelBearer00000008", "S3ntinelBearer00000008"),
    "title token=": ("S3ntinelTitle0009", "S3ntinelTitle0009"),
    # issue 32: secrets in new shapes
    "stripe sk_live_": ("sk_live_S3ntinelStripe0010", "S3ntinelStripe0010"),
    "slack webhook URL": (
        "https://hooks.slack.com/services/T0S3NTINL/B0S3NTINL/S3ntinelHook0011",
        "S3ntinelHook0011",
    ),
    "Cookie: header": ("S3ntinelCookie0012", "S3ntinelCookie0012"),
    "azure AccountKey=": ("S3ntinelAzure0013+/w==", "S3ntinelAzure0013"),
    "mysql -pPASS": ("S3ntinelMysql0014", "S3ntinelMysql0014"),
    "AWS secret in a message": ("wJalrXUtnFEMI/K7MDENG/bPxRf/S3ntinelAw15", "S3ntinelAw15"),
    "thinking signature": ("S3ntinelSignature0016" + "A" * 200, "S3ntinelSignature0016"),
    "redacted thinking data": ("S3ntinelRedacted0017" + "B" * 400, "S3ntinelRedacted0017"),
}


def _secret(shape: str) -> str:
    return SHAPES[shape][0]


def _shapes_events() -> list[dict]:
    t0 = "2026-11-20T10:00:"
    call = {"id": "call_s", "name": "terminal", "arguments": "{}", "origin": "completion"}
    command = (
        f"GITHUB_TOKEN={_secret('GITHUB_TOKEN ghp_')} git clone "
        f"https://bob:{_secret('password in a URL')}@git.example/r.git"
    )
    output = "\n".join(
        [
            "marker: the output of the clone",
            f"export OPENAI_API_KEY={_secret('OPENAI_API_KEY sk-')}",
            f'curl -H "X-API-Key: {_secret("X-API-Key header")}" https://api.example/v1',
            f"2026-11-20 INFO slack: posted with {_secret('token in a log line')} ok",
            f"2026-11-20 DEBUG sent Authorization: Bearer {_secret('bearer in a log line')}",
            f"stripe.api_key set from {_secret('stripe sk_live_')}",
            f"posting to {_secret('slack webhook URL')}",
            f"> Cookie: theme=dark; sid={_secret('Cookie: header')}",
            (
                "DefaultEndpointsProtocol=https;AccountName=acct;"
                f"AccountKey={_secret('azure AccountKey=')};EndpointSuffix=core.windows.net"
            ),
        ]
    )
    mysql = f"mysql -uroot -p{_secret('mysql -pPASS')} -h db -e 'select 1' app"
    mysql_call = {"id": "call_m", "name": "terminal", "arguments": "{}", "origin": "completion"}

    def event(n: int, kind: str, parent: str | None, **fields) -> dict:
        return {
            "id": f"sec-{n:02d}",
            "timestamp": f"{t0}{n:02d}.000000",
            "parent_id": parent or "__root__",
            **fields,
            "kind": kind,
        }

    return [
        event(
            1,
            "MessageEvent",
            None,
            source="user",
            llm_message={"role": "user", "content": [{"type": "text", "text": "marker: clone it"}]},
        ),
        event(
            2,
            "ConversationStateUpdateEvent",
            "sec-01",
            source="environment",
            key="api_key",
            value=_secret("state update api_key"),
        ),
        event(
            3,
            "ConversationStateUpdateEvent",
            "sec-02",
            source="environment",
            key="secret_registry",
            value={"secret_sources": {"DEPLOY": {"value": _secret("secret registry")}}},
        ),
        event(
            4,
            "ActionEvent",
            "sec-03",
            source="agent",
            thought=[{"type": "text", "text": "marker: cloning"}],
            tool_name="terminal",
            tool_call_id="call_s",
            tool_call=call,
            llm_response_id="r",
            action={"kind": "TerminalAction", "command": command},
        ),
        event(
            5,
            "ObservationEvent",
            "sec-04",
            source="environment",
            tool_name="terminal",
            tool_call_id="call_s",
            action_id="sec-04",
            observation={
                "kind": "TerminalObservation",
                "command": command,
                "exit_code": 0,
                "content": [{"type": "text", "text": output}],
            },
        ),
        event(
            6,
            "ActionEvent",
            "sec-05",
            source="agent",
            thought=[{"type": "text", "text": "marker: querying"}],
            thinking_blocks=[
                {
                    "type": "thinking",
                    "thinking": "marker: the query needs the password",
                    "signature": _secret("thinking signature"),
                },
                {"type": "redacted_thinking", "data": _secret("redacted thinking data")},
            ],
            tool_name="terminal",
            tool_call_id="call_m",
            tool_call=mysql_call,
            llm_response_id="r2",
            action={"kind": "TerminalAction", "command": mysql},
        ),
        event(
            7,
            "ObservationEvent",
            "sec-06",
            source="environment",
            tool_name="terminal",
            tool_call_id="call_m",
            action_id="sec-06",
            observation={
                "kind": "TerminalObservation",
                "command": mysql,
                "exit_code": 1,
                "content": [{"type": "text", "text": "ERROR 2005: unknown host 'db'"}],
            },
        ),
        event(
            8,
            "MessageEvent",
            "sec-07",
            source="agent",
            llm_message={
                "role": "assistant",
                "content": [
                    {
                        "type": "text",
                        "text": "marker: your keys are AKIAIOSFODNN7EXAMPLE and "
                        f"{_secret('AWS secret in a message')}",
                    }
                ],
                "thinking_blocks": [
                    {"type": "redacted_thinking", "data": _secret("redacted thinking data")}
                ],
            },
        ),
    ]


def _shapes_store() -> Store:
    from tui.server.views import conversation_info

    store = Store()
    store.put_conversation(
        conversation_info(
            id=SHAPES_CID,
            sandbox_id="sb-shapes",
            title=f"deploy with token={_secret('title token=')}",
            created_at="2026-11-20T10:00:00Z",
            updated_at="2026-11-20T10:01:00Z",
            execution_status="finished",
        )
    )
    store.append_events(SHAPES_CID, _shapes_events())
    return store


async def test_every_secret_shape_is_masked_on_screen_in_copies_logs_and_exports(
    make_server, caplog, tmp_path, monkeypatch, capsys
):
    """One sentinel per shape the issues found on screen, in ``C`` copies, exports and
    insights: every event is walked in the list, its detail plain and raw, copied both ways,
    the conversation exported from the app (both formats) and by ``ohtui export``, its
    insights looked at tab by tab and written by ``ohtui insights`` (both formats); logs at
    DEBUG."""
    from tests.helpers.app_helpers import FIXED_NOW
    from tui.app.app import OhtuiApp
    from tui.app.screens import insights as insights_screen
    from tui.app.screens.insights import TABS, InsightsScreen
    from tui.client import OpenHandsClient

    insights_screen.CACHE.clear()

    caplog.set_level(logging.DEBUG)
    monkeypatch.chdir(tmp_path)
    server = make_server(_shapes_store())
    app = OhtuiApp(OpenHandsClient(server.base_url), url=server.base_url, clock=lambda: FIXED_NOW)
    seen: list[tuple[str, str]] = []
    copies: list[str] = []

    def look(where: str) -> None:
        seen.append((where, screen_text(app)))
        seen.append((f"{where} (svg)", app.export_screenshot()))

    async with app.run_test(size=SIZE) as pilot:
        real_copy = app.copy_to_clipboard
        app.copy_to_clipboard = lambda text: (copies.append(text), real_copy(text))  # type: ignore[method-assign]
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        look("conversations")
        app.open_conversation(SHAPES_CID)
        await wait_for(lambda: isinstance(app.screen, ConversationScreen), pilot=pilot)
        screen = app.screen
        await wait_for(lambda: list_ready(screen) and screen.events.base.complete, pilot=pilot)
        detail, event_list = screen.query_one(EventDetail), screen.query_one(EventList)
        rows = 0
        for view in ("steps", "events"):  # each step (with its result), then each event
            if view == "events":
                await event_log(pilot, screen)
            event_list.focus()
            rows += len(screen.window)
            for index in range(len(screen.window)):
                event_list.cursor = index
                want = screen.window.row(index).id
                await wait_for(
                    lambda want=want: detail._event is not None and detail._event.id == want,
                    pilot=pilot,
                )
                await settled(pilot)
                look(f"{view} {index}")
                detail.raw_mode = True
                await settled(pilot)
                look(f"{view} {index} raw")
                detail.raw_mode = False
                for key in ("c", "C"):
                    before = len(copies)
                    await pilot.press(key)
                    await wait_for(lambda before=before: len(copies) > before, pilot=pilot)
        for fmt in ("md", "jsonl"):
            screen.action_export(fmt, "all")
            target = tmp_path / f"ohtui-{SHAPES_CID[:8]}-conversation.{fmt}"
            # the run ends a moment after its file appears; ctrl+s before then cancels it
            await wait_for(
                lambda target=target: target.exists() and screen.export_run is None, pilot=pilot
            )
            seen.append((f"app export {fmt}", target.read_text(encoding="utf-8")))
        await pilot.press("i")
        await wait_for(
            lambda: isinstance(app.screen, InsightsScreen) and app.screen.insights is not None,
            pilot=pilot,
        )
        found = app.screen.insights
        assert found.slowest and any(a.failed for a in found.slowest)  # the mysql command
        seen.append(("insights figures", repr(found.to_json())))
        for tab in TABS:
            await settled(pilot)
            look(f"insights {tab}")
            await pilot.press("right_square_bracket")
        await pilot.press("escape")
    insights_screen.CACHE.clear()
    assert len(copies) == 2 * rows and rows > len(_shapes_events())
    seen.extend((f"copy {i}", text) for i, text in enumerate(copies))
    for fmt in ("md", "jsonl"):
        target = tmp_path / f"cli.{fmt}"
        argv = ["export", SHAPES_CID, "--format", fmt, "-o", str(target), "--url", server.base_url]
        assert await asyncio.to_thread(main, argv) == 0
        seen.append((f"ohtui export {fmt}", target.read_text(encoding="utf-8")))
    capsys.readouterr()
    for fmt in ("md", "json"):
        argv = ["insights", SHAPES_CID, "--format", fmt, "--url", server.base_url]
        assert await asyncio.to_thread(main, argv) == 0
        out = capsys.readouterr()
        seen.append((f"ohtui insights {fmt}", out.out + out.err))
    assert "$ mysql -uroot -p‹redacted›" in seen[-1][1]  # the command, its password masked
    seen.append(("logs", "\n".join(r.getMessage() for r in caplog.records)))
    everything = "\n".join(text for _, text in seen)
    assert "marker: the output of the clone" in everything and "marker: cloning" in everything
    assert "marker: the query needs the password" in everything  # thinking words are shown
    assert "redacted thinking: 420 bytes" in everything  # a redacted block: its size only
    assert "‹redacted›" in everything  # masked where it stood, not dropped
    for shape, (_, needle) in SHAPES.items():
        for where, text in seen:
            assert needle not in text, f"{shape} ({needle}) shown in {where}"
