"""An id prefix names a conversation everywhere (issue 31 item 6): the palette, ``--conversation``
and the commands that take one (``export``, ``insights``, ``diff``, ``download``) resolve it
with one resolver; the start of several ids or of none is said in words with the candidates
(exit 2); a text that is not an id's shape is a usage error saying the shape, before any
request (never the server's bare ``400 Invalid UUID``)."""

from __future__ import annotations

import os
import socket

import pytest
from textual.command import CommandPalette

from tests.helpers.app_helpers import (
    SIZE,
    conversations_shown,
    make_app,
    notes_told,
    settled,
    wait_for,
)
from tui.app.screens.conversation import ConversationScreen
from tui.cli import main
from tui.client import OpenHandsClient
from tui.client.conversation_ids import SHOWN, candidate_line, find_conversation, shape_problem
from tui.models import AppConversation
from tui.server import Store, load_demo
from tui.server.views import conversation_info

IDS = load_demo(Store())
TWINS = [f"abcd{n:x}{'0' * 27}" for n in (1, 2)]
#: more ids starting with "beef" than a lookup lists
HERD = [f"beef{n:02x}{'0' * 26}" for n in range(SHOWN + 2)]


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch) -> None:
    for name in list(os.environ):
        if name.startswith("OHTUI_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    for var in ("CONFIG", "DATA", "STATE", "CACHE"):
        monkeypatch.setenv(f"XDG_{var}_HOME", str(tmp_path / var.lower()))
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)


@pytest.fixture
def prefixed(make_server):
    """The demo, plus two conversations whose ids share "abcd" (one titled with a control
    sequence) and more sharing "beef" than a lookup lists."""
    store = Store()
    load_demo(store)
    titles = {TWINS[0]: "twin \x1b[31mone", TWINS[1]: "twin two"}
    for n, cid in enumerate(TWINS + HERD):
        store.put_conversation(
            conversation_info(
                id=cid,
                sandbox_id="sb-prefixes",
                title=titles.get(cid, f"herd {n}"),
                created_at=f"2025-03-0{n % 9 + 1}T10:00:00Z",
                updated_at=f"2025-03-0{n % 9 + 1}T12:3{n % 10}:00Z",
            )
        )
    return make_server(store)


