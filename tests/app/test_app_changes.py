"""The Changes view (issue 29 item 1), driven by keys against the reference server, whose demo
workspace is a real git repository: the files with their counts, the base toggle, the
commits and their files, a diff unified and side by side, the edits of a file in the
conversation and back, the patch written, a followed run refreshing it, and every failure
in words."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from tests.helpers.app_helpers import (
    FIXED_NOW,
    RecordingTransport,
    first_rows_shown,
    make_app,
    notes_told,
    push_conversation,
    screen_text,
    settled,
    wait_for,
)
from tests.helpers.workspace_helpers import applies, base_copy, need_git
from tui import __version__
from tui.app.app import OhtuiApp
from tui.app.commands import OhtuiCommands
from tui.app.screens.changes import ChangesScreen
from tui.app.screens.changes import screen as changes_screen
from tui.app.screens.conversation import ConversationScreen
from tui.app.store.row_windows import PathWindow
from tui.app.widgets.conversation.event_list import EventList
from tui.app.widgets.workspace.changes_tables import CommitsTable, FilesTable
from tui.app.widgets.workspace.diff_view import DiffView
from tui.app.workspace.diff_rows import MAX_ROWS
from tui.client import OpenHandsClient
from tui.server import Store, load_demo

NARROW, WIDE = (80, 24), (160, 48)
DEMO_FILES = [
    "README.md",
    "assets/logo.png",
    "cli/main.py",
    "docs/old-notes.md",
    "hello.py",
    "tests/test_refunds.py",
]
AGENT_KEY = "changes-agent-key-7f1c"


@pytest.fixture
def demo(make_server):
    """A demo server of its own (the tests write into its workspace)."""
    need_git()
    store = Store()
    names = load_demo(store)
    return make_server(store), names


def sandbox_of(server, status: str) -> str:
    store = server.store
    for cid in store.conversation_ids():
        sandbox = store.get_sandbox(store.get_conversation(cid)["sandbox_id"])
        if sandbox and sandbox["status"] == status:
            return cid
    raise AssertionError(f"no {status} conversation in the demo")


async def open_changes(pilot, cid: str, *, key: str = "w") -> ChangesScreen:
    """From the list, the conversation, then Changes with its files listed and counted."""
    app = pilot.app
    screen = await push_conversation(pilot, cid)
    await wait_for(lambda: first_rows_shown(screen), pilot=pilot)
    await pilot.press(key)
    await wait_for(lambda: isinstance(app.screen, ChangesScreen), pilot=pilot)
    changes = app.screen
    await wait_for(lambda: changes.changes is not None or changes.list_error, pilot=pilot)
    await settled(pilot)
    return changes


def files(changes: ChangesScreen) -> FilesTable:
    return changes.query_one("#changes-files", FilesTable)


def diff_text(changes: ChangesScreen) -> str:
    view = changes.query_one(DiffView)
    return "\n".join(view.render_line(y).text for y in range(view.size.height))


async def choose(pilot, changes: ChangesScreen, path: str) -> None:
    """The cursor to ``path`` and enter: its diff, drawn."""
    table = files(changes)
    table.focus()
    table.move_cursor(row=table.keys.index(path))
    await pilot.press("enter")
    await wait_for(
        lambda: changes.shown_path == path and changes.query_one(DiffView).diff is not None,
        pilot=pilot,
    )
    await settled(pilot)


def agent_server(make_server):
    need_git()
    store = Store()
    names = load_demo(store)
    return make_server(store, session_key=AGENT_KEY, kind="agent"), names


def agent_app(server, transport) -> OhtuiApp:
    client = OpenHandsClient(server.base_url, session_api_key=AGENT_KEY, transport=transport)
    return OhtuiApp(client, url=server.base_url, clock=lambda: FIXED_NOW)


# --- the files -----------------------------------------------------------------------------------


async def test_w_lists_the_changed_files_with_their_counts_against_the_base(demo):
    server, names = demo
    app = make_app(server.base_url)
    async with app.run_test(size=NARROW) as pilot:
        changes = await open_changes(pilot, names["hello"])
        table = files(changes)
        assert table.keys == DEMO_FILES
        assert changes.counted == {
            "README.md": (1, 1),
            "assets/logo.png": None,  # no text to count: a binary
            "cli/main.py": (4, 3),
            "docs/old-notes.md": (0, 1),
            "hello.py": (1, 0),
            "tests/test_refunds.py": (4, 0),
        }
        text = screen_text(app)
        assert "Changes · Write hello.py and run it" in text
        assert "against the server's base · 6 files +10 −5 · updated just now · live" in text
        assert "UPDATED      +4      −3  cli/main.py" in text
        assert "ADDED         —       —  assets/logo.png" in text
        # narrow: the files alone, the diff one enter away
        assert changes.pane == "files" and not changes.query_one(DiffView).display


async def test_u_shows_the_uncommitted_changes_and_says_which_base(make_server):
    server, _names = agent_server(make_server)
    transport = RecordingTransport()
    app = agent_app(server, transport)
    async with app.run_test(size=NARROW) as pilot:
        cid = next(iter(server.store.conversation_ids()))
        changes = await open_changes(pilot, cid)
        assert [q.get("ref") for q in transport.queries("/git/changes")] == [None]
        notes = notes_told(app)
        await pilot.press("u")
        await wait_for(lambda: changes.changes is not None, pilot=pilot)
        await settled(pilot)
        assert [q.get("ref") for q in transport.queries("/git/changes")] == [None, "HEAD"]
        assert all(q.get("ref") == "HEAD" for q in transport.queries("/git/diff")[-6:])
        assert "uncommitted only (against HEAD) · 6 files" in screen_text(app)
        assert notes == ["Showing the changes uncommitted only (against HEAD)."]
        await pilot.press("u")
        await wait_for(lambda: changes.changes is not None, pilot=pilot)
        await settled(pilot)
        assert transport.queries("/git/changes")[-1].get("ref") is None
        assert "against the server's base · 6 files" in screen_text(app)


# --- diffs ---------------------------------------------------------------------------------------


async def test_enter_opens_the_diff_and_esc_goes_back_one_pane_at_a_time(demo):
    server, names = demo
    app = make_app(server.base_url)
    async with app.run_test(size=NARROW) as pilot:
        changes = await open_changes(pilot, names["hello"])
        await choose(pilot, changes, "cli/main.py")
        view = changes.query_one(DiffView)
        assert changes.pane == "diff" and view.display and not view.side_by_side
        assert app.focused is view
        shown = diff_text(changes)
        assert "@@ -1,6 +1,7 @@" in shown
        assert "1   - import sys" in shown and "  1 + import argparse" in shown
        assert "cli/main.py · UPDATED · +4 −3" in screen_text(app)
        assert "unified · s: side by side" in screen_text(app)
        await pilot.press("escape")
        assert changes.pane == "files" and app.focused is files(changes)
        await pilot.press("escape")
        await wait_for(lambda: isinstance(app.screen, ConversationScreen), pilot=pilot)


async def test_side_by_side_from_160_columns_and_s_switches(demo):
    server, names = demo
    app = make_app(server.base_url)
    async with app.run_test(size=WIDE) as pilot:
        changes = await open_changes(pilot, names["hello"])
        view = changes.query_one(DiffView)
        # wide: the lists beside the diff, the first file's diff already drawn, side by side
        assert view.display and view.side_by_side and changes.shown_path == "README.md"
        await choose(pilot, changes, "cli/main.py")
        row = next(line for line in diff_text(changes).splitlines() if "import sys" in line)
        assert "- import sys" in row and "+ import argparse" in row  # one row, both sides
        await pilot.press("right", "right", "right")
        assert view.scroll_offset.x == 3  # the long lines scroll sideways, the numbers stay
        assert next(
            line for line in diff_text(changes).splitlines() if "argparse.Argument" in line
        ).startswith("5 -  args = sys.argv")
        await pilot.press("left", "left", "left")
        await pilot.press("s")
        assert not view.side_by_side
        assert "+ import argparse" not in next(
            line for line in diff_text(changes).splitlines() if "import sys" in line
        )
        # the choice holds for the conversation: w opens it unified next time
        await pilot.press("escape", "escape")
        await wait_for(lambda: isinstance(app.screen, ConversationScreen), pilot=pilot)
        await pilot.press("w")
        await wait_for(lambda: isinstance(app.screen, ChangesScreen), pilot=pilot)
        again = app.screen
        await wait_for(lambda: again.shown_path == "cli/main.py", pilot=pilot)
        assert not again.query_one(DiffView).side_by_side


async def test_brackets_walk_the_files_and_the_diff_follows(demo):
    server, names = demo
    app = make_app(server.base_url)
    async with app.run_test(size=NARROW) as pilot:
        changes = await open_changes(pilot, names["hello"])
        await choose(pilot, changes, "README.md")
        await pilot.press("right_square_bracket")
        await wait_for(lambda: changes.shown_path == "assets/logo.png", pilot=pilot)
        await settled(pilot)
        assert "The server gives no text for this file" in diff_text(changes)
        await pilot.press("right_square_bracket", "right_square_bracket")
        await wait_for(lambda: changes.shown_path == "docs/old-notes.md", pilot=pilot)
        await settled(pilot)
        assert "1   - Notes nobody reads." in diff_text(changes)
        await pilot.press("left_square_bracket")
        await wait_for(lambda: changes.shown_path == "cli/main.py", pilot=pilot)
        assert changes.pane == "diff"


async def test_a_diff_longer_than_the_bound_says_what_it_left_out(demo):
    server, names = demo
    root = server.store.workspace.root
    (root / "big.txt").write_text("".join(f"line {n}\n" for n in range(3_000)))
    app = make_app(server.base_url)
    async with app.run_test(size=NARROW) as pilot:
        changes = await open_changes(pilot, names["hello"])
        assert changes.counted["big.txt"] == (3_000, 0)
        await choose(pilot, changes, "big.txt")
        view = changes.query_one(DiffView)
        assert len(view.diff.rows) == MAX_ROWS
        await pilot.press("G")
        await settled(pilot)
        assert "… 1,001 more diff lines not shown (the patch holds them all)" in diff_text(changes)


async def test_file_contents_are_shown_literally_and_masked(demo):
    server, names = demo
    root = server.store.workspace.root
    token = "sk-" + "q7W2" * 10
    (root / "notes.md").write_text(f"[bold]x[/bold] \x1b]52;c;cHduZWQ=\x07\nKEY={token}\n")
    app = make_app(server.base_url)
    async with app.run_test(size=WIDE) as pilot:
        changes = await open_changes(pilot, names["hello"])
        await choose(pilot, changes, "notes.md")
        shown = diff_text(changes)
        assert "[bold]x[/bold] ␛]52;c;cHduZWQ=␇" in shown
        assert token not in screen_text(app) and "KEY=" in shown


# --- commits -------------------------------------------------------------------------------------


async def test_the_commits_and_a_commits_files_and_diffs(make_server):
    server, _names = agent_server(make_server)
    transport = RecordingTransport()
    app = agent_app(server, transport)
    async with app.run_test(size=NARROW) as pilot:
        cid = next(iter(server.store.conversation_ids()))
        changes = await open_changes(pilot, cid)
        await pilot.press("c")
        commits = changes.query_one("#changes-commits", CommitsTable)
        assert changes.pane == "commits" and app.focused is commits
        assert [c.subject for c in commits.commits.values()] == [
            "Refunds: round to cents",
            "Initial commit",
        ]
        assert "Commits · 2" in screen_text(app)
        newest = next(iter(commits.commits))
        await pilot.press("enter")
        await wait_for(lambda: changes.changes is not None, pilot=pilot)
        await settled(pilot)
        assert files(changes).keys == ["src/payments/refunds.py"]
        assert changes.counted == {"src/payments/refunds.py": (2, 1)}
        said = "commit 006c24e · Refunds: round to cents · Demo Agent · 1 file +2 −1"
        await wait_for(lambda: said in screen_text(app), pilot=pilot)
        text = screen_text(app)
        assert "Files of 006c24e · 1" in text and "esc: the working tree" in text
        await pilot.press("enter")
        await wait_for(lambda: changes.shown_path == "src/payments/refunds.py", pilot=pilot)
        await settled(pilot)
        assert transport.queries("/git/diff")[-1]["commit"] == newest
        assert '+     """The amount paid back, in cents."""' in diff_text(changes)
        # esc: the commit's files, the commits, the working tree's files, the conversation
        await pilot.press("escape")
        assert changes.pane == "files" and changes.source.commit is not None
        await pilot.press("escape")
        assert changes.pane == "commits" and changes.source.commit is None
        await pilot.press("escape")
        assert changes.pane == "files"
        await wait_for(lambda: files(changes).keys == DEMO_FILES, pilot=pilot)
        await pilot.press("escape")
        await wait_for(lambda: isinstance(app.screen, ConversationScreen), pilot=pilot)


# --- the conversation and Changes ----------------------------------------------------------------


async def test_e_lists_the_events_that_edited_the_file_and_esc_all_again(demo):
    server, names = demo
    app = make_app(server.base_url)
    async with app.run_test(size=NARROW) as pilot:
        changes = await open_changes(pilot, names["hello"])
        notes = notes_told(app)
        await choose(pilot, changes, "hello.py")
        await pilot.press("e")
        await wait_for(lambda: isinstance(app.screen, ConversationScreen), pilot=pilot)
        conversation = app.screen
        await wait_for(lambda: isinstance(conversation.window, PathWindow), pilot=pilot)
        window = conversation.window
        assert window.what == "edits" and window.label == "hello.py"
        assert [row.summary for row in window.rows] == [
            "create /workspace/project/hello.py",
            "str_replace /workspace/project/hello.py",
        ]
        assert "Events · edits: hello.py · 2" in screen_text(app)
        assert notes[-1] == "2 event(s) edited hello.py: esc shows all events again."
        await pilot.press("escape")
        await wait_for(lambda: not isinstance(conversation.window, PathWindow), pilot=pilot)


async def test_e_on_a_file_no_event_edited_says_so(demo):
    server, names = demo
    app = make_app(server.base_url)
    async with app.run_test(size=NARROW) as pilot:
        changes = await open_changes(pilot, names["hello"])
        notes = notes_told(app)
        await choose(pilot, changes, "README.md")
        await pilot.press("e")
        await wait_for(lambda: notes, pilot=pilot)
        assert notes[-1].startswith("No file edit of this conversation changed README.md")
        assert not isinstance(app.screen.window, PathWindow)


async def test_W_on_a_file_edit_opens_its_diff_and_elsewhere_says_why(demo):
    server, names = demo
    app = make_app(server.base_url)
    async with app.run_test(size=NARROW) as pilot:
        conversation = await push_conversation(pilot, names["hello"])
        await wait_for(lambda: first_rows_shown(conversation), pilot=pilot)
        notes = notes_told(app)
        await pilot.press("W")  # where it opens: the first user message
        await wait_for(lambda: notes, pilot=pilot)
        assert notes == ["This event edits no file: W works on a file edit (w shows every change)."]
        event_list = conversation.query_one(EventList)
        window = conversation.window
        edit = next(
            n
            for n in range(len(window))
            if window.row(n).summary.startswith("create /workspace/project/hello.py")
        )
        event_list.cursor = edit
        await pilot.press("W")
        await wait_for(lambda: isinstance(app.screen, ChangesScreen), pilot=pilot)
        changes = app.screen
        await wait_for(lambda: changes.shown_path == "hello.py", pilot=pilot)
        await settled(pilot)
        assert changes.pane == "diff" and '1 + print("hello")' in diff_text(changes)


async def test_the_palette_offers_changes_in_a_conversation(demo):
    server, names = demo
    app = make_app(server.base_url)
    async with app.run_test(size=NARROW) as pilot:
        conversation = await push_conversation(pilot, names["hello"])
        await wait_for(lambda: first_rows_shown(conversation), pilot=pilot)
        provider = OhtuiCommands(conversation)
        found = {name: callback for name, callback, _help in provider._commands()}
        assert "Changes" in found
        found["Changes"]()
        await wait_for(lambda: isinstance(app.screen, ChangesScreen), pilot=pilot)


async def test_a_shared_conversation_has_no_changes_to_show(demo_server):
    app = make_app(demo_server.base_url, conversation_id=demo_server_ids()["hello"], shared=True)
    async with app.run_test(size=NARROW) as pilot:
        await wait_for(lambda: isinstance(app.screen, ConversationScreen), pilot=pilot)
        conversation = app.screen
        await wait_for(lambda: first_rows_shown(conversation), pilot=pilot)
        notes = notes_told(app)
        await pilot.press("w")
        await wait_for(lambda: notes, pilot=pilot)
        assert notes == ["A shared conversation has no workspace to show."]
        assert not isinstance(app.screen, ChangesScreen)
        names = [name for name, _callback, _help in OhtuiCommands(conversation)._commands()]
        assert "Changes" not in names


def demo_server_ids() -> dict[str, str]:
    return load_demo(Store())


# --- the patch -----------------------------------------------------------------------------------


async def test_ctrl_s_writes_the_patch_beside_the_others_and_says_where(
    demo, tmp_path: Path, monkeypatch
):
    server, names = demo
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ohtui-e268b884-changes.patch").write_text("someone else's")
    app = make_app(server.base_url)
    async with app.run_test(size=NARROW) as pilot:
        await open_changes(pilot, names["hello"])
        await pilot.press("u")  # uncommitted only: the patch is made against HEAD
        await settled(pilot)
        notes = notes_told(app)
        await pilot.press("ctrl+s")
        await wait_for(lambda: notes, pilot=pilot)
        await settled(pilot)
    written = tmp_path / "ohtui-e268b884-changes-2.patch"
    assert (tmp_path / "ohtui-e268b884-changes.patch").read_text() == "someone else's"
    root = server.store.workspace.root
    head = (root / ".git" / "refs" / "heads" / "main").read_text().strip()
    assert notes[-1].splitlines() == [
        f"Wrote 6 file(s) to {written}: the server's patch, against {head}",
        f"  workspace: main at {head[:12]}",
        f"  apply it in a checkout of /workspace/project: git apply {written}",
    ]
    assert oct(os.stat(written).st_mode & 0o777) == "0o600"
    checkout = base_copy(root, head, tmp_path / "base")
    result = applies(checkout, written.read_bytes())
    assert result.returncode == 0, result.stderr


async def test_a_patch_with_a_secret_is_written_exactly_and_said(demo, tmp_path, monkeypatch):
    server, names = demo
    monkeypatch.chdir(tmp_path)
    token = "sk-" + "a1B2" * 10
    (server.store.workspace.root / ".env").write_text(f"OPENAI_API_KEY={token}\n")
    app = make_app(server.base_url)
    async with app.run_test(size=NARROW) as pilot:
        await open_changes(pilot, names["hello"])
        notes = notes_told(app)
        await pilot.press("ctrl+s")
        await wait_for(lambda: notes, pilot=pilot)
        assert token not in screen_text(app)
    assert "it holds text shaped like a secret" in notes[-1] and token not in notes[-1]
    assert f"+OPENAI_API_KEY={token}" in (tmp_path / "ohtui-e268b884-changes.patch").read_text()


# --- a followed run ------------------------------------------------------------------------------


async def test_a_followed_run_refreshes_changes_after_commands(live_server, monkeypatch):
    need_git()
    monkeypatch.setattr(changes_screen, "REFRESH_AFTER_S", 0.05)
    server, names = live_server()
    cid = names["confirm"]  # waits for approval of a command
    app = make_app(server.base_url)
    async with app.run_test(size=NARROW) as pilot:
        conversation = await push_conversation(pilot, cid)
        await wait_for(
            lambda: conversation.live is not None and conversation.live.waiting_for_confirmation,
            pilot=pilot,
        )
        await pilot.press("A")
        await wait_for(lambda: not conversation.live.waiting_for_confirmation, pilot=pilot)
        await pilot.press("w")
        await wait_for(lambda: isinstance(app.screen, ChangesScreen), pilot=pilot)
        changes = app.screen
        await wait_for(lambda: changes.changes is not None, pilot=pilot)
        assert "notes.txt" not in files(changes).keys
        # what the command changes on disk, then the run's events: the view reads again
        (server.store.workspace.root / "notes.txt").write_text("made by the run\n")
        await asyncio.to_thread(server.live.run_until_idle_sync, cid)
        await wait_for(lambda: "notes.txt" in files(changes).keys, pilot=pilot)
        await wait_for(lambda: "updated just now · live" in screen_text(app), pilot=pilot)


async def test_r_reads_the_workspace_again(demo):
    server, names = demo
    app = make_app(server.base_url)
    async with app.run_test(size=NARROW) as pilot:
        changes = await open_changes(pilot, names["hello"])
        (server.store.workspace.root / "later.py").write_text("x = 1\n")
        await pilot.press("r")
        await wait_for(lambda: "later.py" in files(changes).keys, pilot=pilot)
        await settled(pilot)
        assert changes.counted["later.py"] == (1, 0)


async def test_a_refresh_that_fails_keeps_the_files_and_says_why(demo):
    server, names = demo
    cid = names["hello"]
    app = make_app(server.base_url)
    async with app.run_test(size=NARROW) as pilot:
        changes = await open_changes(pilot, cid)
        for route in (f"/api/conversations/{cid}/git/changes", "/api/git/changes"):
            server.app.state.faults.add(
                "status", route, times=-1, status=400, body='{"detail": "index.lock exists"}'
            )
        await pilot.press("r")
        await wait_for(lambda: changes.list_error, pilot=pilot)
        await settled(pilot)
        assert files(changes).keys == DEMO_FILES and files(changes).display
        assert "Not read again: Index.lock exists (HTTP 400)" in screen_text(app)


# --- failures in words ---------------------------------------------------------------------------


async def test_a_paused_sandbox_says_to_resume_it(demo):
    server, _names = demo
    app = make_app(server.base_url)
    async with app.run_test(size=NARROW) as pilot:
        changes = await open_changes(pilot, sandbox_of(server, "PAUSED"))
        said = (
            "The conversation's sandbox is paused: resume it (r on the sandboxes screen), "
            "then try again."
        )
        assert changes.list_error == said
        assert "resume it (r on the sandboxes screen)" in screen_text(app)


async def test_a_route_this_server_lacks_is_named_with_its_version(make_server):
    server, _names = agent_server(make_server)
    cid = next(iter(server.store.conversation_ids()))
    for route in (f"/api/conversations/{cid}/git/commits", "/api/git/commits"):
        server.app.state.faults.add(
            "status", route, times=-1, status=404, body='{"detail": "Not Found"}'
        )
    app = agent_app(server, None)
    async with app.run_test(size=NARROW) as pilot:
        changes = await open_changes(pilot, cid)
        await wait_for(lambda: changes.commits_error, pilot=pilot)
        assert changes.commits_error == (
            f"The agent server at {server.base_url} (OpenHands Agent Server "
            f"ohtui-reference-{__version__}) has no commit history (/api/git/commits)"
        )
        await pilot.press("c")
        assert "has no commit history" in screen_text(app)
        assert files(changes).keys == DEMO_FILES  # the files are there all the same


async def test_a_server_error_is_said_in_its_own_words(demo):
    server, names = demo
    cid = names["hello"]
    for route in (f"/api/conversations/{cid}/git/diff", "/api/git/diff"):
        server.app.state.faults.add(
            "status", route, times=-1, status=400, body='{"detail": "File too large for git diff"}'
        )
    app = make_app(server.base_url)
    async with app.run_test(size=NARROW) as pilot:
        changes = await open_changes(pilot, cid)
        assert set(changes.counted.values()) == {"—"}
        await choose_failing(pilot, changes, "cli/main.py")
        assert "No diff of cli/main.py: File too large for git diff (HTTP 400)" in diff_text(
            changes
        )


async def choose_failing(pilot, changes: ChangesScreen, path: str) -> None:
    table = files(changes)
    table.move_cursor(row=table.keys.index(path))
    await pilot.press("enter")
    await wait_for(lambda: "No diff of" in changes.query_one(DiffView).message, pilot=pilot)


async def test_a_folder_in_no_git_repository_is_said(make_server, monkeypatch):
    from tui.server import workspace_demo

    monkeypatch.setattr(workspace_demo, "git_available", lambda: False)
    store = Store()
    names = load_demo(store)
    server = make_server(store)
    app = make_app(server.base_url)
    async with app.run_test(size=NARROW) as pilot:
        changes = await open_changes(pilot, names["hello"])
        await wait_for(lambda: changes.commits_page is not None, pilot=pilot)
        await settled(pilot)
        assert (
            "No changes and no commits: /workspace/project is not a git repository"
            in screen_text(app)
        )
