"""Hostile content and huge events against the real reference server, as people would see them.

Markup (``[bold]``, ``[@click=app.quit]``, ``[link=…]``), ANSI/OSC escape sequences (colour,
cursor moves, screen clears, OSC 52 clipboard writes, OSC 8 links), bidi overrides and NULs
in every text an event can carry must be shown literally or as visible stand-ins: never
interpreted by Textual, never passed to the terminal. Huge outputs (50 MB, a 1,000,000-character
line) must render abbreviated, with what was cut said, in bounded memory (how long they take is
measured by ``python -m bench.big_output``).
"""

from __future__ import annotations

import gc
import re
import resource
import subprocess
import sys
import threading
import tracemalloc
from pathlib import Path

import pytest
from rich.segment import Segment
from textual.app import App, ComposeResult
from textual.widgets import Collapsible

from tests.helpers.app_helpers import (
    SIZE,
    conversations_shown,
    event_log,
    make_app,
    push_conversation,
    screen_text,
    settled,
    tree_ready,
    wait_for,
)
from tui.app.screens.conversation import ConversationScreen
from tui.app.store.rows import EventRow
from tui.app.widgets.conversation.event_detail import EventDetail
from tui.app.widgets.conversation.event_list import EventList
from tui.app.widgets.conversation.event_tree import Branch, EventTreeView
from tui.server import Store
from tui.server.views import conversation_info

ESC_SEQUENCES = (
    "\x1b[31mred\x1b[0m"  # colour
    "\x1b[2J\x1b[H"  # clear screen, cursor home
    "\x1b]52;c;ZXZpbA==\x07"  # OSC 52: write "evil" to the clipboard
    "\x1b]8;;https://evil.example\x1b\\osc8\x1b]8;;\x1b\\"  # OSC 8 hyperlink
    "\x1bc"  # full reset
)
MARKUP = "[bold red]x[/] [@click=app.quit]click[/] [link=https://evil.example]lnk[/link]"
HOSTILE = f"{MARKUP} {ESC_SEQUENCES} \u202eevil\u202c nul\x00end"
#: what must never reach a rendered line: controls (tab and newline too), bidi, surrogates
UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff]")

CID = "0badc0de0badc0de0badc0de0badc0de"
T0 = "2026-11-20T10:00:"
TOOL_CALL = {"id": "call_h", "name": "terminal", "arguments": "{}", "origin": "completion"}


def _text(value: str) -> dict:
    return {"type": "text", "text": value}


def _event(n: int, kind: str, parent: str | None, **fields) -> dict:
    return {
        "id": f"ev-{n:02d}",
        "timestamp": f"{T0}{n:02d}.000000",
        "parent_id": parent or "__root__",
        **fields,
        "kind": kind,
    }


def _action(n: int, parent: str, action: dict, call: str, tool: str = "terminal", **fields) -> dict:
    return _event(
        n,
        "ActionEvent",
        parent,
        source="agent",
        thought=[_text(f"thinking {HOSTILE}")],
        tool_name=tool,
        tool_call_id=call,
        tool_call={**TOOL_CALL, "id": call, "name": tool},
        llm_response_id="r",
        action=action,
        **fields,
    )


def _observation(
    n: int, parent: str, observation: dict, call: str, action_id: str, tool: str = "terminal"
) -> dict:
    return _event(
        n,
        "ObservationEvent",
        parent,
        source="environment",
        tool_name=tool,
        tool_call_id=call,
        action_id=action_id,
        observation=observation,
    )


