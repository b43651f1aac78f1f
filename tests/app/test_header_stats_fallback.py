"""The header's cost and tokens when the record has none (a paused app-server conversation's
record says 0; generated conversations have no metrics): the newest stats among the loaded
events, never a guess."""

from __future__ import annotations

from tests.helpers.app_helpers import SIZE, make_app, screen_ready, wait_for
from tui.app.format import money
from tui.app.screens.conversation import ConversationScreen
from tui.app.widgets.conversation.conversation_header import ConversationHeader
from tui.client.stream_state import stats_totals
from tui.server import Store, generate_conversation
from tui.server.demo.generated import generate_events


def _expected(n: int, seed: int) -> tuple[float, int]:
    stats = [e for e in generate_events(n, seed=seed) if e.get("key") == "stats"]
    newest = max(stats, key=lambda e: e["timestamp"])
    cost, prompt, completion = stats_totals(newest["value"])
    return cost, prompt + completion


async def test_the_header_takes_the_newest_stats_of_the_events(make_server):
    store = Store()
    cid = generate_conversation(store, 60, seed=11, title="No metrics in the record")
    cost, used = _expected(60, 11)
    assert cost > 0  # generated stats carry a cost (no token counts)
    server = make_server(store)
    app = make_app(server.base_url, conversation_id=cid)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: screen_ready(app, ConversationScreen), pilot=pilot)
        header = app.screen.query_one(ConversationHeader)
        await wait_for(lambda: app.screen.events.base.complete, pilot=pilot)
        await wait_for(lambda: f"cost {money(cost)}" in str(header.render()), pilot=pilot)
        assert app.screen.events.newest_stats[1:] == (cost, used)
