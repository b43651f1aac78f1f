"""The one LRU (``tui/lru.py``) and the client's one backoff policy and patient loop
(``client/backoff.py``), as the event store's patience uses it."""

from __future__ import annotations

import asyncio

import pytest

from tui.app.store.conversation_events import ConversationEvents
from tui.client import JitteredBackoff, NotFound, OpenHandsClient, RateLimited, ServerError
from tui.client.backoff import MAX_RETRY_AFTER, Waiting, outlast
from tui.lru import LRU
from tui.server import Store
from tui.server.demo import generate_conversation


def test_lru_drops_the_least_recently_used_not_the_first_stored():
    cache: LRU[str, int] = LRU(2)
    cache["a"], cache["b"] = 1, 2
    assert cache.get("a") == 1  # read: now the most recently used
    cache["c"] = 3
    assert "b" not in cache and list(cache) == ["a", "c"]
    assert cache.get("b", "gone") == "gone"


def test_lru_by_weight_keeps_the_newest_and_counts_replacements_once():
    cache: LRU[str, str] = LRU(10, max_weight=10, weigh=len)
    cache["a"], cache["b"] = "x" * 4, "y" * 4
    cache["a"] = "z" * 5  # replaced, not counted twice
    assert cache.weight == 9 and len(cache) == 2
    cache["c"] = "w" * 20  # heavier than the whole bound: everything older goes
    assert list(cache) == ["c"] and cache.weight == 20
    cache.discard("c")
    assert cache.weight == 0 and len(cache) == 0


def test_backoff_doubles_up_to_its_cap_with_jitter():
    policy = JitteredBackoff(base=1.0, cap=4.0)
    for attempt, full in ((1, 1.0), (2, 2.0), (3, 4.0), (9, 4.0)):
        assert full * 0.5 <= policy.delay(attempt) <= full


def test_outlast_retries_outages_only_and_says_each_pause():
    answers: list[Exception | str] = [ServerError("503"), RateLimited("429", retry_after=7.0), "ok"]
    pauses: list[float] = []
    told: list[tuple[str, float]] = []

    async def call() -> str:
        answer = answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    async def sleep(seconds: float) -> None:
        pauses.append(seconds)

    result = asyncio.run(
        outlast(
            call,
            JitteredBackoff(0.5, 1.0),
            on_retry=lambda exc, delay: told.append((type(exc).__name__, delay)),
            sleep=sleep,
        )
    )
    assert result == "ok"
    assert 0.25 <= pauses[0] <= 0.5 and pauses[1] == 7.0  # the server's Retry-After wins
    assert [name for name, _ in told] == ["ServerError", "RateLimited"]

    async def missing() -> None:
        raise NotFound("404")

    with pytest.raises(NotFound):  # not an outage: no second call
        asyncio.run(outlast(missing, JitteredBackoff(), sleep=sleep))
    assert len(pauses) == 2


def test_outlast_keeps_a_waiting_record_for_a_screen_to_say():
    """The progress hook the store's patience uses: which try, why, and until when (on the
    caller's clock), the pause over once the next try starts."""
    now = [100.0]
    seen: list[tuple[int, str, float | None, bool]] = []
    wait = Waiting("events page 1", since=now[0])
    answers: list[Exception | str] = [
        ServerError("503", status=503),
        RateLimited("429", status=429, retry_after=120.0),
        "ok",
    ]

    async def call() -> str:
        seen.append((wait.tries, type(wait.failure).__name__, wait.retry_at, wait.asked))
        answer = answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    async def sleep(seconds: float) -> None:
        assert wait.retry_at == now[0] + seconds  # said while the pause lasts
        now[0] += seconds

    result = asyncio.run(
        outlast(call, JitteredBackoff(1.0, 1.0), waiting=wait, clock=lambda: now[0], sleep=sleep)
    )
    assert result == "ok"
    assert seen == [
        (1, "NoneType", None, False),
        (2, "ServerError", None, False),  # the backoff's pause
        (3, "RateLimited", None, True),  # the server's Retry-After, waited out whole
    ]
    assert now[0] - 100.0 >= 120.0 and wait.failure is not None


def test_outlast_gives_up_when_told_to_stop_or_asked_past_its_longest_pause():
    pauses: list[float] = []

    async def sleep(seconds: float) -> None:
        pauses.append(seconds)

    async def failing() -> None:
        raise ServerError("503", status=503)

    with pytest.raises(ServerError):  # the caller has gone: no pause, no second call
        asyncio.run(outlast(failing, JitteredBackoff(), stop=lambda: True, sleep=sleep))

    async def far_off() -> None:
        raise RateLimited("429", status=429, retry_after=MAX_RETRY_AFTER + 1)

    with pytest.raises(RateLimited):
        asyncio.run(outlast(far_off, JitteredBackoff(), sleep=sleep))
    assert pauses == []


async def test_the_store_stops_trying_once_its_screen_is_gone(make_server):
    """The store's patience through the client's one loop: a failing page is tried again,
    said (``on_retry``), listed while it waits; closing the store ends the wait."""
    store = Store()
    cid = generate_conversation(store, 20, seed=5)
    server = make_server(store)
    faults = server.app.state.faults
    faults.add("status", f"/api/v1/conversation/{cid}/events/search", times=-1, status=503)
    told: list[float] = []
    async with OpenHandsClient(server.base_url, max_retries=0) as client:
        events = ConversationEvents(
            client,
            cid,
            backoff=JitteredBackoff(0.0, 0.0),
            on_retry=lambda exc, delay: (told.append(delay), events.close()),
        )
        with pytest.raises(ServerError):
            await events.open_window(events.base.query)
    assert told == [0.0] and faults.hits["status"] == 2  # one pause, then it stopped
    assert events.waiting is None  # nothing listed as waited for any more
