"""big_output: a 50 MB terminal output and a 1,000,000-character line, opened and shown.

What ``tests/app/test_hostile_content.py`` checks for correctness (abbreviated, cut said, bounded
memory), timed here: from opening the conversation to its tree pane showing every event
(load), and from moving the cursor onto each huge event to the first paint whose detail pane
shows it. Targets: load ≤ 10 s, each detail ≤ 5 s. Also the app's peak RSS growth (the
server runs in its own process, so its copies of the 50 MB page are not counted).

    python -m bench.big_output [--mb 50] [--line 1000000]
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path

from bench.common import (
    SIZE,
    PaintProbe,
    make_app,
    peak_rss_mb,
    report,
    rss_mb,
    server_process,
    until,
)

CID = "0b16b16b0b16b16b0b16b16b0b16b16b"
T0 = "2026-11-20T10:00:"
LOAD_TARGET_S = 10.0
DETAIL_TARGET_S = 5.0


def _event(n: int, kind: str, **fields) -> dict:
    parent = f"ev-{n - 1:02d}" if n > 1 else "__root__"
    timestamp = f"{T0}{n:02d}.000000"
    return {
        "id": f"ev-{n:02d}",
        "timestamp": timestamp,
        "parent_id": parent,
        **fields,
        "kind": kind,
    }


def _command(n: int, command: str, output: str) -> list[dict]:
    call = f"call-{n}"
    tool_call = {"id": call, "name": "terminal", "arguments": "{}", "origin": "completion"}
    action = _event(
        n,
        "ActionEvent",
        source="agent",
        thought=[],
        tool_name="terminal",
        tool_call_id=call,
        tool_call=tool_call,
        llm_response_id="r",
        action={"kind": "TerminalAction", "command": command},
    )
    observation = _event(
        n + 1,
        "ObservationEvent",
        source="environment",
        tool_name="terminal",
        tool_call_id=call,
        action_id=action["id"],
        observation={
            "kind": "TerminalObservation",
            "command": command,
            "exit_code": 0,
            "content": [{"type": "text", "text": output}],
        },
    )
    return [action, observation]


def big_store(path: Path, mb: float, line: int) -> None:
    """A conversation: a message, a command with ``mb`` MB of output, one with a
    ``line``-character line (coloured escapes inside)."""
    from tui.server import Store
    from tui.server.views import conversation_info

    lines = int(mb * 1024 * 1024 // 64)
    big = "".join(f"{i:>10} {'output of a very chatty build step':<52}\n" for i in range(lines))
    huge = ("0123456789abcdef\x1b[31m" * (line // 21 + 1))[:line]
    message = {"role": "user", "content": [{"type": "text", "text": "go"}]}
    events = [
        _event(1, "MessageEvent", source="user", llm_message=message),
        *_command(2, "make", big),
        *_command(4, "cat one.line", huge),
    ]
    store = Store(str(path))
    try:
        store.put_conversation(
            conversation_info(
                id=CID, sandbox_id="sb", title="big", created_at="2026-11-20T10:00:00Z"
            )
        )
        store.append_events(CID, events, normalize=False)  # stored as given: no re-validation
    finally:
        store.close()


async def measure(url: str) -> dict[str, float]:
    from tui.app.screens.conversation import ConversationScreen
    from tui.app.screens.conversations.conversations import ConversationsScreen
    from tui.app.widgets.conversation.event_detail import EventDetail
    from tui.app.widgets.conversation.event_list import EventList
    from tui.app.widgets.conversation.event_tree import EventTreeView

    rss_before = rss_mb()
    app = make_app(url)
    probe = PaintProbe(app)
    figures: dict[str, float] = {}
    async with app.run_test(size=SIZE):
        await until(lambda: isinstance(app.screen, ConversationsScreen))
        began = time.perf_counter()
        app.open_conversation(CID)
        await until(lambda: isinstance(app.screen, ConversationScreen))
        screen = app.screen
        probe.watch(screen)

        def tree_shown() -> bool:
            views = screen.query(EventTreeView)
            events = screen.events.base
            return events.complete and bool(views) and views.first().shown_size == len(events.head)

        probe.expect(tree_shown)
        await until(lambda: probe.shown_at is not None)
        figures["load_s"] = probe.shown_at - began
        detail = screen.query_one(EventDetail)
        window = screen.window  # the steps view: each command on one row with its output
        steps = [i for i in range(len(window)) if window.row(i).kind == "ActionEvent"]
        for name, index in (("output", steps[0]), ("long_line", steps[1])):
            want = window.row(index).id

            def shown(want: str = want) -> bool:
                return detail._event is not None and detail._event.id == want

            probe.expect(shown)
            began = time.perf_counter()
            screen.query_one(EventList).cursor = index
            await until(lambda: probe.shown_at is not None)
            figures[f"{name}_s"] = probe.shown_at - began
    figures["rss_growth_mb"] = max(0.0, peak_rss_mb() - rss_before)
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=50.0, help="size of the big output")
    parser.add_argument("--line", type=int, default=1_000_000, help="length of the long line")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ohtui-bench-big-") as tmp:
        db = Path(tmp) / "big.sqlite"
        began = time.perf_counter()
        big_store(db, args.mb, args.line)
        print(
            f"  stored {args.mb:g} MB + a {args.line:,}-character line in "
            f"{time.perf_counter() - began:.1f} s",
            flush=True,
        )
        with server_process("--db", str(db)) as url:
            figures = asyncio.run(measure(url))
    print(
        f"load (open → tree of every event painted) {figures['load_s']:.2f} s "
        f"(target ≤ {LOAD_TARGET_S:g} s) · {args.mb:g} MB output shown {figures['output_s']:.2f} s · "
        f"{args.line:,}-character line shown {figures['long_line_s']:.2f} s "
        f"(target ≤ {DETAIL_TARGET_S:g} s each) · app peak RSS +{figures['rss_growth_mb']:.0f} MB",
        flush=True,
    )
    report("big_output", {"mb": args.mb, "line": args.line, **figures})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
