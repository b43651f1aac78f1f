"""``create_app(agents=N)`` / ``ohtui serve --agents N``: many simulated agents at once."""

from __future__ import annotations

from functools import partial

from tests.helpers.app_helpers import poll
from tui.cli import build_serve_parser, main

_until = partial(poll, timeout=30.0)  # beside the server thread


def test_the_swarm_runs_every_kind_of_status_at_once(make_server):
    server = make_server(agents=7, agent_pace=0.02)
    ids = server.app.state.swarm
    assert len(ids) == 7
    infos = [server.store.get_conversation(cid) for cid in ids]
    assert [info["title"][:9] for info in infos] == [f"Agent {i:03d}" for i in range(1, 8)]
    sandboxes = {info["sandbox_id"] for info in infos}
    assert len(sandboxes) == 7  # one each: pausing one sandbox stops one agent
    assert all(server.store.get_sandbox(s)["status"] == "RUNNING" for s in sandboxes)
    seen: set[str] = set()

    def statuses() -> bool:
        seen.update(server.live.status_sync(cid) for cid in ids)
        return {"running", "waiting_for_confirmation", "error", "stuck", "paused"} <= seen

    _until(statuses)
    cost = server.store.get_conversation(ids[0])["metrics"]["accumulated_cost"]
    assert cost > 0


def test_a_swarm_agent_goes_on_to_its_next_story(make_server):
    server = make_server(agents=2, agent_pace=0.01)
    cid = server.app.state.swarm[0]
    first = server.store.get_conversation(cid)["title"]
    _until(lambda: server.store.get_conversation(cid)["title"] != first)
    assert server.store.get_conversation(cid)["title"].startswith("Agent 001: ")


def test_serve_takes_agents():
    assert build_serve_parser().parse_args(["--agents", "20"]).agents == 20
    assert build_serve_parser().parse_args([]).agents == 0
    assert main(["serve", "--agents", "-1"]) == 2
