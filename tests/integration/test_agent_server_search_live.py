"""Search (issue 34) against the real agent server: a run followed in the app is found by
the search index while it runs, its new events added as they arrive (the fill is held
while a conversation is shown), from an index the user already has on disk."""

from __future__ import annotations

import uuid

import pytest

from tests.helpers.app_helpers import SIZE, wait_for
from tests.integration.fake_llm import Step, finish, think
from tests.integration.test_agent_server_app import WAIT, make_app, open_by_title
from tui.app.search_fill import source_of
from tui.search_index import SearchIndex, index_path, search

pytestmark = pytest.mark.xdist_group("agent-server")


async def test_a_followed_runs_new_output_is_found_while_it_runs(
    agent, fake_llm, tmp_path, monkeypatch
):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    word = f"marmot{uuid.uuid4().hex[:10]}"  # a word no other run has
    script = fake_llm.add(
        [Step("Think.", [think(f"the {word} is found")]), Step("", [finish("done")])],
        held=True,  # the run waits until the app follows it: its events come live
    )
    title = f"search live {script.rid}"
    cid = await agent.start(script, title=title)
    app = make_app(agent.server)
    SearchIndex(index_path(source_of(app))).close()  # searched before: the file is there
    async with app.run_test(size=SIZE) as pilot:
        try:
            screen = await open_by_title(app, pilot, title)
            state = screen.live.state
            await wait_for(lambda: getattr(state.connection, "state", "") == "live", WAIT, pilot)
        finally:
            script.release()

        def found() -> list[tuple[str, str]]:
            index = app.search.index
            if index is None:
                return []
            hits = search(index, word).groups
            return [(h.conversation, h.event_id) for g in hits for h in g.hits]

        await wait_for(lambda: found(), WAIT, pilot)
        stored = {e["id"]: e for e in await agent.events(cid)}
        hits = found()
        assert app.search.progress is None  # no fill ran: the stream's events came in live
        # the app names it as its record does (a UUID with dashes), the harness in hex
        assert all(conv.replace("-", "") == cid and event in stored for conv, event in hits)
        assert "ActionEvent" in {stored[event]["kind"] for _, event in hits}
