"""The one LRU (``tui/lru.py``) and the client's one backoff policy (``client/backoff.py``)."""

from __future__ import annotations

import asyncio

import pytest

from tui.client import JitteredBackoff, NotFound, RateLimited, ServerError
from tui.client.backoff import outlast
from tui.lru import LRU


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