def hostile_events() -> list[dict]:
    """One valid (typed) event per place hostile text can sit, chained ev-01 → ev-12."""
    message = f"# Heading {MARKUP}\n\n**bold** `{MARKUP}` {ESC_SEQUENCES}\n\n```\n{HOSTILE}\n```\n\n[a link](https://evil.example) \u202eevil"
    return [
        _event(
            1,
            "MessageEvent",
            None,
            source="user",
            llm_message={"role": "user", "content": [_text(f"please {HOSTILE}")]},
        ),
        _event(
            2,
            "MessageEvent",
            "ev-01",
            source="agent",
            sender=HOSTILE,
            llm_message={
                "role": "assistant",
                "content": [_text(message)],
                "reasoning_content": f"reason {HOSTILE}",
                "thinking_blocks": [{"type": "thinking", "thinking": f"think {HOSTILE}"}],
            },
        ),
        _action(
            3,
            "ev-02",
            {"kind": "TerminalAction", "command": f"echo '{HOSTILE}'"},
            "call_t",
            summary=f"summary {HOSTILE}",
        ),
        _observation(
            4,
            "ev-03",
            {
                "kind": "TerminalObservation",
                "command": f"echo '{HOSTILE}'",
                "exit_code": 1,
                "content": [_text(f"out {HOSTILE}\n" * 3)],
                "metadata": {"exit_code": 1, "working_dir": f"/w/{HOSTILE}"},
            },
            "call_t",
            "ev-03",
        ),
        _action(
            5,
            "ev-04",
            {
                "kind": "FileEditorAction",
                "command": "str_replace",
                "path": f"/src/{HOSTILE}.py",
                "old_str": f"old {HOSTILE}",
                "new_str": f"new {HOSTILE}",
            },
            "call_f",
            tool="file_editor",
        ),
        _observation(
            6,
            "ev-05",
            {
                "kind": "FileEditorObservation",
                "command": "str_replace",
                "path": f"/src/{HOSTILE}.py",
                "content": [_text(f"edited {HOSTILE}")],
            },
            "call_f",
            "ev-05",
            tool="file_editor",
        ),
        _event(
            7,
            "AgentErrorEvent",
            "ev-06",
            source="agent",
            tool_name=f"tool {HOSTILE}",
            tool_call_id="call_e",
            error=f"error {HOSTILE}",
        ),
        _event(
            8,
            "ConversationErrorEvent",
            "ev-07",
            source="environment",
            code=f"E{HOSTILE}",
            detail=f"detail {HOSTILE}",
        ),
        _event(
            9,
            "HookExecutionEvent",
            "ev-08",
            source="hook",
            hook_event_type="PreToolUse",
            hook_command=f"hook {HOSTILE}",
            success=False,
            exit_code=2,
            stdout=f"stdout {HOSTILE}",
            stderr=f"stderr {HOSTILE}",
            reason=f"reason {HOSTILE}",
        ),
        _action(
            10,
            "ev-09",
            {"kind": "ThinkAction", "thought": f"thought {HOSTILE}"},
            "call_k",
            tool="think",
        ),
        _action(11, "ev-10", {"kind": "FinishAction", "message": message}, "call_z", tool="finish"),
        _event(
            12,
            "ConversationStateUpdateEvent",
            "ev-11",
            source="environment",
            key=f"key {HOSTILE}",
            value=HOSTILE,
        ),
    ]


def hostile_store(events: list[dict] | None = None) -> Store:
    store = Store()
    store.put_conversation(
        conversation_info(
            id=CID,
            sandbox_id="sb-hostile",
            title=f"title {HOSTILE}",
            llm_model=f"model {HOSTILE}",
            created_at="2026-11-20T10:00:00Z",
            updated_at="2026-11-20T10:01:00Z",
            execution_status="finished",
        )
    )
    store.append_events(CID, hostile_events() if events is None else events)
    # and one of a kind this client does not know, hostile: shown as its fields, still literal
    store.append_events(
        CID,
        [
            {
                "id": "ev-99",
                "timestamp": f"{T0}59.000000",
                "source": "agent",
                "kind": f"Future{HOSTILE}",
                "x": HOSTILE,
            }
        ],
        normalize=False,
    )
    return store


# --- screen checks ------------------------------------------------------------------------------


def _segments(app) -> list[Segment]:
    return [seg for strip in app.screen._compositor.render_strips() for seg in strip]