def closed_url() -> str:
    """A URL nothing listens on: a command that asked it anything would say so."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}"


# --- the resolver ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("typed", "why"),
    [
        ("not-an-id!", "is not a conversation id"),
        ("17272b7g", "is not a conversation id"),
        ("abc", "is too short to look up"),
        ("17272b7f-045c-4062-a2d3-ab124144e98200", "is not a conversation id"),  # too long
        ("1727-2b7f", "is not a conversation id"),  # a dash where no UUID has one
        ("", "no conversation id given"),
    ],
)
def test_a_text_not_shaped_like_an_id_says_the_shape(typed, why):
    problem = shape_problem(typed)
    assert problem is not None and why in problem
    assert "32 hex digits" in problem and "8-4-4-4-12" in problem


@pytest.mark.parametrize(
    "typed",
    ["1727", "17272B7F", "17272b7f-", "17272b7f-045c", "17272b7f045c", IDS["payments"]],
)
def test_ids_and_their_starts_have_the_shape(typed):
    assert shape_problem(typed) is None


async def test_a_prefix_resolves_loaded_or_asked_and_says_what_it_cannot(demo_server):
    async with OpenHandsClient(demo_server.base_url) as client:
        rows = (await client.search_conversations(limit=100)).items
        target = IDS["payments"]
        found = await find_conversation(client, target[:8], rows)
        assert found.conversation is not None and found.conversation.id == target
        found = await find_conversation(client, target[:8])  # not loaded: asked for
        assert found.conversation is not None and found.conversation.id == target
        found = await find_conversation(client, IDS["sub"][:6])  # a sub-conversation too
        assert found.conversation is not None and found.conversation.id == IDS["sub"]
        dashed = f"{target[:8]}-{target[8:12]}-{target[12:16]}-{target[16:20]}-{target[20:]}"
        found = await find_conversation(client, dashed.upper())
        assert found.conversation is not None and found.conversation.id == target

        found = await find_conversation(client, "ffff", rows)
        assert found.conversation is None and found.unknown
        assert found.text == "No conversation's id starts with ffff."
        unknown = "0" * 32
        found = await find_conversation(client, unknown)
        assert found.text == f"Conversation not found: {unknown}." and found.unknown
        found = await find_conversation(client, "not-an-id!")
        assert found.conversation is None and not found.unknown
        assert found.lines() == [shape_problem("not-an-id!")]


async def test_the_start_of_several_ids_lists_them(prefixed):
    async with OpenHandsClient(prefixed.base_url) as client:
        found = await find_conversation(client, "abcd")
        assert found.conversation is None and not found.unknown
        assert found.lines() == [
            "2 conversations' ids start with abcd: type more of it",
            "  abcd2000  twin two  (updated 2025-03-02 12:31 UTC)",
            "  abcd1000  twin ␛[31mone  (updated 2025-03-01 12:30 UTC)",
        ]
        found = await find_conversation(client, "abcd2")
        assert found.conversation is not None and found.conversation.title == "twin two"

        found = await find_conversation(client, "beef")
        lines = found.lines()
        assert lines[0] == f"more than {SHOWN} conversations' ids start with beef: type more of it"
        assert len(lines) == SHOWN + 2 and lines[-1] == "  …"
        assert all(line.startswith("  beef") for line in lines[1:-1])


@pytest.mark.parametrize("typed", ["payments8", "dashed"])
def test_a_bare_agent_servers_dashed_ids_resolve_by_their_start(make_server, typed, capsys):
    from tests.server.test_agent_server_app import KEY, agent_server

    server = agent_server(make_server)
    target = IDS["payments"]
    dashed = f"{target[:8]}-{target[8:12]}"
    argv = ["--url", server.base_url, "--session-key", KEY, "--server-kind", "agent"]
    assert main([*argv, "export", target[:8] if typed == "payments8" else dashed]) == 0
    assert "# " in capsys.readouterr().out


def test_a_candidate_line_without_title_or_time():
    bare = AppConversation(id="0123456789abcdef" * 2, sandbox_id="sb")
    assert candidate_line(bare) == "01234567  (untitled)  (updated never)"


# --- the commands ----------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["export", "insights", "diff"])
def test_every_command_takes_a_prefix(command, demo_server, capsys):
    target = IDS["hello"]
    assert main(["--url", demo_server.base_url, command, target[:6]]) == 0
    out = capsys.readouterr().out
    if command == "diff":
        assert out.startswith("diff --git")
    else:
        assert target in out  # the whole id, in the export's and the insights' heading


def test_download_takes_a_prefix_and_names_the_file_by_the_whole_id(demo_server, capsys):
    target = IDS["hello"]
    assert main(["--url", demo_server.base_url, "download", target[:5]]) == 0
    err = capsys.readouterr().err
    assert f"wrote the trajectory of {target}" in err
    assert os.path.exists(f"ohtui-{target[:8]}-trajectory.zip")


@pytest.mark.parametrize("command", ["export", "insights", "diff", "download"])
def test_the_start_of_several_or_none_is_said_with_the_candidates(command, prefixed, capsys):
    url = prefixed.base_url
    assert main(["--url", url, command, "abcd"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == [
        f"ohtui {command}: 2 conversations' ids start with abcd: type more of it",
        "  abcd2000  twin two  (updated 2025-03-02 12:31 UTC)",
        "  abcd1000  twin ␛[31mone  (updated 2025-03-01 12:30 UTC)",
    ]
    assert main(["--url", url, command, "abcd3"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0] == f"ohtui {command}: no conversation's id starts with abcd3"
    assert err[1].startswith("  next: check the id")
    assert not os.listdir(".")  # nothing written


@pytest.mark.parametrize("command", ["export", "insights", "diff", "download"])
@pytest.mark.parametrize("typed", ["17272b7g", "not-an-id", "abc", "1" * 33])
def test_a_malformed_id_is_a_usage_error_before_any_request(command, typed, capsys):
    assert main(["--url", closed_url(), command, typed]) == 2
    err = capsys.readouterr().err
    assert f"ohtui {command}: “{typed}” is " in err and "32 hex digits" in err
    assert "Invalid UUID" not in err and "cannot reach" not in err
    assert "usage:" in err


def test_a_shared_conversation_needs_its_whole_id(capsys):
    assert main(["--url", closed_url(), "export", "--shared", "17272b7f"]) == 2
    err = capsys.readouterr().err
    assert "--shared reads a conversation by its whole id" in err and "cannot reach" not in err


def test_the_apps_conversation_option_is_checked_before_it_starts(capsys):
    assert main(["--url", closed_url(), "--conversation", "17272b7g"]) == 2
    assert "ohtui: --conversation: “17272b7g” is not a conversation id" in capsys.readouterr().err
    assert main(["--url", closed_url(), "--conversation", "1727", "--shared"]) == 2
    assert "--shared reads a conversation by its whole id" in capsys.readouterr().err


# --- the app ---------------------------------------------------------------------------------


async def test_the_conversation_option_opens_a_prefix_or_lists_the_candidates(prefixed):
    app = make_app(prefixed.base_url, conversation_id=IDS["payments"][:7])
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: isinstance(app.screen, ConversationScreen), pilot=pilot)
        assert app.screen.conversation_id == IDS["payments"]

    app = make_app(prefixed.base_url, conversation_id="abcd")
    notes = notes_told(app)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: bool(notes), pilot=pilot)
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        assert notes[0].splitlines() == [
            "2 conversations' ids start with abcd: type more of it.",
            "  abcd2000  twin two  (updated 2025-03-02 12:31 UTC)",
            "  abcd1000  twin ␛[31mone  (updated 2025-03-01 12:30 UTC)",
        ]


async def test_the_palette_says_the_shape_of_an_id(demo_server):
    app = make_app(demo_server.base_url)
    notes = notes_told(app)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        await pilot.press("ctrl+p")
        await wait_for(lambda: isinstance(app.screen, CommandPalette), pilot=pilot)
        await pilot.press(*"1727-2b7f")
        await settled(pilot)
        await pilot.press("enter")
        await wait_for(lambda: bool(notes), pilot=pilot)
        problem = shape_problem("1727-2b7f")
        assert notes == [f"{problem[:1].upper()}{problem[1:]}."]
        assert conversations_shown(app)
