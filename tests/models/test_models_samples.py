"""Conformance: every real event in ../shared/samples parses to its own kind, none raw."""

from __future__ import annotations

from collections import Counter

import pytest

from tests.helpers.samples import event_files, iter_events
from tui.models import RawEvent, parse_event
from tui.models.content import LEGACY_MESSAGE_KEYS, LEGACY_TEXT_KEYS

FILES = event_files()


def strip_none(value):
    if isinstance(value, dict):
        return {k: strip_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [strip_none(v) for v in value]
    return value


def strip_legacy(value):
    """What the SDK drops on load: enable_truncation in text blocks, legacy Message flags."""
    if isinstance(value, dict):
        keys = set()
        if value.get("type") == "text":
            keys |= LEGACY_TEXT_KEYS
        if "role" in value and "content" in value:
            keys |= LEGACY_MESSAGE_KEYS
        return {k: strip_legacy(v) for k, v in value.items() if k not in keys}
    if isinstance(value, list):
        return [strip_legacy(v) for v in value]
    return value


def test_sample_set_is_complete():
    # every sample family is represented, so a moved folder cannot silently shrink coverage
    prefixes = {name.split("/")[0] for name in FILES}
    assert prefixes == {"agent-server-capture", "cli-trajectories", "constructed", "sdk-fixtures"}
    assert sum(len(v) for v in FILES.values()) >= 400


@pytest.mark.parametrize("name", sorted(FILES))
def test_every_event_in_file_parses_to_its_kind(name):
    events = FILES[name]
    parsed = [parse_event(e) for e in events]
    raw = [(p.kind, p.error) for p in parsed if isinstance(p, RawEvent)]
    assert raw == [], f"{name}: fell back to raw: {raw}"
    assert [type(p).__name__ for p in parsed] == [e["kind"] for e in events]


@pytest.mark.parametrize("name", sorted(FILES))
def test_round_trip_equals_original_minus_legacy_keys(name):
    for original in FILES[name]:
        event = parse_event(original)
        expected = strip_none(strip_legacy(original))
        # exactly what was sent, nothing lost or altered
        sent = event.model_dump(mode="json", exclude_none=True, exclude_unset=True)
        assert strip_none(sent) == expected
        # the full dump adds only defaults of fields newer than the writer (e.g.
        # ObservationEvent.extended_content=[] in pre-1.2x CLI trajectories)
        full = strip_none(event.model_dump(mode="json", exclude_none=True))
        added = {k: v for k, v in full.items() if k not in expected}
        assert {k: full[k] for k in expected} == expected
        fields = type(event).model_fields
        for key, value in added.items():
            assert value == fields[key].get_default(call_default_factory=True), (key, value)


def test_totals_by_kind(capsys):
    totals = Counter(type(parse_event(e)).__name__ for _, e in iter_events())
    with capsys.disabled():
        print("\nsample events by kind:", dict(sorted(totals.items())))
    assert totals["RawEvent"] == 0
    # the kinds the real captures are known to contain
    for kind in (
        "ActionEvent",
        "ObservationEvent",
        "MessageEvent",
        "SystemPromptEvent",
        "ConversationStateUpdateEvent",
        "HookExecutionEvent",
        "AgentErrorEvent",
        "ConversationErrorEvent",
        "UserRejectObservation",
        "InterruptEvent",
        "PauseEvent",
        "StreamingDeltaEvent",
        "ServerErrorEvent",
        "TokenEvent",
        "ACPToolCallEvent",
        "CondensationSummaryEvent",
    ):
        assert totals[kind] > 0, kind


def test_legacy_keys_really_occur_and_are_stripped():
    """The CLI trajectories carry enable_truncation; the parsed model must not."""
    seen = 0
    for name, original in iter_events():
        if name.startswith("cli-trajectories") and "enable_truncation" in str(original):
            seen += 1
            assert "enable_truncation" not in str(parse_event(original).model_dump())
    assert seen > 0


def test_real_error_events_carry_classification():
    found = [
        parse_event(e)
        for _, e in iter_events()
        if e.get("kind") in ("AgentErrorEvent", "ConversationErrorEvent") and "classification" in e
    ]
    assert found and all(ev.classification is not None for ev in found)
