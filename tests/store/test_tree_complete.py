"""Every event has a place in the tree pane, whatever its parent shape (issue 14, item 8).

The pane shows a conversation as lines of fork-free runs with side branches; side-notes
(state updates, LLM logs…) fold into the run they hang on. Whatever the shape — a stats
update under an LLM-log entry, attachments of attachments, ``full_state`` snapshots with a
null parent after the first event, orphans, cycles — the pane's count is the
conversation's count and every event id can be reached by opening the pane's nodes.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from tests.helpers.app_helpers import settled
from tests.helpers.samples import SAMPLES
from tui.app.store.rows import EventRow, make_row
from tui.app.store.tree_outline import MainBranch, Run, SideBranch, TreeWalk, finish
from tui.app.widgets.conversation.event_tree import Branch, EventNode, EventTreeView, More
from tui.models import EventTree, parse_event

ATTACH = "ConversationStateUpdateEvent"


def _rows(spec: list[tuple[str | None, str | None, str]]) -> list[EventRow]:
    return [
        EventRow(i, f"2026-01-01T00:{n // 60:02d}:{n % 60:02d}", "agent", kind, f"event {i}", p)
        for n, (i, p, kind) in enumerate(spec)
    ]


def reachable(walk: TreeWalk) -> tuple[set[int], int]:
    """Positions the pane's outline reaches (opening every branch), and its stated size."""
    outline = finish(walk.outline())
    seen: set[int] = set()
    lines = [list(items) for items in outline.lines]
    while lines:
        for item in lines.pop():
            if isinstance(item, Run):
                seen.update(item.positions)
            elif isinstance(item, SideBranch):
                lines.append(finish(walk.line(item.start)))
            else:
                assert isinstance(item, MainBranch)
    return seen, outline.size


def assert_complete(rows: list[EventRow]) -> None:
    tree = EventTree((r.id, r.parent_id) for r in rows)
    seen, size = reachable(TreeWalk(tree, rows))
    assert size == len(rows)
    missing = sorted(set(range(len(rows))) - seen)
    assert not missing, f"unreachable: {[(rows[p].id, rows[p].kind) for p in missing][:5]}"


# --- the shapes the issue names -------------------------------------------------------------


def test_a_stats_update_under_the_last_llm_log_entry():
    """Every real 1.58 run that ends that way lost its last event from the pane."""
    assert_complete(
        _rows(
            [
                ("sys", None, "SystemPromptEvent"),
                ("msg", "sys", "MessageEvent"),
                ("log1", "msg", "LLMCompletionLogEvent"),
                ("act", "log1", "ActionEvent"),
                ("obs", "act", "ObservationEvent"),
                ("log2", "obs", "LLMCompletionLogEvent"),
                ("stats", "log2", ATTACH),
            ]
        )
    )


def test_attachments_of_attachments_and_null_parents_after_the_first_event():
    """The real app server's stored history: a full_state at index 0 (parent null), deltas
    and later full_states with a null parent (= the event before them in the log)."""
    assert_complete(
        _rows(
            [
                ("fs0", None, ATTACH),
                ("sys", None, "SystemPromptEvent"),
                ("msg", "sys", "MessageEvent"),
                ("st1", "msg", ATTACH),
                ("delta", None, "StreamingDeltaEvent"),  # under st1
                ("st2", "obs", ATTACH),  # stamped before its parent arrives
                ("act", "msg", "ActionEvent"),
                ("obs", "act", "ObservationEvent"),
                ("st3", "obs", ATTACH),
                ("fs1", None, ATTACH),  # under st3
                ("hook", "fs1", "HookExecutionEvent"),  # a third level
            ]
        )
    )


def test_generated_shapes():
    chain = [(f"c{i}", f"c{i - 1}" if i else None, "ActionEvent") for i in range(50)]
    fan = [("root", None, "MessageEvent")] + [(f"f{i}", "root", "ActionEvent") for i in range(30)]
    deep_notes = [("m", None, "MessageEvent")] + [
        (f"n{i}", f"n{i - 1}" if i else "m", ATTACH) for i in range(20)
    ]  # a chain of side-notes longer than an attachment: a branch of its own
    orphans = [("a", "nowhere", "MessageEvent"), ("b", "a", "ActionEvent"), ("c", "gone", ATTACH)]
    cycle = [("x", "z", "MessageEvent"), ("y", "x", "ActionEvent"), ("z", "y", "ActionEvent")]
    nulls = [(None, None, "MessageEvent"), (None, None, ATTACH), ("k", None, "ActionEvent")]
    dupes = [("d", None, "MessageEvent"), ("d", "d", "ActionEvent"), ("e", "d", ATTACH)]
    roots = [("r1", "__root__", "MessageEvent"), ("r2", "__root__", "MessageEvent")]
    for shape in (chain, fan, deep_notes, orphans, cycle, nulls, dupes, roots):
        assert_complete(_rows(shape))
    assert_complete(_rows(chain + fan + deep_notes + orphans + cycle + nulls + dupes + roots))