def assert_screen_is_inert(app) -> str:
    """No control character on screen, no terminal hyperlink, no click that isn't ours."""
    text = screen_text(app)
    assert "\x1b" not in text
    for line in text.split("\n"):
        bad = UNSAFE.search(line)
        assert bad is None, f"{bad.group()!r} reached the screen in {line!r}"
    for seg in _segments(app):
        style = seg.style
        if style is None:
            continue
        assert not style.link, f"a terminal hyperlink (OSC 8) to {style.link!r} on {seg.text!r}"
        click = style.meta.get("@click")
        # ours: Markdown links (posted, never opened) and widget internals; never app actions
        assert click is None or "quit" not in str(click) and "app." not in str(click), (
            click,
            seg.text,
        )
    assert app.is_running and app.return_code is None
    return text


async def _open(app, pilot) -> ConversationScreen:
    screen = await push_conversation(pilot, CID)
    await wait_for(lambda: tree_ready(screen), pilot=pilot)
    return screen


async def _select(screen, pilot, index: int) -> EventDetail:
    screen.query_one(EventList).cursor = index
    detail = screen.query_one(EventDetail)
    want = screen.window.row(index).id
    await wait_for(lambda: detail._event is not None and detail._event.id == want, pilot=pilot)
    await settled(pilot)
    return detail


async def _click_the_bait(app, pilot, limit: int = 12) -> int:
    """Click where hostile markup is drawn ("click", "lnk", links): nothing may happen."""
    clicked = 0
    for y, line in enumerate(screen_text(app).split("\n")):
        for match in re.finditer(r"click\]?|lnk|a link|osc8", line):
            if clicked >= limit:
                return clicked
            await pilot.click(offset=(match.start() + 1, y))
            clicked += 1
    return clicked


def _region_text(text: str, region) -> str:
    """The part of the screen text inside ``region`` (our stand-ins are one cell wide)."""
    lines = text.split("\n")[region.y : region.bottom]
    return "\n".join(line[region.x : region.right] for line in lines)


async def _detail_pages(app, pilot, detail: EventDetail, pages: int = 10) -> str:
    """The detail pane's text page by page to its end, checking every page on the way."""
    for collapsible in detail.query(Collapsible):  # thinking and reasoning are folded
        collapsible.collapsed = False
    detail.scroll_home(animate=False, immediate=True)
    seen = []
    for _ in range(pages):
        await settled(pilot)
        text = assert_screen_is_inert(app)
        seen.append(_region_text(text, detail.region))
        if detail.scroll_y >= detail.max_scroll_y:
            break
        detail.scroll_to(
            y=detail.scroll_y + detail.region.height - 2, animate=False, immediate=True
        )
    return "\n".join(seen)


# --- tests --------------------------------------------------------------------------------------


