"""A web page where the API should answer: a redirect (a login proxy) or a 200 HTML page.

The client never follows a redirect (a key must not go to another origin) and says what it
got — a redirect to where, or HTML — instead of "answer cut off"; it does not try again by
itself, since a login page stays one until the user acts. The conversation screen shows the
failure where its events would be, with ``r`` to try again, instead of loading forever.
Faults come from the reference server's queue (``tui/server/faults.py``).
"""

from __future__ import annotations

import pytest

from tests.helpers.app_helpers import (
    SIZE,
    first_rows_shown,
    make_app,
    push_conversation,
    settled,
    wait_for,
)
from tui.app.screens.conversation.waiting import short_reason
from tui.app.widgets.conversation.event_list import EventList
from tui.client import NotTheAPI, OpenHandsClient, is_retryable
from tui.failures import explain
from tui.server import Store
from tui.server.demo import generate_conversation

KEY = "sk-session-NOT-THE-API-3c1f"
LOGIN = "https://login.example/sso/start?next=%2Fapi"
PAGE = "<!doctype html><html><head><title>Sign in - Acme SSO</title></head><body>…</body></html>"


def _search(cid: str) -> str:
    return f"/api/v1/conversation/{cid}/events/search"


def redirect(server, cid: str, *, times: int = 1, location: str = LOGIN) -> None:
    server.app.state.faults.add(
        "status", _search(cid), times=times, status=302, headers={"location": location}
    )


def html_page(server, cid: str, *, times: int = 1) -> None:
    server.app.state.faults.add(
        "status",
        _search(cid),
        times=times,
        status=200,
        body=PAGE,
        headers={"content-type": "text/html; charset=utf-8"},
    )


def retry_offered(screen) -> bool:
    """``r`` is in the screen's keys (and so in its key bar)."""
    return any(shown.binding.action == "retry_load" for shown in screen.active_bindings.values())


@pytest.fixture
def served(make_server):
    store = Store()
    cid = generate_conversation(store, 30, seed=3)
    return make_server(store), cid


async def test_a_redirect_is_said_with_where_it_leads_and_never_followed(served):
    server, cid = served
    redirect(server, cid, location=f"{LOGIN}&token={KEY}")
    async with OpenHandsClient(server.base_url, session_api_key=KEY, max_retries=3) as client:
        with pytest.raises(NotTheAPI) as caught:
            await client.search_events(cid)
    error = caught.value
    assert error.status == 302 and error.location.startswith("https://login.example/sso/start")
    words = str(error)
    assert "redirect to https://login.example/sso/start" in words
    assert "is the URL the API's, and are you signed in?" in words
    assert KEY not in words and KEY not in repr(error) and KEY not in error.location
    assert server.app.state.faults.hits["status"] == 1  # asked once: not repeated
    assert not is_retryable(error)
    assert short_reason(error) == "redirected (a login page?)"
    assert explain(error).title == "the server answered with a web page, not the API"


async def test_an_html_page_is_said_as_html_not_a_cut_off_answer(served):
    server, cid = served
    html_page(server, cid)
    async with OpenHandsClient(server.base_url, max_retries=3) as client:
        with pytest.raises(NotTheAPI) as caught:
            await client.search_events(cid)
        assert len((await client.search_events(cid)).items) > 0  # the fault was used once
    words = str(caught.value)
    assert "the server answered HTML, not JSON" in words and "is this the API's address?" in words
    assert "Sign in - Acme SSO" in words  # the page's own title says what it is
    assert server.app.state.faults.hits["status"] == 1
    assert short_reason(caught.value) == "a web page, not the API"


@pytest.mark.parametrize("fault", [redirect, html_page])
async def test_the_screen_says_it_instead_of_loading_forever_and_r_tries_again(served, fault):
    server, cid = served
    fault(server, cid, times=-1)
    app = make_app(server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        screen = await push_conversation(pilot, cid)
        await wait_for(lambda: screen.load_failure is not None, pilot=pilot)
        event_list = screen.query_one(EventList)
        said = event_list.empty_text
        assert said.startswith("Could not load the events: the server answered with a web page")
        assert ("signed in" if fault is redirect else "API's address") in said
        assert "r: try again" in said
        assert "Loading" not in said
        assert retry_offered(screen)
        hits = server.app.state.faults.hits["status"]
        await pilot.press("r")  # the fault is still there: the same words again
        await wait_for(lambda: server.app.state.faults.hits["status"] > hits, pilot=pilot)
        await wait_for(lambda: screen.load_failure is not None, pilot=pilot)
        assert event_list.empty_text == said
        server.app.state.faults.clear()
        await pilot.press("r")
        await wait_for(lambda: first_rows_shown(screen), pilot=pilot)
        assert screen.load_failure is None
        assert not retry_offered(screen)


@pytest.mark.parametrize("size", [(80, 24)], ids=["80x24"])
def test_snapshot_of_a_login_redirect_in_the_list(snap_compare, served, size):
    server, cid = served
    redirect(server, cid, times=-1)

    async def run_before(pilot):
        screen = await push_conversation(pilot, cid)
        await wait_for(lambda: screen.load_failure is not None, pilot=pilot)
        await settled(pilot)

    assert snap_compare(make_app(server.base_url), run_before=run_before, terminal_size=size)
