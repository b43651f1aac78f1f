"""The board's actions on rows: pause/run, interrupt, approve/reject, pause the sandbox.

Each talks to the row's own server with the calls the conversation screen uses (the agent
server of the conversation through ``AgentServerClient``, the app server's sandbox route);
several rows are acted on at once, and what failed is said per row, never hidden behind
the ones that worked.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tui.app.board.fold import pending_actions
from tui.app.board.row import BoardRow
from tui.app.board.sources import Source
from tui.app.format import status_value
from tui.app.store.action_index import Risk
from tui.app.store.rows import RISK_ORDER, risk_text, summarize
from tui.failures import explain
from tui.models import events as ev
from tui.text import one_line

if TYPE_CHECKING:
    from tui.client import AgentServerClient

#: A run asked for right after a pause gets 409 "already running" for about 1.4 s on the
#: real server, while the agent stops: asked again this many times, this far apart.
RUN_RETRIES = 5
RUN_RETRY_S = 0.5
#: Events read to find the action a conversation waits on.
PENDING_TAIL = 40


class StillStopping(Exception):
    """The agent was asked to run while it is still stopping."""


@dataclass
class Outcome:
    row: BoardRow
    error: str | None = None  # what went wrong, in words (None: done)


def toggle_verb(row: BoardRow) -> str:
    """``pause`` for a row whose agent runs, ``run`` for any other."""
    return "pause" if row.status == "running" else "run"


def toggle_words(rows: Sequence[BoardRow]) -> str:
    """What pause/run did, said before the rows' statuses move on."""
    verbs = {toggle_verb(row) for row in rows}
    if verbs == {"pause"}:
        return "Pause asked (takes effect between steps)"
    return "Running" if verbs == {"run"} else "Paused or ran"


def run_question(runs: Sequence[BoardRow], names: str, paused: int) -> str:
    """Asked before ``runs`` (agents not running, ``names`` one a line) are run: each run
    calls the model again and costs money. ``paused``: running ones paused meanwhile."""
    if len(runs) == 1:
        status = (runs[0].status or "stopped").replace("_", " ")
        question = f"Run this agent again? It is {status}.\n{names}It starts a new, paid run."
    else:
        question = f"Run these {len(runs)} agents again?\n{names}Each starts a new, paid run."
    if paused:
        question += f"\nThe {paused} running one{'s are' if paused > 1 else ' is'} paused."
    return question


def _agent(source: Source, row: BoardRow) -> AgentServerClient:
    from tui.client import AgentServerClient

    assert source.client is not None
    return AgentServerClient.for_conversation(source.client.base_url, row.conversation)


async def control(source: Source, row: BoardRow, verb: str) -> None:
    """``pause``, ``run`` or ``interrupt`` the row's agent."""
    from tui.client import Conflict

    agent = _agent(source, row)
    try:
        if verb != "run":
            await getattr(agent, verb)()
            return
        for attempt in range(RUN_RETRIES):
            try:
                await agent.run()
                return
            except Conflict:
                if attempt == RUN_RETRIES - 1:
                    raise StillStopping("the agent is still stopping: try again") from None
                await asyncio.sleep(RUN_RETRY_S)
    finally:
        await agent.aclose()


async def respond(source: Source, row: BoardRow, accept: bool, reason: str = "") -> None:
    agent = _agent(source, row)
    try:
        if accept or not reason:
            await agent.respond_to_confirmation(accept)
        else:
            await agent.respond_to_confirmation(False, reason)
    finally:
        await agent.aclose()


async def pause_sandbox(source: Source, row: BoardRow) -> None:
    from tui.client import ServerKind, Unsupported

    client = source.client
    assert client is not None and row.conversation is not None
    if client.kind == ServerKind.AGENT:
        raise Unsupported("a bare agent server has no sandboxes to pause")
    await client.pause_sandbox(row.conversation.sandbox_id)


async def waiting_actions(source: Source, row: BoardRow) -> list[tuple[str, Risk | None]]:
    """What the row's agent waits to run, one line each, with its risk: the security
    analyzer's newest verdict, else the agent's own estimate, else None (empty: it waits
    on nothing)."""
    client = source.client
    assert client is not None
    page = await client.search_events(
        row.conversation_id, sort_order="TIMESTAMP_DESC", limit=PENDING_TAIL
    )
    return [
        (one_line(summarize(event), 300), risk_of(event, page.items))
        for event in pending_actions(page.items)
    ]


def risk_of(action: object, newest_first: Sequence[object]) -> Risk | None:
    """The action's risk as the conversation screen's confirmation bar says it."""
    action_id = getattr(action, "id", None)
    for event in newest_first:
        if isinstance(event, ev.SecurityAnalysisEvent) and action_id in event.risks:
            return Risk(risk_text(event.risks[action_id]), event.analyzer, event.policy)
    own = risk_text(getattr(action, "security_risk", None) or "UNKNOWN")
    return Risk(own) if own in RISK_ORDER[:3] else None


def can_steer(row: BoardRow) -> bool:
    """The row's agent can be reached: its sandbox runs and it has an address."""
    conv = row.conversation
    return (
        row.failure is None
        and not row.readonly
        and conv is not None
        and bool(conv.conversation_url)
        and status_value(conv.sandbox_status) == "RUNNING"
    )


async def act_on(
    rows: Sequence[BoardRow],
    sources: Callable[[str], Source | None],
    action: Callable[[Source, BoardRow], Awaitable[None]],
    *,
    needs_agent: bool = True,
) -> list[Outcome]:
    """``action`` on every row at once; an outcome per row, in the rows' order."""

    async def one(row: BoardRow) -> Outcome:
        source = sources(row.source)
        if source is None or source.client is None or row.conversation is None:
            return Outcome(row, "its server is not connected")
        if row.readonly or source.readonly:
            return Outcome(row, "its server is read-only")
        if needs_agent and not can_steer(row):
            return Outcome(row, "its sandbox is not running")
        try:
            await action(source, row)
        except asyncio.CancelledError:
            raise
        except StillStopping as exc:
            return Outcome(row, str(exc))
        except Exception as exc:  # noqa: BLE001 - said per row
            failure = explain(exc)
            return Outcome(row, one_line(failure.detail or failure.title, 200))
        return Outcome(row)

    return list(await asyncio.gather(*(one(row) for row in rows)))