async def test_conversations_table_shows_hostile_title_literally(make_server):
    server = make_server(hostile_store())
    app = make_app(server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        table = app.screen.query_one("DataTable")
        await wait_for(lambda: table.row_count == 1, pilot=pilot)
        await settled(pilot)
        text = assert_screen_is_inert(app)
        assert "title [bold red]x[/] [@click=app.quit]" in text  # the markup, as typed
        assert "model [bold red]x[" in text  # (the column is narrow)
        assert await _click_the_bait(app, pilot)
        await settled(pilot)
        assert app.is_running and app.return_code is None


TALL = (140, 60)


async def test_every_hostile_event_is_literal_in_list_tree_and_detail(make_server):
    server = make_server(hostile_store())
    app = make_app(server.base_url)
    async with app.run_test(size=TALL) as pilot:
        screen = await _open(app, pilot)
        # the steps view: an action and its result on one row, both literal
        assert_screen_is_inert(app)
        merged = [screen.window.row(i).summary for i in range(len(screen.window))]
        assert any(
            line.startswith("$ echo '[bold red]x[/]") and "→ exit 1 · out [bold red]x[/]" in line
            for line in merged
        ), merged
        await event_log(pilot, screen)  # then every event, a row each
        assert len(screen.window) == 13
        rows = [screen.window.row(i) for i in range(13)]
        # typed, and the unknown kind is no error: it is shown as its fields
        assert [r.flag for r in rows] == [r.flag for r in rows[:12]] + [""]
        assert rows[12].summary.startswith("unknown kind · x: [bold red]x[/]")
        tree = screen.query_one(EventTreeView)
        tree.root.expand_all()
        await pilot.press(*["greater_than_sign"] * 6)  # a wider tree: its labels in full
        await settled(pilot)
        # the header: the title literal, its escape sequences as stand-ins
        text = assert_screen_is_inert(app)
        assert (
            "title [bold red]x[/] [@click=app.quit]click[/] [link=https://evil.example]lnk[/link]"
            in text
        )
        # list rows and tree labels: literal, one line each
        for summary in (
            "user: please [bold red]x[/] [@click=app.quit]",
            "$ echo '[bold red]x[/]",
            "exit 1 · out [bold red]x[/]",
            "str_replace /src/[bold red]x[/]",
            "tool [bold red]x[/]",
            "E[bold red]x[/]",
            "PreToolUse hook [bold red]x[/]",
            "think: thought [bold red]x[/]",
            "key [bold red]x[/]",
            "Future[bold",
            "unknown kind · x: [bold red]x[/]",
        ):
            assert text.count(summary) >= 1, summary
        in_tree = _region_text(text, tree.region)
        assert (
            "user: please [bold" in in_tree
            and "$ echo '[bold" in in_tree
            and "Future[bold" in in_tree
        )

        details = []
        detail = screen.query_one(EventDetail)
        for index in range(13):
            detail = await _select(screen, pilot, index)
            details.append(await _detail_pages(app, pilot, detail))
            detail.raw_mode = True
            await settled(pilot)
            raw = assert_screen_is_inert(app)
            if index < 12:  # raw JSON: JSON's own escapes, literal
                assert "\\u001b[31mred" in raw and "[@click=app.quit]click[/]" in raw
            detail.raw_mode = False
        everything = "\n".join(details)
        # markup shown as typed in the detail of each kind (Markdown included)
        for shown in (
            "please [bold red]x[/]",
            "· [bold red]x[/] [@click=app.quit]",  # sender
            "reason [bold red]x[/]",
            "think [bold red]x[/]",
            "summary [bold red]x[/]",
            "$ echo '[bold red]x[/]",
            "out [bold red]x[/]",
            "/w/[bold red]x[/]",
            "/src/[bold red]x[/]",
            "edited [bold red]x[/]",
            "error [bold red]x[/]",
            "detail [bold red]x[/]",
            "hook [bold red]x[/]",
            "stdout [bold red]x[/]",
            "stderr [bold red]x[/]",
            "thought [bold red]x[/]",
            "[link=https://evil.example]lnk[/link]",
            "Future[bold red]x[/]",
        ):
            assert shown in everything, shown
        # escape sequences and overrides as visible stand-ins
        assert "␛[31mred␛[0m␛[2J␛[H␛]52;c;ZXZpbA==␇␛]8;;https://evil.example␛\\osc8" in everything
        assert "\\u202eevil\\u202c nul␀end" in everything
        # Markdown rendered its own syntax (the heading, the code block) and not Textual's
        assert "Heading [bold red]x[/] [@click=app.quit]click[/]" in everything
        assert "# Heading" not in everything and "**bold**" not in everything
        assert app.is_running and app.return_code is None


async def test_markdown_message_actions_cannot_fire(make_server):
    """A Markdown message with [@click=app.quit] and links: render, click the bait, still running."""
    server = make_server(hostile_store())
    app = make_app(server.base_url)
    async with app.run_test(size=TALL) as pilot:
        screen = await _open(app, pilot)
        await event_log(pilot, screen)
        for index in (1, 10):  # the assistant message and the finish action: both Markdown
            detail = await _select(screen, pilot, index)
            assert detail.query("Markdown")
            assert_screen_is_inert(app)
            assert await _click_the_bait(app, pilot, limit=8)
            await settled(pilot)
            assert app.is_running and app.return_code is None
            assert isinstance(app.screen, ConversationScreen)


@pytest.mark.parametrize(
    "first_words", ["[@click=app.quit]side[/] branch", "side [/nope] branch ["]
)
async def test_branch_label_from_hostile_message_is_literal(make_server, first_words):
    events = hostile_events()[:2]
    # a fork at ev-01: a side branch whose first message carries markup, and the main line
    events.append(
        _event(
            3,
            "MessageEvent",
            "ev-01",
            source="agent",
            llm_message={"role": "assistant", "content": [_text(first_words)]},
        )
    )
    events.append(
        _event(
            4,
            "MessageEvent",
            "ev-02",
            source="user",
            llm_message={"role": "user", "content": [_text("main line")]},
        )
    )
    server = make_server(hostile_store(events))
    app = make_app(server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(app, pilot)
        view = screen.query_one(EventTreeView)
        await settled(pilot)
        side = next(
            n
            for n in view.root.children
            if isinstance(n.data, Branch) and "side" in view.first_words(n.data.start).plain
        )
        view.focus()
        view.move_cursor(side)
        await pilot.press("b")
        await wait_for(lambda: screen.window is not screen.query_window, pilot=pilot)
        await settled(pilot)
        y, title = next(
            (y, line)
            for y, line in enumerate(screen_text(app).split("\n"))
            if "Events · branch" in line
        )
        assert first_words[:20] in title
        assert_screen_is_inert(app)
        await pilot.click(offset=(title.index("side") + 1, y))
        await settled(pilot)
        assert app.is_running


# --- pictures -----------------------------------------------------------------------------------
# Pinned like tests/snapshots/test_snapshots.py: fixed size and clock, fixed ids and times, the detail
# showing the cursor's event before the picture is taken.


async def _snap_open(pilot, index: int) -> None:
    app = pilot.app
    screen = await _open(app, pilot)
    await _select(screen, pilot, index)
    await settled(pilot)


def test_snapshot_hostile_terminal_action(snap_compare, make_server):
    server = make_server(hostile_store())

    async def run_before(pilot):
        await _snap_open(pilot, 2)  # echo '<markup, escapes>' with its paired output

    assert snap_compare(make_app(server.base_url), run_before=run_before, terminal_size=SIZE)


def test_snapshot_hostile_markdown_message(snap_compare, make_server):
    server = make_server(hostile_store())

    async def run_before(pilot):
        await _snap_open(pilot, 1)  # the assistant's Markdown message

    assert snap_compare(make_app(server.base_url), run_before=run_before, terminal_size=SIZE)


# --- resource bounds ----------------------------------------------------------------------------

BIG_LINES = 50 * 1024 * 1024 // 64  # 50 MB of 64-byte lines
HUGE_LINE = 1_000_000


def big_events() -> list[dict]:
    big = "".join(f"{i:>10} {'output of a very chatty build step':<52}\n" for i in range(BIG_LINES))
    assert len(big) >= 50 * 1024 * 1024
    huge = ("0123456789abcdef\x1b[31m" * (HUGE_LINE // 21 + 1))[:HUGE_LINE]
    return [
        _event(
            1,
            "MessageEvent",
            None,
            source="user",
            llm_message={"role": "user", "content": [_text("go")]},
        ),
        _action(2, "ev-01", {"kind": "TerminalAction", "command": "make"}, "call_b"),
        _observation(
            3,
            "ev-02",
            {
                "kind": "TerminalObservation",
                "command": "make",
                "exit_code": 0,
                "content": [_text(big)],
            },
            "call_b",
            "ev-02",
        ),
        _action(4, "ev-03", {"kind": "TerminalAction", "command": "cat one.line"}, "call_l"),
        _observation(
            5,
            "ev-04",
            {
                "kind": "TerminalObservation",
                "command": "cat one.line",
                "exit_code": 0,
                "content": [_text(huge)],
            },
            "call_l",
            "ev-04",
        ),
    ]


class RssPeak(threading.Thread):
    """Samples this process's resident size every few ms; ``growth_mb`` is peak − start.

    (``ru_maxrss`` is the peak over the whole process life, so a worker that already ran a big
    test would hide this one's growth.)"""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.page = resource.getpagesize()
        self.start_mb = self.peak_mb = self._rss_mb()
        self._done = threading.Event()

    def _rss_mb(self) -> float:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * self.page / 1e6

    def run(self) -> None:
        while not self._done.wait(0.005):
            self.peak_mb = max(self.peak_mb, self._rss_mb())

    def stop(self) -> float:
        self._done.set()
        self.join()
        return self.peak_mb - self.start_mb


# The server runs in its own process here so the figures are the app's alone (the in-thread
# reference server holds several copies of a 50 MB page while it serves it).
_SERVE = """
import sys
from tui.server import Store, start_server
server = start_server(Store(sys.argv[1]))
print(server.base_url, flush=True)
sys.stdin.read()
server.stop()
"""


@pytest.fixture
def big_server(tmp_path):
    db = str(tmp_path / "big.db")
    store = Store(db)
    store.put_conversation(
        conversation_info(id=CID, sandbox_id="sb", title="big", created_at="2026-11-20T10:00:00Z")
    )
    store.append_events(
        CID, big_events(), normalize=False
    )  # stored as given: no 50 MB re-validation
    store.close()
    gc.collect()
    proc = subprocess.Popen(
        [sys.executable, "-c", _SERVE, db],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    try:
        url = proc.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:"), url
        yield url
    finally:
        proc.stdin.close()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


async def test_50mb_output_and_million_char_line_render_abbreviated_and_bounded(big_server):
    app = make_app(big_server)
    rss = RssPeak()
    rss.start()
    tracemalloc.start()
    try:
        async with app.run_test(size=SIZE) as pilot:
            screen = await _open(app, pilot)
            await event_log(pilot, screen)  # every event a row (and its steps loaded too)
            _, load_peak = tracemalloc.get_traced_memory()
            tracemalloc.reset_peak()
            rows = [screen.window.row(i) for i in range(5)]
            assert all(len(r.summary) <= 400 and "\n" not in r.summary for r in rows)

            await _select(screen, pilot, 2)  # the action: its 50 MB output is shown with it
            text = assert_screen_is_inert(app)
            assert "output of a very chatty build step" in text
            detail = screen.query_one(EventDetail)
            detail.scroll_end(animate=False, immediate=True)
            await settled(pilot)
            text = assert_screen_is_inert(app)
            more = re.search(r"… ([\d,]+) more lines", text)
            assert more and int(more.group(1).replace(",", "")) > 800_000

            await _select(screen, pilot, 4)  # the 1,000,000-character line
            detail.scroll_end(animate=False, immediate=True)
            await settled(pilot)
            text = assert_screen_is_inert(app)
            assert "0123456789abcdef␛[31m" in text
            assert re.search(r"… \(980,000 more characters\)", text)
        _, show_peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        rss_growth = rss.stop()
    peak_mb = max(load_peak, show_peak) / 1e6
    print(
        f"traced peak {load_peak / 1e6:.0f} MB loading, {show_peak / 1e6:.0f} MB showing; "
        f"rss peak +{rss_growth:.0f} MB"
    )
    # how long loading and showing take is measured by `python -m bench.big_output`
    # Python's own peak is the tight bound; the process's grows with the allocator's
    # arenas and freed pages not yet given back, which vary from run to run by ±50 MB
    assert peak_mb < 250 and rss_growth < 400


class _Rows:
    def __init__(self, n: int) -> None:
        self.rows = [
            EventRow(
                f"id-{i}", f"2026-01-01T00:00:{i % 60:02d}", "agent", "ActionEvent", f"$ step {i}"
            )
            for i in range(n)
        ]

    def __len__(self) -> int:
        return len(self.rows)

    def row(self, index: int):
        return self.rows[index] if 0 <= index < len(self.rows) else None


class _ListApp(App):
    def compose(self) -> ComposeResult:
        yield EventList()


async def test_list_strip_cache_is_bounded():
    app = _ListApp()
    async with app.run_test(size=(80, 40)) as pilot:
        event_list = app.query_one(EventList)
        event_list.set_source(_Rows(20_000))
        await settled(pilot)
        for top in range(0, 20_000, 97):  # what scrolling through 20,000 rows renders
            event_list.scroll_to(y=top, animate=False, immediate=True)
            for y in range(event_list.size.height):
                event_list.render_line(y)
        assert len(event_list._cache) <= 2_001
