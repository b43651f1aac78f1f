"""What trying ohtui against the real servers found (REALCHECK.md), each pinned here:
fields of a dialog typed in one burst, a failed export writing nothing, a title the real
app server overwrites after the start."""

from __future__ import annotations

import asyncio
import json
import os

from textual import events
from textual.widgets import Input

from tests.helpers.app_helpers import SIZE, conversations_shown, make_app, screen_ready, wait_for
from tui.app.screens.conversation import ConversationScreen
from tui.app.screens.conversation.filter_dialog import FilterDialog
from tui.app.screens.dialogs import new_conversation
from tui.app.screens.dialogs.new_conversation import NewConversationScreen
from tui.cli import main
from tui.server import Store, load_demo
from tui.server.demo import generate_conversation

IDS = load_demo(Store())


def _type_at_once(app, *keys: str) -> None:
    """Keys as a fast typist (or tmux send-keys) sends them: all queued before any is handled."""
    names = {" ": "space", "-": "minus", ":": "colon"}
    for key in keys:
        if len(key) == 1:
            app.post_message(events.Key(names.get(key, key), key))
        else:
            app.post_message(events.Key(key, None))


async def test_the_new_conversation_fields_typed_in_one_burst(demo_server):
    """Title, tab, message typed at once: each field gets its own text (before, the message
    went into the title: the focus moved only after the queued keys were typed)."""
    app = make_app(demo_server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        await pilot.press("n")
        await wait_for(lambda: screen_ready(app, NewConversationScreen), pilot=pilot)
        dialog = app.screen
        title = dialog.query_one("#new-title", Input)
        message = dialog.query_one("#new-message", Input)
        await wait_for(lambda: app.focused is title, pilot=pilot)
        _type_at_once(app, *"abc", "tab", *"def")
        await wait_for(lambda: message.value == "def", pilot=pilot)
        assert title.value == "abc"
        _type_at_once(app, "shift+tab", *"x")
        # the focus is back in the title (which selects its text: x replaces it)
        await wait_for(lambda: title.value == "x", pilot=pilot)
        assert message.value == "def"
        title.value = ""
        message.value = ""
        _type_at_once(app, *"T", "enter", *"M")  # enter in the title goes on to the message
        await wait_for(lambda: message.value == "M", pilot=pilot)
        assert title.value == "T" and app.screen is dialog
        await pilot.press("escape")
        await wait_for(lambda: conversations_shown(app), pilot=pilot)


async def test_the_filter_dialog_fields_typed_in_one_burst(demo_server):
    app = make_app(demo_server.base_url, conversation_id=IDS["hello"])
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: isinstance(app.screen, ConversationScreen), pilot=pilot)
        await pilot.press("f")
        await wait_for(lambda: screen_ready(app, FilterDialog), pilot=pilot)
        dialog = app.screen
        since = dialog.query_one("#filter-since", Input)
        until = dialog.query_one("#filter-until", Input)
        _type_at_once(app, "tab", *"2026", "tab", *"2027")
        await wait_for(lambda: until.value == "2027", pilot=pilot)
        assert since.value == "2026"
        await pilot.press("escape")


