"""Export: the real sample conversation as Markdown (the code's output against a checked-in
transcript, rewritten on purpose by ``scripts/golden_export.py``), JSONL that
round-trips with secrets masked, ``ohtui export`` against the reference server, and
hostile content that must not break the Markdown's structure."""

from __future__ import annotations

import difflib
import json
import os
from pathlib import Path

import httpx
import pytest
from markdown_it import MarkdownIt

from tests.helpers.samples import SAMPLES, event_files
from tui.cli import main
from tui.export import (
    MarkdownExporter,
    event_line,
    fence,
    format_for,
    markdown_block,
    to_jsonl,
    to_markdown,
)
from tui.models import RawEvent, event_json, parse_event
from tui.models.redact import MASK, redact
from tui.server import Store, load_demo

DATA = Path(__file__).parents[1] / "data"
#: the sample conversation's export as reviewed (``scripts/golden_export.py`` writes it anew)
GOLDEN = DATA / "demo-export.md"
DEMO = SAMPLES / "agent-server-capture" / "persisted" / "demo-697ecf519eef41b2bdca3fa62e1da900"
DEMO_ID = "697ecf519eef41b2bdca3fa62e1da900"
IDS = load_demo(Store())
SENTINEL = "gAAAA-SENTINEL-ciphertext"


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    """The CLI reads settings: keep it away from the real home and inherited OHTUI_*."""
    for name in list(os.environ):
        if name.startswith("OHTUI_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    for var in ("CONFIG", "DATA", "STATE", "CACHE"):
        monkeypatch.setenv(f"XDG_{var}_HOME", str(tmp_path / var.lower()))


def demo_events() -> list:
    return [
        parse_event(json.loads(p.read_text())) for p in sorted((DEMO / "events").glob("*.json"))
    ]


# --- event builders for hand-made cases --------------------------------------------------------

_n = 0


def _base(kind: str, source: str, **fields) -> dict:
    global _n
    _n += 1
    return {
        "id": f"ev-{_n}",
        "timestamp": f"2026-01-01T00:00:{_n % 60:02d}",
        "source": source,
        **fields,
        "kind": kind,
    }


def message(text: str, role: str = "user", **llm) -> object:
    source = "user" if role == "user" else "agent"
    event = parse_event(
        _base(
            "MessageEvent",
            source,
            llm_message={"role": role, "content": [{"type": "text", "text": text}], **llm},
        )
    )
    assert not isinstance(event, RawEvent), event
    return event


def terminal(call: str, command: str, thought: str = "") -> object:
    event = parse_event(
        _base(
            "ActionEvent",
            "agent",
            thought=[{"type": "text", "text": thought}] if thought else [],
            action={"command": command, "kind": "TerminalAction"},
            tool_name="terminal",
            tool_call_id=call,
            tool_call={"id": call, "name": "terminal", "arguments": "{}", "origin": "completion"},
            llm_response_id="r1",
        )
    )
    assert not isinstance(event, RawEvent), event
    return event


def output(call: str, text: str, exit_code: int = 0) -> object:
    event = parse_event(
        _base(
            "ObservationEvent",
            "environment",
            tool_name="terminal",
            tool_call_id=call,
            observation={
                "content": [{"type": "text", "text": text}],
                "command": "x",
                "exit_code": exit_code,
                "kind": "TerminalObservation",
            },
            action_id="a",
        )
    )
    assert not isinstance(event, RawEvent), event
    return event


# --- Markdown of the real sample ----------------------------------------------------------------


def demo_markdown() -> str:
    """The real sample conversation as the code exports it now (what ``GOLDEN`` pins)."""
    return to_markdown(demo_events(), conversation_id=DEMO_ID, title="Demo conversation")


def test_sample_conversation_as_markdown_matches_the_checked_in_transcript():
    markdown = demo_markdown()
    expected = GOLDEN.read_text(encoding="utf-8")
    if markdown != expected:
        diff = "".join(
            difflib.unified_diff(
                expected.splitlines(keepends=True),
                markdown.splitlines(keepends=True),
                str(GOLDEN.relative_to(Path(__file__).parents[2])),
                "the export now",
                n=2,
            )
        )
        pytest.fail(
            "the sample's export differs from the checked-in transcript; if the change is "
            f"meant, run `python scripts/golden_export.py` and review its diff:\n{diff[:6000]}"
        )


def test_observations_are_shown_under_their_action_even_when_late():
    markdown = demo_markdown()
    # Two parallel calls (terminal, think) whose observations come after both actions.
    run = markdown.index("### Terminal — Run hello.py")
    assert run < markdown.index("hello, edited") < markdown.index("### Think")


def test_every_sample_event_exports_without_error():
    events = [parse_event(obj) for objs in event_files().values() for obj in objs]
    markdown = to_markdown(events, conversation_id="all-samples")
    assert (
        markdown.startswith("# Conversation all-samples")
        and f"{len(events)} events exported" in markdown
    )
    for line in to_jsonl(events).splitlines():
        json.loads(line)


# --- JSONL --------------------------------------------------------------------------------------


def test_jsonl_round_trips_the_sample():
    events = demo_events()
    lines = to_jsonl(events).splitlines()
    assert len(lines) == len(events)
    for line, event in zip(lines, events):
        assert parse_event(json.loads(line)) == event
        assert json.loads(line) == event_json(event)


def test_jsonl_masks_encrypted_content_and_nothing_else():
    event = message(
        "hi",
        role="assistant",
        responses_reasoning_item={"id": "rs_1", "summary": ["plan"], "encrypted_content": SENTINEL},
    )
    line = event_line(event)
    assert SENTINEL not in line and MASK in line
    back = parse_event(json.loads(line))
    assert back.llm_message.responses_reasoning_item.encrypted_content == MASK
    restored = json.loads(line)
    restored["llm_message"]["responses_reasoning_item"]["encrypted_content"] = SENTINEL
    assert restored == event_json(event)


def test_jsonl_escapes_what_a_terminal_would_act_on_and_still_round_trips():
    text = "c1 \x9b2J, bidi \u202e, line sep \u2028, lone surrogate \ud800, esc \x1b[31m"
    event = message(text)
    line = event_line(event)
    for char in "\x9b\u202e\u2028\ud800\x1b\n":
        assert char not in line
    line.encode("utf-8")  # writable as UTF-8
    assert parse_event(json.loads(line)).llm_message.text == text


def test_raw_events_export_as_sent():
    raw = parse_event({"kind": "FutureEvent", "id": "x1", "source": "agent", "token": "t0ps3cret"})
    assert isinstance(raw, RawEvent)
    assert json.loads(event_line(raw)) == {
        "kind": "FutureEvent",
        "id": "x1",
        "source": "agent",
        "token": MASK,
    }
    markdown = to_markdown([raw])  # a kind newer than ohtui: listed as its fields
    assert "### `FutureEvent` (unknown kind) · agent" in markdown and "t0ps3cret" not in markdown
    assert "- **token**: `‹redacted›`" in markdown and "- **id**: `x1`" in markdown
    broken = parse_event(
        {"kind": "MessageEvent", "id": "x2", "source": "user", "token": "t0ps3cret"}
    )
    markdown = to_markdown([broken])
    assert "### Unparsed event `MessageEvent`" in markdown and "t0ps3cret" not in markdown
    assert "```json" in markdown and "```text" in markdown


# --- the CLI against the reference server -------------------------------------------------------


def server_events(base_url: str, cid: str) -> list[dict]:
    items, page = [], None
    with httpx.Client(base_url=base_url) as http:
        while True:
            params = {"limit": 100, **({"page_id": page} if page else {})}
            body = http.get(f"/api/v1/conversation/{cid}/events/search", params=params).json()
            items += body["items"]
            page = body.get("next_page_id")
            if not page:
                return items


def as_sent_but_nulls(line: object, sent: object) -> bool:
    """``line`` is ``sent`` except that null-valued fields may be left out (``event_json``)."""
    if isinstance(sent, dict):
        return (
            isinstance(line, dict)
            and set(line) <= set(sent)
            and all(
                (k not in line or line[k] is None)
                if v is None
                else k in line and as_sent_but_nulls(line[k], v)
                for k, v in sent.items()
            )
        )
    if isinstance(sent, list):
        return (
            isinstance(line, list)
            and len(line) == len(sent)
            and all(map(as_sent_but_nulls, line, sent))
        )
    return line == sent


def test_cli_export_jsonl_equals_the_servers_events(demo_server, capsys):
    cid = IDS["payments"]
    assert main(["export", cid, "--format", "jsonl", "--url", demo_server.base_url]) == 0
    lines = capsys.readouterr().out.splitlines()
    sent = server_events(demo_server.base_url, cid)
    assert len(lines) == len(sent) > 10
    for line, item in zip(lines, sent):
        obj = json.loads(line)
        assert as_sent_but_nulls(obj, redact(item))
        # as sent but for what the one policy masks (here thinking signatures: their size)
        assert parse_event(obj) == parse_event(redact(item))


def test_cli_export_markdown_to_a_file(demo_server, tmp_path, capsys):
    target = tmp_path / "payments.md"
    assert main(["export", IDS["payments"], "-o", str(target), "--url", demo_server.base_url]) == 0
    text = target.read_text(encoding="utf-8")
    assert text.startswith("# ") and f"`{IDS['payments']}`" in text and "```console" in text
    assert [p.name for p in tmp_path.iterdir()] == ["payments.md"]  # no temporary file left
    assert "wrote" in capsys.readouterr().err


def test_cli_export_of_an_unknown_conversation_fails_cleanly(demo_server, tmp_path, capsys):
    target = tmp_path / "nope.jsonl"
    assert main(["export", "0" * 32, "-o", str(target), "--url", demo_server.base_url]) == 2
    assert "conversation not found" in capsys.readouterr().err
    assert not target.exists() and not list(tmp_path.iterdir())


def test_cli_export_without_a_url_uses_the_bundled_demo_server(capsys):
    assert main(["export", IDS["hello"], "--format", "jsonl"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) > 10 and all(parse_event(json.loads(line)).id for line in lines)


def test_format_from_the_output_suffix():
    assert format_for("x.jsonl") == format_for("X.NDJSON") == "jsonl"
    assert format_for("x.md") == format_for(None) == format_for("x.txt") == "md"
    assert format_for("x.md", "jsonl") == "jsonl"


# --- hostile content ------------------------------------------------------------------------------


HOSTILE = "Nice.\n\n```python\nprint('this fence is never closed')\n"


def _structure(markdown: str) -> tuple[list[tuple[str, str]], list]:
    tokens = MarkdownIt("commonmark").parse(markdown)
    headings = []
    for i, tok in enumerate(tokens):
        if tok.type == "heading_open":
            headings.append((tok.tag, tokens[i + 1].content))
    return headings, tokens


def test_hostile_content_cannot_break_the_structure():
    events = [
        message(
            "Please run it.\n\n<!-- everything after this would be hidden\n\n<pre>\nand this swallowed"
        ),
        message(
            "Done </details> with `</details>` in code " + HOSTILE,
            role="assistant",
            thinking_blocks=[
                {
                    "type": "thinking",
                    "thinking": "secretly </details><details open><summary>pwn</summary>\n~~~~\nunclosed",
                }
            ],
        ),
        terminal(
            "c1",
            "echo '````' && printf '\\x1b]52;c;ZXZpbA==\\x07'",
            thought="Trying ``` tricks </details>",
        ),
        output(
            "c1",
            "````\n```\n\x1b[31mred\x1b[0m\x1b]52;c;ZXZpbA==\x07\nprogress 10%\rprogress 100%\n<!--",
            exit_code=3,
        ),
        message("AFTER-MARKER"),
    ]
    markdown = to_markdown(events, conversation_id="c", title="Title <details> ```")
    for char in ("\x1b", "\x07", "\x9b", "\r"):
        assert char not in markdown
    headings, tokens = _structure(markdown)
    assert [tag for tag, _ in headings] == ["h1", "h2", "h2", "h3", "h2"]
    assert headings[0][1] == "Title &lt;details> ```"
    assert headings[3][1] == "Terminal"
    assert headings[-1][1].startswith("User")
    # The last message is a plain top-level paragraph: nothing before it swallowed it.
    assert tokens[-3].type == "paragraph_open" and tokens[-2].content.startswith("*")  # footer
    marker = [i for i, t in enumerate(tokens) if t.type == "inline" and t.content == "AFTER-MARKER"]
    assert (
        marker and tokens[marker[0] - 1].type == "paragraph_open" and tokens[marker[0]].level == 1
    )
    # Only our own <details> pair reaches HTML; the attacker's tags are escaped.
    html = "".join(t.content for t in tokens if t.type == "html_block") + "".join(
        c.content for t in tokens if t.children for c in t.children if c.type == "html_inline"
    )
    assert html.count("<details>") == 1 and html.count("</details>") == 1
    assert "<!--" not in html and "<pre>" not in html
    # The terminal block keeps the backtick runs verbatim inside a longer fence.
    [console] = [t for t in tokens if t.type == "fence" and t.info == "console"]
    assert console.markup == "`````"
    assert (
        console.content.startswith("$ echo '````'") and "\n````\n```\n␛[31mred" in console.content
    )
    # a carriage return is shown, never resolved: it cannot rewrite what the transcript says
    assert "progress 10%␍progress 100%" in console.content
    assert "**Exit code 3**" in markdown
    # The unclosed fences in the message and the thinking were closed in place.
    fences = [t for t in tokens if t.type == "fence"]
    assert [t.info for t in fences] == ["", "python", "console"]


def test_fence_is_longer_than_any_backtick_run():
    assert fence("a ``` b", "text").startswith("````text\n")
    assert fence("`````").splitlines()[0] == "``````"
    assert fence("plain") == "```\nplain\n```"


def test_markdown_block_closes_fences_and_escapes_swallowing_html():
    assert markdown_block("x\n~~~~\ncode") == "x\n~~~~\ncode\n~~~~"
    assert markdown_block("a\n```\nb\n```\nc") == "a\n```\nb\n```\nc"
    assert markdown_block("<!-- x") == "&lt;!-- x"
    assert markdown_block("   <script>") == "   &lt;script>"
    assert markdown_block("x </details> y") == "x &lt;/details> y"
    assert markdown_block("keep `</details>` in code") == "keep `</details>` in code"
    assert markdown_block("```\n</details>\n```") == "```\n</details>\n```"


def test_an_action_without_a_result_is_not_held_forever():
    exporter = MarkdownExporter(max_pending=5)
    assert "sleep" not in exporter.feed(terminal("c9", "sleep 1000"))  # waits for its observation
    chunks = [exporter.feed(message(f"m{i}")) for i in range(6)]
    assert "$ sleep 1000" in "".join(chunks)  # released once enough followed it
    assert "*(no result recorded)*" in "".join(chunks)
    orphan = exporter.feed(output("never-called", "lonely output"))
    assert "### Result of `terminal`" in orphan and "lonely output" in orphan
