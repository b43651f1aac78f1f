"""Rows and text as people see them: one-line summaries, literal text, masked secrets."""

from __future__ import annotations

import pytest

from tests.models.test_models_rules import make
from tui.app.store.rows import make_row, summarize
from tui.models import EVENT_KINDS, parse_event
from tui.models.redact import MASK, mask_url, redact
from tui.text import abbreviate, clean, one_line


@pytest.mark.parametrize("kind", EVENT_KINDS)
def test_every_kind_has_a_summary_row(kind):
    row = make_row(parse_event(make(kind)))
    assert row.kind == kind and row.id == f"id-{kind}" and "\n" not in row.summary


def test_raw_event_row_says_unparsed():
    row = make_row(parse_event({"kind": "MessageEvent", "id": "x"}))
    assert row.flag == "raw" and row.summary.startswith("unparsed")
    # a kind newer than this client is not broken: it is shown as its fields
    row = make_row(parse_event({"kind": "Mystery", "id": "x", "note": "hi"}))
    assert row.flag == "" and row.summary == "unknown kind · note: hi"


def test_terminal_action_summary_shows_the_command():
    action = make("ActionEvent", action={"kind": "TerminalAction", "command": "ls -la"})
    assert summarize(parse_event(action)) == "$ ls -la"


def test_error_rows_are_flagged():
    assert make_row(parse_event(make("AgentErrorEvent"))).flag == "error"
    assert make_row(parse_event(make("ConversationErrorEvent"))).flag == "error"
    assert make_row(parse_event(make("PauseEvent"))).flag == ""


def test_control_sequences_neutralised():
    hostile = "a\x1b[2J\x1b]52;c;ZXZpbA==\x07b\u202eevil\x00"
    out = clean(hostile)
    assert "\x1b" not in out and "\x07" not in out and "\u202e" not in out and "\x00" not in out
    assert out.startswith("a␛[2J␛]52;c;ZXZpbA==␇b")
    assert clean("tab\tand\nnewline") == "tab\tand\nnewline"


def test_one_line_and_abbreviate():
    assert one_line("\n\n  first  \nsecond") == "first"
    assert one_line("x" * 500, 10) == "x" * 9 + "…"
    shown, hidden = abbreviate("\n".join(str(i) for i in range(1000)), max_lines=10)
    assert hidden == 990 and shown.count("\n") == 9


def test_redact_masks_secrets_and_url_tokens():
    data = {
        "responses_reasoning_item": {"encrypted_content": "gAAAA", "summary": []},
        "agent": {"llm": {"api_key": "sk-live"}},
        "exposed_urls": [{"name": "VSCODE", "url": "http://h:8001/?tkn=abc123&folder=/w"}],
    }
    out = redact(data)
    assert out["responses_reasoning_item"]["encrypted_content"] == MASK
    assert out["agent"]["llm"]["api_key"] == MASK
    assert (
        "abc123" not in out["exposed_urls"][0]["url"]
        and "folder=/w" in out["exposed_urls"][0]["url"]
    )
    assert mask_url("http://x/?session_api_key=k&a=1") == "http://x/?session_api_key=****&a=1"


def test_stats_rows_read_as_words_before_any_tokens():
    empty = make("ConversationStateUpdateEvent", key="stats", value={"usage_to_metrics": {}})
    assert summarize(parse_event(empty)) == "stats: $0.00 · no tokens yet"
    used = make(
        "ConversationStateUpdateEvent",
        key="stats",
        value={
            "usage_to_metrics": {
                "agent": {
                    "accumulated_cost": 0.02,
                    "accumulated_token_usage": {"prompt_tokens": 900, "completion_tokens": 100},
                }
            }
        },
    )
    assert summarize(parse_event(used)) == "stats: $0.02 · 1.0k tokens"