def test_a_failed_export_writes_nothing_to_stdout(make_server, tmp_path, monkeypatch, capsys):
    """``ohtui export ID --shared`` against a self-hosted app server (no shared route) said
    so on stderr, but stdout already held the transcript's header."""
    for name in list(os.environ):
        if name.startswith("OHTUI_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    server = make_server()
    cid = generate_conversation(server.store, 5, seed=1)
    server.app.state.faults.add(
        "status", "/api/shared-events", times=-1, status=404, body='{"detail":"Not Found"}'
    )
    assert main(["export", cid, "--shared", "--url", server.base_url]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert "does not share conversations" in err
    assert main(["export", cid, "--url", server.base_url]) == 0  # the header still heads it
    assert capsys.readouterr().out.startswith("# ")


async def test_a_title_the_app_server_replaces_after_the_start_is_set_again(
    make_server, monkeypatch
):
    """The real app server ignores the title at creation (ohtui sets it at READY), then its
    set-title callback writes the agent's own title a few seconds later: ohtui sets the typed
    title again. The server's late title is done here by the test, on the server's store."""
    monkeypatch.setattr(new_conversation, "TITLE_CHECK_S", 0.05)
    monkeypatch.setattr(new_conversation, "TITLE_CHECKS", 400)
    store = Store()
    load_demo(store)
    server = make_server(store, start_delay=0.1, ignore_start_title=True)
    app = make_app(server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        await pilot.press("n")
        await wait_for(lambda: screen_ready(app, NewConversationScreen), pilot=pilot)
        app.screen.query_one("#new-title", Input).value = "typed title"
        await pilot.press("ctrl+s")
        await wait_for(lambda: isinstance(app.screen, ConversationScreen), pilot=pilot)
        cid = app.screen.conversation_id

        def title() -> str | None:
            return (store.get_conversation(cid) or {}).get("title")

        await wait_for(lambda: title() == "typed title", pilot=pilot)  # applied at READY
        record = store.get_conversation(cid)
        store.put_conversation({**record, "title": "Fake: the agent's own title"})
        await wait_for(lambda: title() == "typed title", pilot=pilot)  # and again


def _stats_state(cid: str, status: str, prompt: int) -> str:
    """A ``base_state.json`` as the agent server writes it: status and accumulated stats."""
    usage = {"prompt_tokens": prompt, "completion_tokens": 10}
    metrics = {"model_name": "m", "accumulated_cost": 0.0, "accumulated_token_usage": usage}
    stats = {"usage_to_metrics": {"agent": metrics}}
    return json.dumps({"id": cid, "execution_status": status, "stats": stats})


async def test_a_folder_status_change_carries_the_stats_of_now(make_server, tmp_path):
    """Following a local folder of the real agent server (the ``pause`` scenario), the header
    said 13.8k tokens, then 440 when the run finished: the ``full_state`` sent for the new
    status carried the stats of when following began."""
    from tests.helpers.folder_helpers import write_folder
    from tests.server.test_folder_watch import agent_events, subscribe, wait_ready
    from tui.server.folder_watch import start_following
    from tui.server.folders import FolderStore

    cid, events = agent_events(6, seed=3)
    folder = write_folder(
        tmp_path, cid, events, state=json.loads(_stats_state(cid, "running", 400))
    )
    store = FolderStore(tmp_path)
    server = make_server(store)
    await wait_ready(start_following(server, store, poll_s=3600.0, sweep_s=3600.0))
    ws = await subscribe(server, store, cid)
    try:
        first = json.loads(await asyncio.wait_for(ws.recv(), 5))
        assert first["key"] == "full_state"
        (folder / "base_state.json").write_text(_stats_state(cid, "finished", 13_000))

        async def next_state() -> dict:
            while True:
                frame = json.loads(await ws.recv())
                if frame.get("key") == "full_state":
                    return frame["value"]

        value = await asyncio.wait_for(next_state(), 10)
        assert value["execution_status"] == "finished"
        usage = value["stats"]["usage_to_metrics"]["agent"]["accumulated_token_usage"]
        assert usage["prompt_tokens"] == 13_000
    finally:
        await ws.close()


async def test_ctrl_s_heads_the_transcript_as_ohtui_export_does(demo_server, tmp_path, monkeypatch):
    """The app's export had no Created / Model lines under the title; ``ohtui export`` had."""
    monkeypatch.chdir(tmp_path)
    app = make_app(demo_server.base_url, conversation_id=IDS["hello"])
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: isinstance(app.screen, ConversationScreen), pilot=pilot)
        screen = app.screen
        await wait_for(lambda: screen.conversation is not None, pilot=pilot)
        await pilot.press("ctrl+s")
        target = tmp_path / f"ohtui-{IDS['hello'][:8]}-steps.md"  # the view shown: its steps
        await wait_for(target.exists, pilot=pilot)
        head = target.read_text(encoding="utf-8").split("\n\n")[1]
    assert f"- Conversation: `{IDS['hello']}`" in head
    assert "- Created: 20" in head and "- Model: " in head
