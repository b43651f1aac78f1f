"""A state update's totals row skips masking (its words are the client's own): the row is
what masking would have made of it, whatever the numbers; any other state row is masked."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from tui.app.helper.page_worker import read_page
from tui.app.store.rows import EventRow, make_row, summarize
from tui.models import RawEvent, parse_event
from tui.models.redact import MASK, redact_text

NUMBERS = st.one_of(
    st.integers(min_value=-(10**20), max_value=10**20),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([1e308, -1e308, 10**300, 0, 0.0049, 123456789.123]),
    st.text(max_size=20),
    st.none(),
)


def _state(key: object, value: object) -> dict:
    return {
        "kind": "ConversationStateUpdateEvent",
        "id": "e1",
        "timestamp": "2026-11-24T21:00:00.000000",
        "source": "environment",
        "key": key,
        "value": value,
    }


@settings(max_examples=200, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(["agent", "condenser", "token", "api_key=sk-abcdefghijklmnop1234"]),
        st.fixed_dictionaries(
            {"accumulated_cost": NUMBERS},
            optional={
                "accumulated_token_usage": st.fixed_dictionaries(
                    {}, optional={"prompt_tokens": NUMBERS, "completion_tokens": NUMBERS}
                ),
                "password": st.just("hunter2hunter2"),
            },
        ),
        max_size=3,
    )
)
def test_totals_row_is_what_masking_makes_of_it(usage: dict) -> None:
    event = parse_event(_state("stats", {"usage_to_metrics": usage}))
    assert not isinstance(event, RawEvent)
    summary = summarize(event)
    assert summary.startswith("stats: ")
    assert make_row(event).summary == redact_text(summary) == summary


def test_other_state_rows_are_still_masked() -> None:
    for key, value in (
        ("stats", "password=hunter2hunter2"),
        ("stats", {"password=hunter2hunter2": 1}),
        ("secret_value", "token=abcdefghijklmnop"),
    ):
        row = make_row(parse_event(_state(key, value)))
        assert MASK in row.summary, row.summary
        assert "abcdefghijklmnop" not in row.summary and "hunter2hunter2" not in row.summary


def test_helper_page_keeps_stats_and_needed_events() -> None:
    """read_page's one pass: a state update's totals and a security verdict's event kept
    at their indices, a broken state update kept raw."""
    security = {
        "kind": "SecurityAnalysisEvent",
        "id": "s1",
        "source": "agent",
        "analyzer": "a",
        "policy": "p",
        "risks": {"a1": "HIGH"},
    }
    stats = {"usage_to_metrics": {"agent": {"accumulated_cost": 0.5}}}
    items = [_state("stats", stats), security, {**_state("stats", stats), "key": 3}]
    page = read_page(json.dumps({"items": items, "next_page_id": None}).encode())
    assert page.stats == {0: ("2026-11-24T21:00:00.000000", 0.5, 0)}
    assert list(page.needed) == [1]
    assert page.rows[2][EventRow.__slots__.index("flag")] == "raw"
