"""``ohtui PATH``'s folder server in a child process (``tui/server/folder_process.py``): it
serves the folder to the key made for this run on loopback names only, follows the folder as
it is written, and ends with the app however the app ends (SIGKILL included)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import httpx
import pytest
import websockets

from tests.helpers.app_helpers import poll
from tests.helpers.folder_helpers import write_folder
from tui.server import Store, generate_conversation
from tui.server.folder_process import start_folder_process

SEARCH = "/api/v1/app-conversations/search"


@pytest.fixture
def folder(tmp_path):
    sqlite = Store()
    cid = generate_conversation(sqlite, 12)
    events = [json.loads(r.json) for r in sqlite.iter_events(cid)]
    sqlite.close()
    write_folder(tmp_path, cid, events)
    return tmp_path, cid, events


def refused(base_url: str) -> bool:
    """Nothing listens on the port any more (the child, which held the socket, is gone)."""
    try:
        httpx.get(base_url + SEARCH, timeout=5)
    except httpx.TransportError:
        return True
    return False


def test_the_child_serves_the_folder_to_its_key_on_loopback_names_only(folder):
    root, cid, _ = folder
    served = start_folder_process(root)
    assert served is not None
    try:
        keyed = {"x-session-api-key": served.session_key}
        with httpx.Client(base_url=served.base_url, timeout=30) as http:
            # asked at once: the request waits in the socket's backlog while the child starts
            assert http.get(SEARCH, headers=keyed).json()["items"][0]["id"] == cid
            events = f"/api/v1/conversation/{cid}/events/search"
            assert len(http.get(events, headers=keyed).json()["items"]) == 12
            assert http.get(SEARCH).status_code == 401
            assert http.get(SEARCH, headers={"x-session-api-key": "guess"}).status_code == 401
            assert http.get(SEARCH, headers={**keyed, "host": "evil.example"}).status_code == 400
            assert http.post(f"/api/v1/app-conversations/{cid}/pause", headers=keyed).is_error
        # the key is never on the command line (a process list shows it to every user)
        assert served.session_key not in " ".join(served.process.args)
        assert served.session_key not in repr(served)
    finally:
        served.stop()
    assert served.process.returncode == 0
    assert refused(served.base_url)
    served.stop()  # twice (the app's quit, then the command's own end): harmless


async def test_the_child_follows_the_folder_as_it_is_written(folder):
    root, cid, events = folder
    served = start_folder_process(root)
    assert served is not None
    url = served.base_url.replace("http", "ws", 1) + f"/sockets/events/{cid}"
    try:
        async with websockets.connect(f"{url}?session_api_key={served.session_key}") as ws:
            assert json.loads(await ws.recv())["key"] == "full_state"
            new = dict(events[-1], id="00000000-0000-4000-8000-0000000000ff")
            name = f"event-{len(events):05d}-{new['id']}.json"
            (root / cid / "events" / name).write_text(json.dumps(new))
            while (frame := json.loads(await ws.recv())).get("id") != new["id"]:
                pass  # other frames (a status) may come first
        assert frame["id"] == new["id"]
    finally:
        served.stop()


PARENT = """
import sys
from tui.server.folder_process import start_folder_process
served = start_folder_process(sys.argv[1])
print(served.process.pid, served.base_url, served.session_key, flush=True)
sys.stdin.read()
"""


def test_the_child_ends_when_its_parent_is_killed(folder):
    """SIGKILL: no cleanup of the parent's runs (an exit or an exception closes the pipe too)."""
    root, cid, _ = folder
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT, str(root)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        child_pid, base_url, key = parent.stdout.readline().split()
        answer = httpx.get(base_url + SEARCH, headers={"x-session-api-key": key}, timeout=30)
        assert answer.json()["items"][0]["id"] == cid
        parent.send_signal(signal.SIGKILL)
        parent.wait()
        poll(lambda: refused(base_url))
        poll(lambda: not _alive(int(child_pid)))
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()


def _alive(pid: int) -> bool:
    """Running (a zombie waiting for a reaper counts as ended)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False
    except OSError:  # no /proc: ask the kernel
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True


def test_no_child_for_a_folder_without_conversations(tmp_path):
    assert start_folder_process(tmp_path / "nothing-here") is None
    assert start_folder_process(tmp_path) is None  # (ohtui PATH says so: test_folders.py)


async def test_ohtui_path_with_a_conversation_opens_it_over_the_list(folder):
    """``ohtui PATH --conversation ID``: the app's own folder server, so the open goes out
    beside the connection check; the list is under the conversation, as for any server."""
    from tests.helpers.app_helpers import SIZE, wait_for
    from tui.app.app import OhtuiApp
    from tui.app.screens.conversation import ConversationScreen
    from tui.app.screens.conversations.conversations import ConversationsScreen
    from tui.client import OpenHandsClient

    root, cid, _ = folder
    served = start_folder_process(root)
    assert served is not None
    app = OhtuiApp(
        client_factory=lambda: OpenHandsClient(
            served.base_url, session_api_key=served.session_key, server_kind="app"
        ),
        url=served.base_url,
        conversation_id=cid[:8],
        readonly=True,
        local=True,
        on_exit=served.stop,
    )
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: isinstance(app.screen, ConversationScreen), pilot=pilot)
        assert app.screen.conversation_id == cid
        assert [type(s) for s in app.screen_stack[1:]] == [ConversationsScreen, ConversationScreen]
    assert served.process.poll() is not None  # the app's exit stopped its server
