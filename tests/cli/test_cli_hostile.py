"""The command line against a hostile server, hostile content and a hostile config file:
nothing a server, a conversation or a file says reaches the terminal as a control sequence.

The app shows such text literally (``test_hostile_content.py``); ``ohtui info``, ``export``
and ``insights`` print it, so every line they print goes through ``tui.text.say`` (the
app's ``clean``), exports and insights are safe by construction (JSON escaped, never
stripped), and no module writes to standard output or error any other way.
"""

from __future__ import annotations

import ast
import json
import os
import re
from pathlib import Path

import pytest

from tests.app.test_hostile_content import _action, _event, _observation, _text
from tui.cli import main
from tui.server import Store
from tui.server.views import conversation_info

#: OSC 52 (write "Hello" to the clipboard), OSC 0 (the window's title), CSI as one C1 byte.
EVIL = "\x1b]52;c;SGVsbG8=\x07 \x1b]0;pwned\x07 \x9b31mred \u202eevil"
#: what must never reach the terminal: C0 controls but tab and newline, DEL, C1, bidi marks
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]")
CID = "0badc0de0badc0de0badc0de0badc0de"
ROOT = Path(__file__).resolve().parents[2] / "tui"


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch) -> Path:
    for name in list(os.environ):
        if name.startswith("OHTUI_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    for var in ("CONFIG", "DATA", "STATE", "CACHE"):
        monkeypatch.setenv(f"XDG_{var}_HOME", str(tmp_path / var.lower()))
    return tmp_path / "config" / "ohtui" / "config.toml"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    """Exit status, standard output and standard error, checked for raw controls."""
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert not RAW.search(out), RAW.findall(out)
    assert not RAW.search(err), RAW.findall(err)
    assert "Traceback" not in out + err
    return code, out, err


def readable(text: str) -> bool:
    """The hostile words are still there to read, their controls as visible stand-ins."""
    return "pwned" in text and "SGVsbG8=" in text and "31mred" in text and "␛" in text


def hostile_store() -> Store:
    store = Store()
    store.put_conversation(
        conversation_info(
            id=CID,
            sandbox_id="sb-hostile",
            title=f"title {EVIL}",
            created_at="2026-11-20T10:00:00Z",
            updated_at="2026-11-20T10:01:00Z",
            execution_status="finished",
        )
    )
    store.append_events(
        CID,
        [
            _event(
                1,
                "MessageEvent",
                None,
                source="user",
                llm_message={"role": "user", "content": [_text(f"please {EVIL}")]},
            ),
            _action(2, "ev-01", {"kind": "TerminalAction", "command": f"echo {EVIL}"}, "call_t"),
            _observation(
                3,
                "ev-02",
                {
                    "kind": "TerminalObservation",
                    "command": f"echo {EVIL}",
                    "exit_code": 1,
                    "content": [_text(f"out {EVIL}")],
                },
                "call_t",
                "ev-02",
            ),
        ],
    )
    return store


# --- ohtui info ----------------------------------------------------------------------------------


def test_info_shows_a_hostile_servers_title_and_version_inert(make_server, capsys):
    server = make_server(kind="agent")  # its /server_info says what it is, here hostile
    answer = {"title": f"Agent {EVIL}", "version": f"1.0 {EVIL}", "uptime": 1.0}
    server.app.state.faults.add("status", "/server_info", status=200, body=json.dumps(answer))
    code, out, _ = run(capsys, "info", "--url", server.base_url)
    assert code == 0
    section = out.split("\nserver\n", 1)[1].split("\n\n", 1)[0]
    assert re.search(r"kind\s+agent ", section) and re.search(r"access\s+ok", section), section
    title = next(line for line in section.splitlines() if "title" in line)
    version = next(line for line in section.splitlines() if "version" in line)
    assert readable(title) and readable(version), section


def test_info_shows_a_hostile_servers_error_inert(make_server, capsys):
    server = make_server()
    server.app.state.faults.add(
        "status", "/api/v1/", status=403, body=json.dumps({"detail": f"go away {EVIL}"})
    )
    code, out, _ = run(capsys, "info", "--url", server.base_url)
    assert code == 0
    assert "the server wants a key" in out and readable(out), out


def test_info_shows_a_hostile_config_file_inert(isolated, capsys):
    isolated.parent.mkdir(parents=True)
    isolated.write_text('"\\u001b]0;pwned\\u0007 SGVsbG8= \\u009b31mred" = 1\n', encoding="utf-8")
    code, out, _ = run(capsys, "info")
    assert code == 1 and "unknown setting" in out and readable(out), out
    isolated.write_text(
        '[profiles."\\u001b]0;pwned\\u0007"]\n'
        'url = "http://127.0.0.1:9"\n'
        'session_key_env = "SGVsbG8=\\u009b31mred"\n',
        encoding="utf-8",
    )
    code, out, _ = run(capsys, "info")
    assert code == 0 and readable(out), out


# --- export and insights --------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["export", "insights"])
def test_a_hostile_servers_error_is_printed_inert(command, make_server, capsys):
    server = make_server(hostile_store())
    server.app.state.faults.add(
        "status", "/api/v1/", status=403, times=-1, body=json.dumps({"detail": f"no {EVIL}"})
    )
    code, _, err = run(capsys, command, CID, "--url", server.base_url)
    assert code == 1
    assert err.startswith(f"ohtui {command}: the server wants a key") and readable(err), err


def test_export_to_the_terminal_is_inert(make_server, capsys):
    server = make_server(hostile_store())
    code, out, _ = run(capsys, "export", CID, "--url", server.base_url)
    assert code == 0 and readable(out), out
    code, out, _ = run(capsys, "export", CID, "--url", server.base_url, "--format", "jsonl")
    assert code == 0
    events = [json.loads(line) for line in out.splitlines()]  # still JSON, nothing stripped
    assert events[0]["llm_message"]["content"][0]["text"] == f"please {EVIL}"


def test_insights_to_the_terminal_or_a_file_are_inert(make_server, tmp_path, capsys):
    server = make_server(hostile_store())
    code, out, _ = run(capsys, "insights", CID, "--url", server.base_url)
    assert code == 0 and readable(out), out
    target = tmp_path / "insights.json"
    for output in ("-", str(target)):
        argv = ("insights", CID, "--url", server.base_url, "--format", "json", "-o", output)
        code, out, _ = run(capsys, *argv)
        assert code == 0
        text = out if output == "-" else target.read_text(encoding="utf-8")
        assert not RAW.search(text), RAW.findall(text)  # a file is as safe to `cat`
        found = json.loads(text)  # still JSON: escaped, nothing stripped
        assert found["title"] == f"title {EVIL}"
        assert any(EVIL in action["label"] for action in found["slowest"]), found["slowest"]


# --- one way out ---------------------------------------------------------------------------------


def test_nothing_prints_but_through_say():
    """``print`` and ``sys.stdout/stderr.write`` only in ``tui.text.say``: a new message
    cannot forget to neutralise what it prints."""
    found = []
    for path in sorted(ROOT.rglob("*.py")):
        if path == ROOT / "text.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            name = ast.unparse(node.func)
            if name == "print" or name in ("sys.stdout.write", "sys.stderr.write"):
                found.append(f"{path.relative_to(ROOT.parent)}:{node.lineno} {name}")
    assert found == []