@pytest.mark.parametrize("seed", range(40))
def test_random_shapes(seed: int):
    """Any parent shape at all: real ids, unknown ids, nulls, roots, forward references."""
    rnd = random.Random(seed)
    kinds = ["MessageEvent", "ActionEvent", "ObservationEvent", ATTACH, "LLMCompletionLogEvent"]
    kinds += ["HookExecutionEvent", "StreamingDeltaEvent", "TokenEvent"]
    n = rnd.randint(1, 300)
    ids = [f"e{i}" for i in range(n)]
    spec = []
    for i in range(n):
        roll = rnd.random()
        if roll < 0.1:
            parent = None
        elif roll < 0.15:
            parent = "__root__"
        elif roll < 0.2:
            parent = f"unknown{rnd.randint(0, 3)}"
        elif roll < 0.25:
            parent = rnd.choice(ids)  # maybe later in the log, maybe itself
        else:
            parent = ids[rnd.randint(max(0, i - 5), i - 1)] if i else None
        spec.append((ids[i], parent, rnd.choice(kinds)))
    assert_complete(_rows(spec))


# --- every sample conversation --------------------------------------------------------------


def _sample_conversations() -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    capture = SAMPLES / "agent-server-capture"
    for folder in sorted((capture / "persisted").iterdir()):
        files = sorted((folder / "events").glob("event-*.json"))
        out[f"persisted/{folder.name}"] = [json.loads(f.read_text()) for f in files]
    for path in sorted((capture / "ws").glob("*.frames.jsonl")):
        lines = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        out[f"ws/{path.name}"] = [line["frame"] for line in lines if "frame" in line]
    for folder in sorted((SAMPLES / "cli-trajectories").iterdir()):
        files = sorted(folder.glob("event-*.json"))
        out[f"cli/{folder.name}"] = [json.loads(f.read_text()) for f in files]
    for path in sorted((SAMPLES / "sdk-fixtures").glob("*.jsonl")):
        lines = path.read_text().splitlines()
        out[f"sdk/{path.name}"] = [json.loads(line) for line in lines if line.strip()]
    for path in sorted((capture / "rest").glob("*_events_search.json")):
        data = json.loads(path.read_text())
        bodies = [r.get("body") for r in data] if isinstance(data, list) else [data.get("body")]
        items = [i for b in bodies if isinstance(b, dict) for i in b.get("items") or ()]
        if items:
            out[f"rest/{path.name}"] = items
    return out


SAMPLE_CONVERSATIONS = _sample_conversations()


def test_the_samples_are_found():
    assert len(SAMPLE_CONVERSATIONS) >= 15
    assert sum(len(v) for v in SAMPLE_CONVERSATIONS.values()) > 200


@pytest.mark.parametrize("name", sorted(SAMPLE_CONVERSATIONS))
def test_every_sample_conversation_is_whole_in_the_tree(name: str):
    rows = [make_row(parse_event(e)) for e in SAMPLE_CONVERSATIONS[name]]
    assert_complete(rows)


# --- the pane itself ------------------------------------------------------------------------


def pane_ids(view: EventTreeView) -> set[str | None]:
    """Open every node of the pane (runs, branches, "… more") and collect the event ids."""
    rows = view._walk.rows
    found: set[str | None] = set()
    stack = list(view.root.children)
    while stack:
        node = stack.pop()
        data = node.data
        if isinstance(data, EventNode):
            found.add(rows[data.position].id)
        elif isinstance(data, More):
            parent = node.parent
            node.remove()
            view._fill_run(parent, data.run, data.offset)
            stack.extend(parent.children[-(len(data.run.positions) - data.offset) :])
            continue
        if isinstance(data, Run | Branch) and not node.children:
            node.expand()
            view.on_tree_node_expanded(EventTreeView.NodeExpanded(node))
        stack.extend(node.children)
    return found


async def test_the_pane_reaches_every_event_of_a_real_app_server_history():
    from textual.app import App

    path = Path(__file__).parents[1] / "data" / "real_app_history.json"
    events = json.loads(path.read_text())
    rows = [make_row(parse_event(e)) for e in events]

    class One(App):
        def compose(self):
            yield EventTreeView(id="tree")

    app = One()
    async with app.run_test() as pilot:
        view = app.query_one(EventTreeView)
        view.load(EventTree((r.id, r.parent_id) for r in rows), rows)
        await settled(pilot)
        assert view.shown_size == len(rows)
        assert pane_ids(view) == {r.id for r in rows}
