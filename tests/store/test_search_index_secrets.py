"""Nothing the screen masks is ever written to the search index: every secret shape the
masking knows, carried in free text (messages, commands, outputs, thoughts) or by key names
(tool arguments, state), anywhere in a field (before, across and after the cut that bounds
an output), is looked for in the index's file bytes and by a search, and is never found."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.models.test_redact_policy import KEYED_SENTINELS, SHAPES
from tui.search_index import SearchIndex, extract, search
from tui.search_index.extract import FIELD_CHARS

FILLER = st.text(alphabet="abc xyz\n:=/-_", max_size=40)


def _event(carrier: str, text: str, key: str | None) -> dict:
    base = {"id": "e1", "timestamp": "2026-11-01T10:00:00", "source": "agent"}
    if key is not None:
        return base | {
            "kind": "ActionEvent",
            "tool_name": "terminal",
            "action": {"kind": "TerminalAction", "command": "env", key: text},
        }
    if carrier == "message":
        return base | {
            "kind": "MessageEvent",
            "llm_message": {"role": "user", "content": [{"type": "text", "text": text}]},
        }
    if carrier == "command":
        return base | {"kind": "ActionEvent", "tool_name": "terminal", "action": {"command": text}}
    if carrier == "thought":
        return base | {"kind": "ActionEvent", "thought": [{"type": "text", "text": text}]}
    return base | {
        "kind": "ObservationEvent",
        "tool_name": "terminal",
        "observation": {"content": [{"type": "text", "text": text}], "exit_code": 1},
    }


def _on_disk(path: Path) -> bytes:
    found = b""
    for each in path.parent.glob(path.name + "*"):
        found += each.read_bytes()
    return found.lower()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    shape=st.sampled_from(sorted(SHAPES) + [f"key:{k}" for k in sorted(KEYED_SENTINELS)]),
    carrier=st.sampled_from(["message", "command", "thought", "output"]),
    before=FILLER,
    after=FILLER,
    pad=st.sampled_from([0, FIELD_CHARS - 30, FIELD_CHARS - 10, FIELD_CHARS + 5]),
)
def test_no_masked_secret_reaches_the_index(shape, carrier, before, after, pad):
    if shape.startswith("key:"):
        key = shape[4:]
        sentinel = KEYED_SENTINELS[key]
        text, carried_by = f"{sentinel}value", key
    else:
        text, sentinel = SHAPES[shape]
        carried_by = None
    body = "w " * (pad // 2) + before + " " + text + " " + after
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "i.sqlite3"
        index = SearchIndex(path)
        found = extract(_event(carrier, body if carried_by is None else text, carried_by))
        assert found is not None
        index.add_events("c1", [found], found.stamp)
        assert sentinel.lower() not in found.text.lower()
        index.guarded(lambda db: db.execute("PRAGMA wal_checkpoint(TRUNCATE)"))
        assert sentinel.lower().encode() not in _on_disk(path)
        assert not search(index, sentinel).groups
        index.close()
