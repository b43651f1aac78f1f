"""Fuzzed events through the whole display path: parse → row → detail (plain and raw) → tree.

Two generators feed one checker:

* a mutation fuzzer over every real sample event (``tests/helpers/samples.py``): dropped and
  retyped fields, unknown fields and kinds, 1 MB strings, 10,000-level nesting, lone
  surrogates and invalid UTF-8, NaN/Infinity, bad timestamps, hostile markup and escape
  sequences, duplicate ids, parent cycles and dangling parents;
* hypothesis strategies for arbitrary JSON-ish events.

Each case goes through :func:`parse_event` (or :func:`parse_event_json` for text),
:func:`make_row`, an :class:`EventTree` over its batch, and is shown by real
:class:`EventDetail` widgets (plain and raw mode), :class:`EventList` and
:class:`EventTreeView` mounted in a small Textual app. The invariants: nothing raises, every
input is visible (typed, or a ``RawEvent`` with an error), rows are one line without control
characters, and no control character reaches the rendered screen.

The suite tries every mutation on every kind of sample event once (a fixed seed, ~240 cases);
``scripts/fuzz.py --cases 10000`` runs the open-ended random campaign at full size.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from textual.app import App, ComposeResult
from textual.containers import Grid
from textual.widgets import Static

from tests.helpers.samples import iter_events
from tui.app.store.rows import KIND_LABELS, EventRow, make_row
from tui.app.widgets.conversation.event_detail import EventDetail
from tui.app.widgets.conversation.event_list import SOURCE_LABELS, EventList
from tui.app.widgets.conversation.event_tree import EventTreeView
from tui.models import EVENT_KINDS, EventBase, EventTree, RawEvent, parse_event, parse_event_json

# --- hostile material ------------------------------------------------------------------------

HOSTILE = [
    "[bold red]x[/]",
    "[@click=app.quit]click[/]",
    "[link=https://evil]x[/link]",
    "[/]",
    "[",
    "\x1b[31mred\x1b[0m",
    "\x1b[2J\x1b[H",
    "\x1b]52;c;ZXZpbA==\x07",
    "\x1b]8;;https://evil\x1b\\link\x1b]8;;\x1b\\",
    "\x1bc",
    "\u202eevil\u202c",
    "a\x00b",
    "\r\x08\x7f\x9b31m",
    "tab\there",
    "\u2028\u2029\x85",
    "\ud800lone\udfff",
    "\udcff\udc80",  # bytes that were not UTF-8, decoded with surrogateescape
    "e\u0301\u200d👩‍💻漢字",
]

#: characters that must never reach a rendered line (tab and newline included: a line is one row)
UNSAFE_ON_SCREEN = re.compile(
    "[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff]"
)
#: inside multi-line detail text only newlines and tabs (Textual expands them) may remain
UNSAFE_IN_TEXT = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff]"
)

MB = 1_000_000
DEEP = 10_000


def _nested(depth: int, rng: random.Random) -> Any:
    """``depth`` levels of lists/dicts (built iteratively)."""
    leaf: Any = rng.choice(HOSTILE)
    for _ in range(depth):
        leaf = [leaf] if rng.random() < 0.5 else {"k": leaf}
    return leaf


def _huge(rng: random.Random) -> str:
    choice = rng.randrange(4)
    if choice == 0:
        return "x" * MB  # one line
    if choice == 1:
        return "line of output\n" * (MB // 15)
    if choice == 2:
        return ("\x1b[31m" + "[bold]" + "\u202e") * (MB // 12)
    return "".join(rng.choice(HOSTILE) for _ in range(MB // 20))[:MB]


# --- locations inside an event ---------------------------------------------------------------


def _slots(data: Any) -> list[tuple[Any, Any]]:
    """Every (container, key) inside ``data``, iteratively."""
    out: list[tuple[Any, Any]] = []
    stack = [data]
    while stack:
        node = stack.pop()
        items = (
            node.items()
            if isinstance(node, dict)
            else enumerate(node)
            if isinstance(node, list)
            else ()
        )
        for key, value in items:
            out.append((node, key))
            if isinstance(value, (dict, list)):
                stack.append(value)
    return out


def _dicts(data: Any) -> list[dict]:
    return [data] + [c[k] for c, k in _slots(data) if isinstance(c[k], dict)]


def _pick(
    rng: random.Random, data: Any, want: Callable[[Any], bool] = lambda v: True
) -> tuple[Any, Any] | None:
    slots = [(c, k) for c, k in _slots(data) if want(c[k])]
    # top-level fields are the interesting ones half the time
    top = [(c, k) for c, k in slots if c is data]
    pool = top if top and rng.random() < 0.5 else slots
    return rng.choice(pool) if pool else None


# --- mutations -------------------------------------------------------------------------------
# Each takes (rng, event, batch) and returns the case: usually the mutated dict, sometimes
# another JSON value, or ``JsonText`` for the text entry point. ``batch`` holds the cases made
# so far in the same batch (for ids and parents).


@dataclass(frozen=True)
class JsonText:
    """A case fed to :func:`parse_event_json` instead of :func:`parse_event`."""

    text: str | bytes


def m_none(rng, ev, batch):
    return ev


def m_drop_field(rng, ev, batch):
    for _ in range(rng.randint(1, 3)):
        slot = _pick(rng, ev)
        if slot is not None:
            container, key = slot
            del container[key]
    return ev


def _other_type(rng: random.Random, value: Any) -> Any:
    options = [None, True, 0, -1, 2**70, 1.5, "", "text", [], {}, [1, "a"], {"x": None}]
    return rng.choice([o for o in options if type(o) is not type(value)])


def m_change_type(rng, ev, batch):
    for _ in range(rng.randint(1, 3)):
        slot = _pick(rng, ev)
        if slot is not None:
            container, key = slot
            container[key] = _other_type(rng, container[key])
    return ev


def m_unknown_field(rng, ev, batch):
    target = rng.choice(_dicts(ev))
    target[rng.choice(["x_future", "extra", rng.choice(HOSTILE), "kind2"])] = rng.choice(
        [1, "v", None, {"a": [1]}, rng.choice(HOSTILE)]
    )
    return ev


def m_unknown_kind(rng, ev, batch):
    choice = rng.randrange(4)
    if choice == 0:
        ev["kind"] = "FutureEvent"
    elif choice == 1:
        ev["kind"] = rng.choice(HOSTILE)
    elif choice == 2:
        ev["kind"] = rng.choice(EVENT_KINDS)  # a real kind with the wrong body
    else:
        inner = [d for d in _dicts(ev) if "kind" in d and d is not ev]
        (rng.choice(inner) if inner else ev)["kind"] = "FutureAction"
    return ev


def m_huge_string(rng, ev, batch):
    slot = _pick(rng, ev, lambda v: isinstance(v, str))
    if slot is None:
        ev["kind" if rng.random() < 0.2 else "x_huge"] = _huge(rng)
    else:
        container, key = slot
        container[key] = _huge(rng)
    return ev


def m_deep_nesting(rng, ev, batch):
    deep = _nested(DEEP, rng)
    kind = ev.get("kind")
    if kind == "ConversationStateUpdateEvent" or rng.random() < 0.3:
        ev["value"] = deep
    elif kind == "ACPToolCallEvent":
        ev[rng.choice(["raw_input", "raw_output"])] = deep
    else:
        slot = _pick(rng, ev)
        if slot is None:
            ev["value"] = deep
        else:
            container, key = slot
            container[key] = deep
    return ev


def m_bad_unicode(rng, ev, batch):
    if rng.random() < 0.3:  # bytes that are not UTF-8 at all, through the text entry point
        raw = json.dumps(ev, ensure_ascii=False).encode("utf-8", "surrogatepass")
        cut = rng.randrange(len(raw))
        return JsonText(
            raw[:cut] + rng.choice([b"\xff", b"\xc3\x28", b"\xed\xa0\x80", b"\x80\x80"]) + raw[cut:]
        )
    for _ in range(rng.randint(1, 3)):
        slot = _pick(rng, ev, lambda v: isinstance(v, str))
        if slot is not None:
            container, key = slot
            value = container[key]
            cut = rng.randrange(len(value) + 1)
            container[key] = (
                value[:cut]
                + rng.choice(["\ud800", "\udfff", "\udc80\udcff", "\ud83d"])
                + value[cut:]
            )
    return ev


def m_nan_inf(rng, ev, batch):
    numbers = [
        (c, k)
        for c, k in _slots(ev)
        if isinstance(c[k], (int, float)) and not isinstance(c[k], bool)
    ]
    targets = rng.sample(numbers, min(len(numbers), 3)) if numbers else []
    if not targets:
        ev[rng.choice(["exit_code", "value", "summary_offset"])] = float("nan")
    for container, key in targets:
        container[key] = rng.choice(
            [float("nan"), float("inf"), float("-inf"), 10**400, -(2**63) - 1]
        )
    if rng.random() < 0.3:  # and through JSON text, where NaN/Infinity are literals
        return JsonText(json.dumps(ev, allow_nan=True))
    return ev


def m_bad_timestamp(rng, ev, batch):
    ev["timestamp"] = rng.choice(
        [
            None,
            0,
            1.5e12,
            "",
            "not a time",
            "9999-99-99T99:99:99",
            "2024-02-30T25:61:61",
            "-0001-01-01T00:00:00",
            "2024-01-01T00:00:00+99:00",
            "x" * 5000,
            "2024-01-01\nT00:00:00",
            "\x1b[2J2024",
            ["2024"],
            {"t": 1},
            True,
        ]
    )
    return ev


def m_hostile_text(rng, ev, batch):
    for _ in range(rng.randint(1, 4)):
        slot = _pick(rng, ev, lambda v: isinstance(v, str))
        if slot is not None:
            container, key = slot
            container[key] = container[key] + rng.choice(HOSTILE) + rng.choice(HOSTILE)
    return ev


def m_not_an_event(rng, ev, batch):
    return rng.choice(
        [
            None,
            1,
            "event",
            [],
            [ev],
            {},
            {"kind": None},
            True,
            1.5,
            JsonText("{"),
            JsonText(""),
            JsonText("[" * DEEP + "]" * DEEP),
            JsonText('{"a": ' * DEEP),
        ]
    )


def _ids(batch: list) -> list[str]:
    return [c["id"] for c in batch if isinstance(c, dict) and isinstance(c.get("id"), str)]


def m_duplicate_id(rng, ev, batch):
    ids = _ids(batch)
    ev["id"] = rng.choice(ids) if ids else "dup"
    return ev


def m_parent_cycle(rng, ev, batch):
    ids = _ids(batch)
    ev["parent_id"] = ev.get("id") if not ids or rng.random() < 0.3 else rng.choice(ids)
    if ids:  # and make an earlier event point at this one: a cycle through the batch
        earlier = rng.choice([c for c in batch if isinstance(c, dict) and "id" in c])
        earlier["parent_id"] = ev.get("id")
    return ev


def m_dangling_parent(rng, ev, batch):
    ev["parent_id"] = rng.choice(["missing-parent", "__root__", "", rng.choice(HOSTILE)])
    return ev


MUTATIONS: dict[str, Callable[[random.Random, Any, list], Any]] = {
    "none": m_none,
    "drop_field": m_drop_field,
    "change_type": m_change_type,
    "unknown_field": m_unknown_field,
    "unknown_kind": m_unknown_kind,
    "huge_string": m_huge_string,
    "deep_nesting": m_deep_nesting,
    "bad_unicode": m_bad_unicode,
    "nan_inf": m_nan_inf,
    "bad_timestamp": m_bad_timestamp,
    "hostile_text": m_hostile_text,
    "not_an_event": m_not_an_event,
    "duplicate_id": m_duplicate_id,
    "parent_cycle": m_parent_cycle,
    "dangling_parent": m_dangling_parent,
}
#: the expensive ones are rarer so a campaign spends its time on variety
WEIGHTS = {"huge_string": 0.25, "deep_nesting": 0.25, "none": 0.3}


class SampleSource:
    """Real sample events grouped by kind (each kind equally likely), as JSON text to copy."""

    def __init__(self) -> None:
        by_kind: dict[str, list[str]] = {}
        for _, event in iter_events():
            by_kind.setdefault(str(event.get("kind")), []).append(json.dumps(event))
        self.by_kind = by_kind
        self.kinds = sorted(by_kind)

    def draw(self, rng: random.Random, kind: str | None = None) -> dict:
        return json.loads(rng.choice(self.by_kind[kind or rng.choice(self.kinds)]))


@dataclass
class Case:
    mutation: str
    payload: Any
    kind: str = ""  # the sample's kind before the mutation (grid cases)


def make_cases(
    count: int, seed: int, source: SampleSource | None = None, batch_size: int = 8
) -> Iterable[list[Case]]:
    """Batches of mutated sample events (a batch is what one detail/tree round shows)."""
    rng = random.Random(seed)
    source = source or SampleSource()
    names = list(MUTATIONS)
    weights = [WEIGHTS.get(n, 1.0) for n in names]
    made = 0
    while made < count:
        batch: list[Case] = []
        payloads: list[Any] = []
        for _ in range(min(batch_size, count - made)):
            name = rng.choices(names, weights)[0]
            payload = MUTATIONS[name](rng, source.draw(rng), payloads)
            batch.append(Case(name, payload))
            payloads.append(payload)
        made += len(batch)
        yield batch


def make_grid_cases(
    seed: int, source: SampleSource | None = None, batch_size: int = 8
) -> list[list[Case]]:
    """Every mutation applied to a sample of every event kind, once each, in shuffled batches.

    The suite's corpus: each (mutation, kind) pair is tried for certain, where random draws
    need thousands of cases to be likely to reach them all (the expensive mutations are rare
    there). Batches mix mutations, so the batch-level ones (duplicate ids, parent cycles)
    still meet other events. ``make_cases`` stays the open-ended campaign of scripts/fuzz.py.
    """
    rng = random.Random(seed)
    source = source or SampleSource()
    pairs = [(name, kind) for name in MUTATIONS for kind in source.kinds]
    rng.shuffle(pairs)
    batches: list[list[Case]] = []
    for start in range(0, len(pairs), batch_size):
        batch: list[Case] = []
        payloads: list[Any] = []
        for name, kind in pairs[start : start + batch_size]:
            payload = MUTATIONS[name](rng, source.draw(rng, kind), payloads)
            batch.append(Case(name, payload, kind))
            payloads.append(payload)
        batches.append(batch)
    return batches


# --- checking ---------------------------------------------------------------------------------


@dataclass
class Stats:
    tried: int = 0
    by_mutation: Counter = field(default_factory=Counter)
    typed: int = 0
    raw: int = 0
    failures: list[str] = field(default_factory=list)
    slowest: list[tuple[float, str]] = field(default_factory=list)

    def fail(self, case: Case | None, what: str) -> None:
        label = case.mutation if case else "batch"
        self.failures.append(f"[{label}] {what}")


def _describe(payload: Any) -> str:
    try:
        text = repr(payload)
    except RecursionError:
        text = f"<{type(payload).__name__} too deep to repr>"
    return text[:300]


def check_line(text: str, where: str) -> str | None:
    bad = UNSAFE_ON_SCREEN.search(text)
    if bad:
        return f"{where}: unsafe character {bad.group()!r} in {text[:120]!r}"
    return None


def parse_case(case: Case, stats: Stats) -> tuple[Any, EventRow] | None:
    """parse → row, checking the pure invariants; returns None if the case failed."""
    try:
        payload = case.payload
        event = (
            parse_event_json(payload.text)
            if isinstance(payload, JsonText)
            else parse_event(payload)
        )
    except BaseException as exc:  # noqa: BLE001 - counting is the point
        stats.fail(
            case, f"parse raised {type(exc).__name__}: {exc!s:.200} for {_describe(case.payload)}"
        )
        return None
    if isinstance(event, RawEvent):
        stats.raw += 1
        if not (isinstance(event.error, str) and event.error.strip()):
            stats.fail(case, "RawEvent without an error")
    elif isinstance(event, EventBase):
        stats.typed += 1
    else:
        stats.fail(case, f"parse gave {type(event).__name__}")
        return None
    try:
        row = make_row(event)
    except BaseException as exc:  # noqa: BLE001
        stats.fail(
            case,
            f"make_row raised {type(exc).__name__}: {exc!s:.200} for {_describe(case.payload)}",
        )
        return None
    if isinstance(event, RawEvent) and row.flag != "raw" and not event.unknown_kind:
        # (an unknown kind is no error: it is shown as its fields, flagged only if it says
        # it is one, as the folder server's UnreadableEventFile does)
        stats.fail(case, "a raw event's row is not flagged raw")
    for where, text in (
        ("summary", row.summary),
        ("time", row.time),
        ("kind", KIND_LABELS.get(row.kind, row.kind)),
        ("source", SOURCE_LABELS.get(row.source, row.source)),
    ):
        problem = check_line(text, where)
        if problem:
            stats.fail(case, problem)
    if len(row.summary) > 2_000:
        stats.fail(case, f"summary of {len(row.summary):,} characters")
    return event, row


def check_tree(rows: list[EventRow], stats: Stats) -> EventTree | None:
    try:
        half = len(rows) // 2  # two extends: forward references across batches too
        tree = EventTree((r.id, r.parent_id) for r in rows[:half])
        tree.extend((r.id, r.parent_id) for r in rows[half:])
    except BaseException as exc:  # noqa: BLE001
        stats.fail(None, f"EventTree raised {type(exc).__name__}: {exc}")
        return None
    n = len(rows)
    if len(tree) != n:
        stats.fail(None, f"tree holds {len(tree)} of {n} events")
    seen: list[int] = []
    stack = list(tree.roots)
    while stack and len(seen) <= n:
        pos = stack.pop()
        seen.append(pos)
        stack.extend(tree.child_list(pos))
    if sorted(seen) != list(range(n)):
        stats.fail(
            None, f"tree walk reached {sorted(Counter(seen).items())[:10]}… not each of {n} once"
        )
    for pos in range(n):
        if len(tree.path_to(pos)) > n:
            stats.fail(None, "a parent chain longer than the batch (cycle)")
            break
    return tree


class _Rows:
    def __init__(self, rows: list[EventRow]) -> None:
        self.rows = rows

    def __len__(self) -> int:
        return len(self.rows)

    def row(self, index: int) -> EventRow | None:
        return self.rows[index] if 0 <= index < len(self.rows) else None


PAIRS = 4  # detail panes per mode: a batch is shown PAIRS events at a time


class FuzzApp(App):
    """List, tree and PAIRS × (plain, raw) details; unhandled errors are recorded, not fatal."""

    CSS = f"""
    Grid {{ grid-size: {PAIRS} 3; grid-rows: 6 1fr 1fr; }}
    EventList {{ column-span: {PAIRS // 2}; }}
    EventTreeView {{ column-span: {PAIRS - PAIRS // 2}; }}
    EventDetail {{ height: 1fr; }}
    """

    def __init__(self) -> None:
        super().__init__()
        self.errors: list[BaseException] = []

    def compose(self) -> ComposeResult:
        with Grid():
            yield EventList(id="list")
            yield EventTreeView(id="tree")
            for i in range(PAIRS):
                yield EventDetail(id=f"plain{i}")
            for i in range(PAIRS):
                yield EventDetail(id=f"raw{i}")

    def on_mount(self) -> None:
        for i in range(PAIRS):
            self.query_one(f"#raw{i}", EventDetail).raw_mode = True

    def _handle_exception(self, error: Exception) -> None:  # keep going; the checker counts
        self.errors.append(error)


def _pair_for(event: Any, others: list[Any], rng: random.Random) -> Any:
    """What the screen would pass as ``paired``: an action's result or a result's action."""
    kind = getattr(event, "kind", None)
    if kind == "ActionEvent":
        wanted = ("ObservationEvent", "AgentErrorEvent", "UserRejectObservation")
    elif kind in ("ObservationEvent", "AgentErrorEvent", "UserRejectObservation"):
        wanted = ("ActionEvent",)
    else:
        return None
    matches = [o for o in others if getattr(o, "kind", None) in wanted and o is not event]
    if matches and rng.random() < 0.8:
        return rng.choice(matches)
    return rng.choice(others) if others and rng.random() < 0.5 else None  # odd pairs too


def _static_texts(detail: EventDetail) -> Iterable[str]:
    for static in detail.query(Static):
        content = static.content
        plain = getattr(content, "plain", content)
        if isinstance(plain, str):
            yield plain


async def _show_batch(
    app: FuzzApp, pilot, items: list[tuple[Case, Any, EventRow]], stats: Stats, rng: random.Random
) -> None:
    rows = [row for _, _, row in items]
    events = [event for _, event, _ in items]
    tree = check_tree(rows, stats)
    event_list = app.query_one(EventList)
    tree_view = app.query_one(EventTreeView)
    try:
        event_list.set_source(_Rows(rows))
        for index, row in enumerate(rows):
            for is_cursor in (False, True):
                strip = event_list._render_row(row, 60, is_cursor)
                problem = check_line(strip.text, "list row") or (
                    None
                    if strip.cell_length == 60
                    else f"list row is {strip.cell_length} cells, not 60"
                )
                if problem:
                    stats.fail(items[index][0], problem)
        if tree is not None:
            tree_view.load(tree, rows)
            for node in _tree_nodes(tree_view):
                problem = check_line(node.label.plain, "tree label")
                if problem:
                    stats.fail(None, problem)
    except BaseException as exc:  # noqa: BLE001
        stats.fail(None, f"list/tree raised {type(exc).__name__}: {exc!s:.300}")
    for start in range(0, len(items), PAIRS):
        chunk = items[start : start + PAIRS]
        began = time.perf_counter()
        with app.batch_update():  # one layout and paint for the chunk, not one per message round
            for slot, (case, event, _) in enumerate(chunk):
                paired = _pair_for(event, events, rng)
                for mode in ("plain", "raw"):
                    try:
                        app.query_one(f"#{mode}{slot}", EventDetail).show(event, paired)
                    except BaseException as exc:  # noqa: BLE001
                        stats.fail(
                            case,
                            f"EventDetail.show ({mode}) raised {type(exc).__name__}: {exc!s:.300} for {_describe(case.payload)}",
                        )
            await pilot._wait_for_screen()
            await pilot._wait_for_screen()
        await _settle(app, pilot)
        errors_before = len(app.errors)
        lines = [strip.text for strip in app.screen._compositor.render_strips()]
        elapsed = time.perf_counter() - began
        stats.slowest = sorted(
            [*stats.slowest, (elapsed, "+".join(c.mutation for c, _, _ in chunk))], reverse=True
        )[:5]
        for line in lines:
            problem = check_line(line, "screen")
            if problem:
                stats.fail(None, f"{problem} (batch of {[c.mutation for c, _, _ in chunk]})")
                break
        for slot, (case, _, _) in enumerate(chunk):
            for mode in ("plain", "raw"):
                for text in _static_texts(app.query_one(f"#{mode}{slot}", EventDetail)):
                    bad = UNSAFE_IN_TEXT.search(text)
                    if bad:
                        stats.fail(
                            case, f"detail ({mode}) text holds {bad.group()!r}: {text[:100]!r}"
                        )
                        break
        if len(app.errors) > errors_before or app.errors:
            for exc in app.errors:
                stats.fail(
                    chunk[0][0],
                    f"render raised {type(exc).__name__}: {exc!s:.300} (batch of {[c.mutation for c, _, _ in chunk]})",
                )
            app.errors.clear()
            raise _Restart
    if not app.is_running:
        stats.fail(None, "the app stopped")
        raise _Restart


async def _settle(app: App, pilot) -> None:
    """Let every widget process what was posted (mount, layout, Markdown blocks) and repaint.

    Pilot.pause() also waits for the CPU to go idle, which dominates a fuzz run's time.
    """
    for _ in range(2):
        await pilot._wait_for_screen()
        app.screen._on_timer_update()


def _tree_nodes(view: EventTreeView):
    stack = [view.root]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(node.children)


class _Restart(Exception):
    """A widget died: continue on a fresh app."""


async def run_campaign(
    batches: Iterable[list[Case]], stats: Stats, seed: int = 0, size=(100, 20)
) -> Stats:
    """Check every case of every batch; failures are collected in ``stats``, never raised."""
    rng = random.Random(seed)
    pending = iter(batches)
    while True:
        app = FuzzApp()
        try:
            async with app.run_test(size=size) as pilot:
                for batch in pending:
                    items = []
                    for case in batch:
                        stats.tried += 1
                        stats.by_mutation[case.mutation] += 1
                        parsed = parse_case(case, stats)
                        if parsed is not None:
                            items.append((case, *parsed))
                    if items:
                        await _show_batch(app, pilot, items, stats, rng)
                return stats
        except _Restart:
            continue


# --- the tests ---------------------------------------------------------------------------------


def _assert_clean(stats: Stats) -> None:
    assert not stats.failures, f"{len(stats.failures)} failure(s):\n" + "\n".join(
        stats.failures[:20]
    )


async def test_mutated_samples_survive_the_display_path():
    batches = make_grid_cases(seed=1)
    pairs = {(c.mutation, c.kind) for batch in batches for c in batch}
    assert pairs == {(m, k) for m in MUTATIONS for k in SampleSource().kinds}
    stats = await run_campaign(batches, Stats())
    _assert_clean(stats)
    assert stats.tried == len(pairs) >= 15 * 16
    assert set(stats.by_mutation) == set(MUTATIONS)  # every kind of damage was tried
    assert stats.typed and stats.raw


def test_mutation_fuzzer_is_reproducible():
    def summary(seed: int) -> list[str]:
        return [
            f"{c.mutation}:{_describe(c.payload)[:80]}"
            for batch in make_cases(60, seed=seed)
            for c in batch
        ]

    assert summary(7) == summary(7) and summary(7) != summary(8)


# hypothesis: arbitrary JSON-ish values and sample events with generated parts

_text = st.one_of(
    st.text(st.characters(exclude_categories=()), max_size=40),  # includes lone surrogates
    st.sampled_from(HOSTILE),
    st.lists(st.sampled_from(HOSTILE), max_size=4).map("".join),
)
_json = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)
    | _text,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_text, inner, max_size=4),
    max_leaves=12,
)
_SOURCE = SampleSource()
_SAMPLES = [json.loads(text) for texts in _SOURCE.by_kind.values() for text in texts[:6]]


@st.composite
def _sample_with_changes(draw) -> Any:
    event = json.loads(json.dumps(draw(st.sampled_from(_SAMPLES))))
    slots = _slots(event)
    for _ in range(draw(st.integers(1, 3))):
        if not slots:
            break
        container, key = draw(st.sampled_from(slots))
        if key not in container:  # removed by an earlier change
            continue
        action = draw(st.sampled_from(["replace", "drop", "text"]))
        if action == "drop":
            del container[key]
        elif action == "text" and isinstance(container[key], str):
            container[key] = draw(_text)
        else:
            container[key] = draw(_json)
        slots = _slots(event)
    return event


_event_like = st.fixed_dictionaries(
    {"kind": st.sampled_from(EVENT_KINDS) | _text},
    optional={
        "id": _text,
        "timestamp": _text | _json,
        "source": st.sampled_from(["agent", "user", "environment", "hook"]) | _text,
        "parent_id": _text | st.none(),
        "value": _json,
        "key": _text,
    },
)
_events = st.one_of(_sample_with_changes(), _event_like, _json)


def test_generated_events_survive_the_display_path():
    collected: list[Any] = []

    @settings(
        max_examples=120, deadline=None, database=None, suppress_health_check=list(HealthCheck)
    )
    @given(_events)
    def pure_path(data: Any) -> None:  # parse and row (shrinks on failure)
        stats = Stats()
        parsed = parse_case(Case("hypothesis", data), stats)
        _assert_clean(stats)
        assert parsed is not None
        collected.append(data)

    pure_path()
    # then the same inputs through the widgets, in batches of one app run
    batches = [
        [Case("hypothesis", d) for d in collected[i : i + 8]] for i in range(0, len(collected), 8)
    ]
    stats = asyncio.run(run_campaign(batches, Stats()))
    _assert_clean(stats)
    assert stats.tried == len(collected) >= 100
