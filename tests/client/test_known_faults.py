"""A server fault with a known cause is shown in the server's own words with what to do
(issue 28.3): the real agent server answers 500 "Fernet key must be 32 url-safe
base64-encoded bytes" when its cryptography is too new for its SDK. The reference server
answers that 500 here, as the real one does, to the real POST the app sends."""

from __future__ import annotations

import json

import pytest

from tests.helpers.app_helpers import FIXED_NOW, conversations_shown, screen_text, settled, wait_for
from tui.app.app import OhtuiApp
from tui.app.screens.dialogs.new_conversation import NewConversationScreen
from tui.client import OpenHandsClient
from tui.client.errors import ServerError
from tui.failures import FERNET_ADVICE, explain, known_fault
from tui.server import Store, load_demo

KEY = "known-fault-key"
AGENT = {"kind": "Agent", "llm": {"model": "openai/fake-model"}, "tools": [{"name": "terminal"}]}
FERNET = "Fernet key must be 32 url-safe base64-encoded bytes."
#: what the real agent server 1.58.2 answered (cryptography 51, a session key whose SHA-256 in
#: base64 has a "+"): its detail only repeats the status, its words are in "exception"
EXCEPTION = (
    "Error serializing to JSON: PydanticSerializationError: Error calling function "
    f"`_serialize_secrets`: ValueError: {FERNET}"
)
REAL_BODY = {
    "detail": "Internal Server Error",
    "exception": EXCEPTION,
    "error_id": "58fc2ce62e0c4acb93c229c07aaef0ff",
}


def fernet_server(make_server):
    store = Store()
    load_demo(store)
    server = make_server(store, session_key=KEY, kind="agent")
    server.app.state.faults.add(
        "status",
        "/api/conversations",
        status=500,
        body=json.dumps(REAL_BODY),
        methods=("POST",),
        times=-1,
    )
    return server


def agent_app(server) -> OhtuiApp:
    client = OpenHandsClient(server.base_url, session_api_key=KEY, agent_settings=AGENT)
    return OhtuiApp(client, url="http://127.0.0.1:18010", clock=lambda: FIXED_NOW)


async def start_one(app, pilot) -> NewConversationScreen:
    await wait_for(lambda: conversations_shown(app), pilot=pilot)
    await pilot.press("n")
    await wait_for(lambda: isinstance(app.screen, NewConversationScreen), pilot=pilot)
    dialog = app.screen
    await pilot.press(*"Fix it", "enter", *"go", "enter")
    await wait_for(lambda: dialog.progress is not None and dialog.progress.done, pilot=pilot)
    await settled(pilot)
    return dialog


def test_the_fault_is_known_by_its_words_only():
    assert known_fault(f"POST /api/conversations -> 500: {FERNET}") == FERNET_ADVICE
    assert known_fault("FERNET KEY MUST BE 32 URL-SAFE BASE64-ENCODED BYTES") == FERNET_ADVICE
    assert known_fault("no capacity for a new sandbox") == ""


def test_a_command_explains_it_with_the_fix():
    exc = ServerError(
        f"POST http://h/api/conversations -> 500 Internal Server Error: {FERNET}",
        status=500,
        detail=FERNET,
    )
    failure = explain(exc)
    assert failure.title == "the server failed (500)"
    assert FERNET in failure.detail
    assert "cryptography<51" in failure.next_step and "OH_SECRET_KEY" in failure.next_step
    other = explain(ServerError("GET /x -> 500 Internal Server Error", status=500))
    assert other.next_step.startswith("try again")


async def test_a_new_conversation_says_the_servers_words_and_what_to_do(make_server):
    server = fernet_server(make_server)
    app = agent_app(server)
    async with app.run_test(size=(100, 30)) as pilot:
        dialog = await start_one(app, pilot)
        progress = dialog.progress
        assert progress.error == EXCEPTION + " (HTTP 500)"
        assert progress.advice == FERNET_ADVICE
        shown = dialog.query_one("#new-progress").render().plain
        assert FERNET in shown and "Next: the server's cryptography" in shown
        assert "pin cryptography<51" in " ".join(shown.split())
        assert app.screen is dialog  # left open: the user reads it
        assert server.app.state.faults.hits["status"] == 1  # said at once, not repeated
        assert "500" in screen_text(app) and "Internal Server Error" not in shown


@pytest.mark.parametrize("size", [(80, 24)], ids=["80x24"])
def test_snapshot_of_the_known_fault(snap_compare, make_server, size):
    server = fernet_server(make_server)

    async def run_before(pilot):
        await start_one(pilot.app, pilot)

    assert snap_compare(agent_app(server), run_before=run_before, terminal_size=size)


def test_the_agent_servers_500_is_read_for_its_exception_and_error_id():
    import httpx

    from tui.client.status_errors import status_error

    response = httpx.Response(500, json=REAL_BODY)
    error = status_error(response, "POST", "http://h/api/conversations", str, lambda d: d)
    assert isinstance(error, ServerError)
    assert error.detail == EXCEPTION and error.error_id == REAL_BODY["error_id"]
    assert str(error).endswith(f"{EXCEPTION} (error id {REAL_BODY['error_id']})")
    plain = status_error(
        httpx.Response(500, json={"detail": "database locked"}), "GET", "u", str, lambda d: d
    )
    assert plain.detail == "database locked" and plain.error_id is None


async def test_a_read_answered_so_is_still_repeated(make_server):
    server = make_server(Store(), session_key=KEY, kind="agent")
    server.app.state.faults.add(
        "status", "/api/conversations/search", status=500, body=json.dumps(REAL_BODY), times=1
    )
    client = OpenHandsClient(server.base_url, session_api_key=KEY)
    try:
        await client.search_conversations(limit=5)  # the second try answers
    finally:
        await client.aclose()
    assert server.app.state.faults.hits["status"] == 1
