"""The app in local mode (``ohtui PATH``): no sandbox or new-conversation keys, an event count
per conversation, and conversations that appear while it runs join the list."""

from __future__ import annotations

import json

from tests.helpers.app_helpers import SIZE, conversations_shown, make_app, settled, wait_for
from tests.helpers.folder_helpers import write_folder
from tests.helpers.samples import SAMPLES
from tui.app.commands import OhtuiCommands
from tui.server import Store
from tui.server.demo import generate_conversation
from tui.server.folders import FolderStore

PERSISTED = SAMPLES / "agent-server-capture" / "persisted"


def counts_shown(screen) -> dict[str, str]:
    table = screen.query_one("DataTable")
    return {key.value: str(table.get_cell(key.value, "sandbox")) for key in table.rows}


async def test_local_mode_has_no_sandbox_keys_and_counts_events(make_server, tmp_path):
    sqlite = Store()
    first = generate_conversation(sqlite, 12, seed=1)
    write_folder(tmp_path, first, [json.loads(r.json) for r in sqlite.iter_events(first)])
    store = FolderStore(tmp_path)
    server = make_server(store)
    app = make_app(server.base_url, readonly=True, local=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        screen = app.screen
        await wait_for(lambda: counts_shown(screen) == {first: "12"}, pilot=pilot)
        assert str(screen.query_one("DataTable").columns["sandbox"].label) == "Events"
        assert (
            app.check_action("show_sandboxes", ()) is False
            and screen.check_action("new", ()) is False
        )
        await pilot.press("2", "n")
        await settled(pilot)
        assert app.screen is screen  # neither the sandboxes screen nor a new-conversation form
        names = [name for name, _, _ in OhtuiCommands(screen)._commands()]
        assert "Go to conversations" in names and "Go to sandboxes" not in names

        second = generate_conversation(sqlite, 5, seed=2)  # the agent starts another conversation
        events = [json.loads(r.json) for r in sqlite.iter_events(second)]
        folder = write_folder(tmp_path, second, events[:3])
        await screen.poll_statuses()  # what the 5-second poll does
        await wait_for(lambda: counts_shown(screen) == {first: "12", second: "3"}, pilot=pilot)
        assert next(iter(screen.query_one("DataTable").rows)).value == second  # the newest on top
        for index in (3, 4):
            (folder / "events" / f"event-{index:05d}-{events[index]['id']}.json").write_text(
                json.dumps(events[index])
            )
        await screen.poll_statuses()
        await wait_for(lambda: counts_shown(screen)[second] == "5", pilot=pilot)
    sqlite.close()


def test_snapshot_of_the_local_conversations_list(snap_compare, make_server):
    server = make_server(FolderStore(PERSISTED))

    async def run_before(pilot):
        app = pilot.app
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        await wait_for(
            lambda: (
                "…" not in "".join(counts_shown(app.screen).values())
                and len(counts_shown(app.screen)) == 5
            ),
            pilot=pilot,
        )

    assert snap_compare(
        make_app(server.base_url, readonly=True, local=True),
        run_before=run_before,
        terminal_size=SIZE,
    )


async def test_local_conversations_are_offered_beside_the_demo(demo_server, tmp_path, monkeypatch):
    from tui import cli
    from tui.app.profiles import LOCAL
    from tui.commands import profiles as made

    monkeypatch.setenv("OPENHANDS_CONVERSATIONS_DIR", str(tmp_path))
    assert cli._local_default() is None  # nothing there yet: nothing offered
    sqlite = Store()
    cid = generate_conversation(sqlite, 7, seed=3)
    write_folder(tmp_path, cid, [json.loads(r.json) for r in sqlite.iter_events(cid)])
    sqlite.close()
    assert cli._local_default() == tmp_path
    stops: list = []
    folders = made.folders_profile(made.folder_server(str(tmp_path), stops), "the folders")
    app = make_app(demo_server.base_url, profiles={LOCAL: folders})
    try:
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(lambda: conversations_shown(app), pilot=pilot)
            assert app.check_action("show_sandboxes", ()) is True and not app.local
            app.switch_profile(LOCAL)
            await wait_for(
                lambda: conversations_shown(app) and counts_shown(app.screen) == {cid: "7"},
                pilot=pilot,
            )
            assert app.local and app.readonly and app.check_action("show_sandboxes", ()) is False
    finally:
        for stop in stops:
            stop()


async def test_a_local_conversation_says_its_folder_is_watched_not_live(make_server):
    from tests.helpers.app_helpers import screen_text
    from tui.app.screens.conversation import ConversationScreen

    store = FolderStore(PERSISTED)
    server = make_server(store)
    cid = next(iter(store.logs))
    app = make_app(server.base_url, readonly=True, local=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        app.open_conversation(cid)
        await wait_for(lambda: isinstance(app.screen, ConversationScreen), pilot=pilot)
        await wait_for(lambda: "● watching the folder" in screen_text(app), pilot=pilot)
        assert "● live" not in screen_text(app)
