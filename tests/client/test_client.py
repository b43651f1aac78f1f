"""The client against ``httpx.MockTransport``: faults a real server cannot be made to produce,
parameter checks, error mapping, retry policy, redaction, paging guards."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest

import tui.client.http as client_http
from tests.helpers.samples import SAMPLES
from tui.client import (
    ApiValidationError,
    AuthError,
    BadRequest,
    BadResponse,
    Conflict,
    ConnectionLost,
    HTTPStatusError,
    InvalidParameter,
    NotFound,
    OpenHandsClient,
    OpenHandsError,
    PageLoopError,
    RateLimited,
    RequestTimeout,
    ServerError,
    StartTaskFailed,
    StartTaskTimeout,
)
from tui.models import (
    AppConversationStartTask,
    EventPage,
    EventSortOrder,
    HTTPValidationError,
    RawEvent,
    SandboxStatus,
    StartTaskStatus,
)

BASE = "http://oh.test"
SENTINEL = "sk-SENTINEL-9f8e7d6c5b4a"
SESSION_SENTINEL = "sess-SENTINEL-0a1b2c3d4e"

Handler = Callable[[httpx.Request], httpx.Response]


class Recorder:
    """A MockTransport handler that records requests and answers from a script or a function."""

    def __init__(self, *answers: Any) -> None:
        self.requests: list[httpx.Request] = []
        self.answers = list(answers)

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        if not self.answers:
            raise AssertionError(f"unexpected request {request.method} {request.url}")
        answer = self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]
        if callable(answer) and not isinstance(answer, httpx.Response):
            answer = answer(request)
        if isinstance(answer, BaseException):
            raise answer
        return answer

    @property
    def calls(self) -> int:
        return len(self.requests)

    @property
    def last(self) -> httpx.Request:
        return self.requests[-1]


def ok(body: Any, status: int = 200, headers: dict[str, str] | None = None) -> httpx.Response:
    return httpx.Response(status, json=body, headers=headers)


def page(items: list[Any], next_page_id: str | None = None) -> dict[str, Any]:
    return {"items": items, "next_page_id": next_page_id}


def event(i: int, kind: str = "PauseEvent") -> dict[str, Any]:
    return {
        "id": f"ev-{i:05d}",
        "timestamp": f"2026-01-01T00:00:{i % 60:02d}",
        "source": "user",
        "kind": kind,
    }


def make_client(handler: Handler, **kwargs: Any) -> OpenHandsClient:
    kwargs.setdefault("backoff", 0.0)
    return OpenHandsClient(BASE, transport=httpx.MockTransport(handler), **kwargs)


@pytest.fixture
def sleeps(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """Record retry waits instead of sleeping."""
    waited: list[float] = []

    async def fake_sleep(seconds: float) -> None:
        waited.append(seconds)

    monkeypatch.setattr(client_http, "_sleep", fake_sleep)
    return waited


def query(request: httpx.Request) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for key, value in request.url.params.multi_items():
        out.setdefault(key, []).append(value)
    return out


def load(relative: str) -> Any:
    path = SAMPLES / relative
    assert path.is_file(), f"missing sample {path}"
    return json.loads(path.read_text())


# --- parameter checks: refused before anything is sent -------------------------------------


@pytest.mark.parametrize("limit", [0, 101, -1, True, "5", 5.0, None])
async def test_bad_limit_rejected_client_side(limit: Any) -> None:
    rec = Recorder()
    async with make_client(rec) as client:
        for call in (
            lambda: client.search_shared_events("c1", limit=limit),
            lambda: client.search_events("c1", limit=limit),
            lambda: client.search_conversations(limit=limit),
            lambda: client.search_sandboxes(limit=limit),
            lambda: client.search_sandbox_specs(limit=limit),
        ):
            with pytest.raises(InvalidParameter, match="limit"):
                await call()
        with pytest.raises(InvalidParameter):
            client.iter_events("c1", limit=limit)  # checked eagerly, before iteration
        with pytest.raises(InvalidParameter):
            client.iter_conversations(limit=limit)
        with pytest.raises(InvalidParameter):
            client.iter_sandboxes(limit=limit)
    assert rec.calls == 0


@pytest.mark.parametrize(
    "kwargs, word",
    [
        ({"sort_order": "ascending"}, "sort_order"),
        ({"sort_order": "timestamp"}, "sort_order"),
        ({"sort_order": None}, "sort_order"),
        ({"kind": "Message"}, "kind"),
        ({"kind": "openhands.sdk.event.llm_convertible.message.MessageEvent"}, "kind"),
        ({"kind": ""}, "kind"),
        ({"timestamp_gte": "yesterday"}, "timestamp_gte"),
        ({"timestamp_lt": "2026-13-01T00:00:00"}, "timestamp_lt"),
        ({"timestamp_gte": 1700000000}, "timestamp_gte"),
        ({"timestamp_lt": ""}, "timestamp_lt"),
        ({"page_id": ""}, "page_id"),
    ],
)
async def test_bad_event_filters_rejected(kwargs: dict[str, Any], word: str) -> None:
    rec = Recorder()
    async with make_client(rec) as client:
        with pytest.raises(InvalidParameter, match=word):
            await client.search_shared_events("c1", **kwargs)
        with pytest.raises(InvalidParameter, match=word):
            await client.search_events("c1", **kwargs)
        with pytest.raises(InvalidParameter, match=word):
            client.iter_event_pages("c1", **kwargs)
        if "sort_order" not in kwargs and "page_id" not in kwargs:
            with pytest.raises(InvalidParameter, match=word):
                await client.count_events("c1", **kwargs)
    assert rec.calls == 0


async def test_bad_ids_rejected() -> None:
    rec = Recorder()
    async with make_client(rec) as client:
        for bad in ("", "   ", None, 42):
            with pytest.raises(InvalidParameter, match="conversation_id"):
                await client.search_events(bad)  # type: ignore[arg-type]
            with pytest.raises(InvalidParameter, match="sandbox_id"):
                await client.pause_sandbox(bad)  # type: ignore[arg-type]
            with pytest.raises(InvalidParameter):
                await client.get_sandboxes([bad])  # type: ignore[list-item]
        with pytest.raises(InvalidParameter, match="sequence"):
            await client.get_conversations("abc")  # a bare string is not a batch
        with pytest.raises(InvalidParameter, match="at most 99"):
            await client.get_conversations([f"c{i}" for i in range(100)])
        with pytest.raises(InvalidParameter, match="at most 100"):
            await client.get_events("c1", [f"e{i}" for i in range(101)])
        with pytest.raises(InvalidParameter, match="at most 100"):
            await client.get_sandboxes([f"s{i}" for i in range(101)])
        with pytest.raises(InvalidParameter, match="at most 100"):
            await client.get_start_tasks([f"t{i}" for i in range(101)])
        with pytest.raises(InvalidParameter, match="include_sub_conversations"):
            await client.search_conversations(include_sub_conversations="yes")  # type: ignore[arg-type]
        with pytest.raises(InvalidParameter, match="created_at_gte"):
            await client.search_conversations(created_at_gte="last week")
        with pytest.raises(InvalidParameter, match="shared"):
            client.iter_events("c1", shared="yes")  # type: ignore[arg-type]
        # empty batches need no request at all
        assert await client.get_conversations([]) == []
        assert await client.get_events("c1", []) == []
    assert rec.calls == 0


async def test_batch_sizes_at_the_limit_are_sent() -> None:
    rec = Recorder(
        lambda r: ok([None] * len(r.url.params.get_list("ids") or r.url.params.get_list("id")))
    )
    async with make_client(rec) as client:
        assert await client.get_conversations([f"c{i}" for i in range(99)]) == [None] * 99
        assert await client.get_events("c1", [f"e{i}" for i in range(100)]) == [None] * 100
        assert await client.get_sandboxes([f"s{i}" for i in range(100)]) == [None] * 100
    assert rec.calls == 3


def test_constructor_checks() -> None:
    for url in ("localhost:8000", "ftp://x", "", "http://"):
        with pytest.raises(InvalidParameter):
            OpenHandsClient(url)
    with pytest.raises(InvalidParameter) as info:
        OpenHandsClient(BASE, api_key=SENTINEL + "\n")
    assert SENTINEL not in str(info.value) and SENTINEL not in repr(info.value)
    with pytest.raises(InvalidParameter):
        OpenHandsClient(BASE, max_retries=-1)
    with pytest.raises(InvalidParameter):
        OpenHandsClient(BASE, timeout=0)


# --- what goes on the wire -------------------------------------------------------------------


async def test_event_search_query_mapping() -> None:
    rec = Recorder(lambda r: ok(4 if r.url.path.endswith("/count") else page([])))
    since = datetime(2026, 1, 2, 3, 4, 5, 678000)
    async with make_client(rec) as client:
        await client.search_shared_events(
            "conv-1",
            kind="MessageEvent",
            timestamp_gte=since,
            timestamp_lt="2026-01-03T00:00:00",
            sort_order=EventSortOrder.TIMESTAMP_DESC,
            page_id="200",
            limit=7,
        )
        shared = rec.last
        await client.search_events("a/b c?d", sort_order="TIMESTAMP")
        v1 = rec.last
        assert (
            await client.count_events(
                "conv-1", kind="ActionEvent", timestamp_lt=since.replace(tzinfo=UTC)
            )
            == 4
        )
        count_req = rec.last
    assert shared.method == "GET" and shared.url.path == "/api/shared-events/search"
    assert query(shared) == {
        "conversation_id": ["conv-1"],
        "kind__eq": ["MessageEvent"],
        "timestamp__gte": ["2026-01-02T03:04:05.678000"],
        "timestamp__lt": ["2026-01-03T00:00:00"],
        "sort_order": ["TIMESTAMP_DESC"],
        "page_id": ["200"],
        "limit": ["7"],
    }
    # singular "conversation", id quoted as one segment
    assert (
        v1.url.raw_path.decode().split("?")[0] == "/api/v1/conversation/a%2Fb%20c%3Fd/events/search"
    )
    assert query(v1) == {"sort_order": ["TIMESTAMP"], "limit": ["100"]}
    assert count_req.url.path == "/api/v1/conversation/conv-1/events/count"
    assert query(count_req) == {
        "kind__eq": ["ActionEvent"],
        "timestamp__lt": ["2026-01-02T03:04:05.678000+00:00"],
    }


async def test_dot_segments_cannot_escape_the_path() -> None:
    rec = Recorder(ok({"success": True}))
    async with make_client(rec) as client:
        await client.pause_sandbox("..")
        await client.resume_sandbox(".")
    paths = [r.url.raw_path.decode() for r in rec.requests]
    assert paths == ["/api/v1/sandboxes/%2E%2E/pause", "/api/v1/sandboxes/%2E/resume"]


async def test_control_plane_requests() -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        path = request.url.path
        if path.endswith("/count"):
            return ok(3)
        if path == "/api/v1/app-conversations/search":
            return ok(page([]))
        if request.method == "POST" and path == "/api/v1/sandboxes":
            return ok(load("constructed/app_server/sandbox_page.json")["items"][1])
        if path.startswith("/api/profiles/"):
            return ok({"valid": True, "error": None})
        return ok({"success": True})

    rec = Recorder(answer)
    async with make_client(rec) as client:
        await client.search_conversations(
            title_contains="hello",
            created_at_gte="2026-01-01T00:00:00Z",
            updated_at_lt=datetime(2026, 2, 1),
            sandbox_id="sb 1",
            include_sub_conversations=True,
            page_id="100",
            limit=20,
        )
        search = rec.last
        assert await client.count_conversations(title_contains="x", created_at_lt="2026-01-01") == 3
        count = rec.last
        box = await client.start_sandbox("ghcr.io/openhands/agent-server:1.34.0-python")
        start = rec.last
        assert await client.delete_sandbox("sb/1") is True
        delete = rec.last
        assert await client.validate_profile("my profile", {"llm": {"model": "m"}}) == {
            "valid": True,
            "error": None,
        }
        validate = rec.last
        assert await client.create_directory("/workspace/new dir") == {"success": True}
        mkdir = rec.last
    assert query(search) == {
        "title__contains": ["hello"],
        "created_at__gte": ["2026-01-01T00:00:00Z"],
        "updated_at__lt": ["2026-02-01T00:00:00"],
        "sandbox_id__eq": ["sb 1"],
        "include_sub_conversations": ["true"],
        "limit": ["20"],
        "page_id": ["100"],
    }
    assert count.url.path == "/api/v1/app-conversations/count"
    assert query(count) == {"title__contains": ["x"], "created_at__lt": ["2026-01-01"]}
    assert start.method == "POST" and query(start) == {
        "sandbox_spec_id": ["ghcr.io/openhands/agent-server:1.34.0-python"]
    }
    assert box.status == SandboxStatus.PAUSED
    assert delete.method == "DELETE"
    assert delete.url.raw_path.decode().split("?")[0] == "/api/v1/sandboxes/sb%2F1"
    assert query(delete) == {"sandbox_id": ["sb/1"]}
    assert (
        validate.method == "POST"
        and validate.url.raw_path.decode() == "/api/profiles/my%20profile/validate"
    )
    assert json.loads(validate.content) == {"llm": {"model": "m"}}
    assert mkdir.url.path == "/api/file/create_directory"
    assert query(mkdir) == {"path": ["/workspace/new dir"]}
    assert json.loads(mkdir.content) == {"path": "/workspace/new dir"}


async def test_batch_gets_repeat_the_id_parameter() -> None:
    rec = Recorder(lambda r: ok([None, None]))
    async with make_client(rec) as client:
        await client.get_events("c1", ["e1", "e2"])
        assert query(rec.last) == {"id": ["e1", "e2"]}
        assert rec.last.url.path == "/api/v1/conversation/c1/events"
        await client.get_conversations(["a", "b"])
        assert query(rec.last) == {"ids": ["a", "b"]}
        await client.get_start_tasks(["t1", "t2"])
        assert rec.last.url.path == "/api/v1/app-conversations/start-tasks" and query(rec.last) == {
            "ids": ["t1", "t2"]
        }
        await client.get_sandboxes(["s1", "s2"])
        assert query(rec.last) == {"id": ["s1", "s2"]}
        await client.get_sandbox_specs(["p1", "p2"])
        assert rec.last.url.path == "/api/v1/sandbox-specs" and query(rec.last) == {
            "id": ["p1", "p2"]
        }


async def test_auth_headers() -> None:
    rec = Recorder(ok(page([])))
    async with make_client(rec) as client:
        await client.search_sandboxes()
        assert (
            "authorization" not in rec.last.headers and "x-session-api-key" not in rec.last.headers
        )
    async with make_client(rec, api_key="k-bearer") as client:
        await client.search_sandboxes()
        assert rec.last.headers["authorization"] == "Bearer k-bearer"
        assert "x-session-api-key" not in rec.last.headers
    async with make_client(rec, session_api_key="k-session") as client:
        await client.search_sandboxes()
        assert rec.last.headers["x-session-api-key"] == "k-session"
        assert "authorization" not in rec.last.headers
        client.set_credentials(api_key="k2")
        await client.search_sandboxes()
        assert (
            rec.last.headers["authorization"] == "Bearer k2"
            and "x-session-api-key" not in rec.last.headers
        )
    async with make_client(rec, api_key="a", session_api_key="b") as client:
        await client.search_sandboxes()
        assert (
            rec.last.headers["authorization"] == "Bearer a"
            and rec.last.headers["x-session-api-key"] == "b"
        )


async def test_start_conversation_body_merges_request_and_fields() -> None:
    rec = Recorder(ok(load("cli-mock-responses/start_task_pending.json")))
    async with make_client(rec) as client:
        task = await client.start_conversation(
            {"title": "t", "public": False}, title="override", llm_model="m"
        )
    assert rec.last.method == "POST" and rec.last.url.path == "/api/v1/app-conversations"
    assert json.loads(rec.last.content) == {"title": "override", "public": False, "llm_model": "m"}
    assert task.status == StartTaskStatus.WORKING


# --- retries ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "fault",
    [
        httpx.ConnectError("connection refused"),
        httpx.ReadError("connection reset by peer"),
        httpx.RemoteProtocolError("Server disconnected without sending a response."),
        httpx.ReadTimeout("timed out"),
        ok({"detail": "Internal Server Error", "exception": "", "error_id": "x"}, 500),
        ok({"detail": "bad gateway"}, 502),
        ok({"detail": "unavailable"}, 503),
        ok({"detail": "gateway timeout"}, 504),
    ],
    ids=lambda f: type(f).__name__ if isinstance(f, Exception) else f"HTTP{f.status_code}",
)
async def test_get_is_retried_then_succeeds(fault: Any, sleeps: list[float]) -> None:
    rec = Recorder(fault, fault, ok(page([event(1)])))
    async with make_client(rec, max_retries=3) as client:
        result = await client.search_events("c1")
    assert rec.calls == 3
    assert len(result.items) == 1 and len(sleeps) == 2


async def test_dropped_keep_alive_after_500_is_survived(sleeps: list[float]) -> None:
    """The agent server answers 500 then drops the connection; the next read fails too."""
    rec = Recorder(
        ok({"detail": "Internal Server Error"}, 500),
        httpx.RemoteProtocolError("Server disconnected without sending a response."),
        ok(3),
    )
    async with make_client(rec) as client:
        assert await client.count_events("c1") == 3
    assert rec.calls == 3


async def test_retries_are_bounded(sleeps: list[float]) -> None:
    rec = Recorder(httpx.ReadTimeout("timed out"))
    async with make_client(rec, max_retries=2) as client:
        with pytest.raises(RequestTimeout) as info:
            await client.search_sandboxes()
    assert rec.calls == 3 and len(sleeps) == 2
    assert info.value.method == "GET" and info.value.url.startswith(
        BASE + "/api/v1/sandboxes/search"
    )

    rec = Recorder(ok({"detail": "boom"}, 503))
    async with make_client(rec, max_retries=0) as client:
        with pytest.raises(ServerError) as err:
            await client.search_sandboxes()
    assert rec.calls == 1 and err.value.status == 503 and err.value.detail == "boom"

    rec = Recorder(httpx.ConnectError("refused"))
    async with make_client(rec, max_retries=1) as client:
        with pytest.raises(ConnectionLost, match="cannot connect"):
            await client.count_conversations()
    assert rec.calls == 2


async def test_backoff_is_exponential_with_jitter(sleeps: list[float]) -> None:
    rec = Recorder(ok({}, 503))
    async with make_client(rec, max_retries=4, backoff=0.5) as client:
        with pytest.raises(ServerError):
            await client.search_sandboxes()
    assert len(sleeps) == 4
    for attempt, waited in enumerate(sleeps):
        ceiling = 0.5 * 2**attempt
        assert ceiling / 2 <= waited <= ceiling


@pytest.mark.parametrize(
    "fault",
    [
        ok({"detail": "Internal Server Error"}, 500),
        ok({}, 503),
        httpx.ReadTimeout("t"),
        httpx.ReadError("r"),
    ],
    ids=["500", "503", "ReadTimeout", "ReadError"],
)
async def test_post_is_not_retried(fault: Any, sleeps: list[float]) -> None:
    rec = Recorder(fault, ok(load("cli-mock-responses/start_task_pending.json")))
    async with make_client(rec, max_retries=3) as client:
        with pytest.raises((ServerError, RequestTimeout, ConnectionLost)):
            await client.start_conversation({"title": "x"})
        with pytest.raises((ServerError, RequestTimeout, ConnectionLost)):
            rec.answers.insert(0, fault)
            await client.start_sandbox()
    assert rec.calls == 2 and sleeps == []


async def test_post_is_retried_when_nothing_was_sent(sleeps: list[float]) -> None:
    rec = Recorder(
        httpx.ConnectError("refused"), ok(load("cli-mock-responses/start_task_pending.json"))
    )
    async with make_client(rec) as client:
        task = await client.start_conversation()
    assert rec.calls == 2 and task.id


@pytest.mark.parametrize("verb", ["pause_sandbox", "resume_sandbox"])
async def test_pause_resume_are_retried(verb: str, sleeps: list[float]) -> None:
    rec = Recorder(httpx.ReadTimeout("t"), ok({}, 502), ok({"success": True}))
    async with make_client(rec) as client:
        assert await getattr(client, verb)("sb-1") is True
    assert rec.calls == 3


async def test_delete_is_not_repeated_after_a_timeout(sleeps: list[float]) -> None:
    # a repeat after a delete that landed would answer 404 for a delete that happened
    rec = Recorder(httpx.ReadTimeout("t"), ok({"success": True}))
    async with make_client(rec) as client:
        with pytest.raises(RequestTimeout):
            await client.delete_sandbox("sb-1")
        assert rec.calls == 1
        rec.answers[:0] = [ok({"message": "Too many requests"}, 429, {"Retry-After": "0"})]
        assert await client.delete_sandbox("sb-1") is True  # 429 = not processed: repeated
    assert rec.calls == 3


async def test_429_honours_retry_after_for_any_method(sleeps: list[float]) -> None:
    limited = ok({"message": "Too many requests"}, 429, {"Retry-After": "2"})
    rec = Recorder(limited, ok(page([])))
    async with make_client(rec, backoff=5.0) as client:
        await client.search_conversations()
    assert rec.calls == 2 and sleeps == [2.0]

    rec = Recorder(limited, ok(load("cli-mock-responses/start_task_pending.json")))
    sleeps.clear()
    async with make_client(rec) as client:
        task = await client.start_conversation({"title": "t"})
    assert rec.calls == 2 and sleeps == [2.0] and task.status == StartTaskStatus.WORKING


async def test_429_http_date_and_missing_retry_after(sleeps: list[float]) -> None:
    rec = Recorder(
        ok({}, 429, {"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"}),  # in the past: no wait
        ok({}, 429),  # no header: exponential backoff
        ok(page([])),
    )
    async with make_client(rec, backoff=0.25) as client:
        await client.search_sandboxes()
    assert sleeps[0] == 0.0 and 0.125 <= sleeps[1] <= 0.5


async def test_429_is_bounded_and_long_waits_are_not_blocked_on(sleeps: list[float]) -> None:
    rec = Recorder(ok({"message": "Too many requests"}, 429, {"Retry-After": "1"}))
    async with make_client(rec, max_retries=2) as client:
        with pytest.raises(RateLimited) as info:
            await client.search_sandboxes()
    assert rec.calls == 3 and sleeps == [1.0, 1.0]
    assert (
        info.value.retry_after == 1.0
        and info.value.status == 429
        and "Too many requests" in str(info.value)
    )

    sleeps.clear()
    rec = Recorder(ok({}, 429, {"Retry-After": "3600"}))
    async with make_client(rec) as client:
        with pytest.raises(RateLimited) as info:
            await client.search_sandboxes()
    assert rec.calls == 1 and sleeps == [] and info.value.retry_after == 3600.0


# --- error mapping ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "status, body, cls, detail",
    [
        (400, {"detail": "Maximum is 99"}, BadRequest, "Maximum is 99"),
        (401, {"detail": "Unauthorized"}, AuthError, "Unauthorized"),
        (403, {"error": "TOS not accepted"}, AuthError, "TOS not accepted"),
        (404, {"detail": "Conversation not found: 0000"}, NotFound, "Conversation not found: 0000"),
        (
            409,
            {"detail": "sandbox not running", "retryable": True},
            Conflict,
            "sandbox not running",
        ),
        (410, {"detail": "archived"}, HTTPStatusError, "archived"),
        (
            500,
            {"detail": "Internal Server Error", "exception": "", "error_id": "c1b4"},
            ServerError,
            "Internal Server Error",
        ),
    ],
)
async def test_status_mapping(
    status: int, body: Any, cls: type, detail: str, sleeps: list[float]
) -> None:
    rec = Recorder(ok(body, status))
    # an app server: in auto mode a 404 would also ask what answered (test_client_kinds.py)
    async with make_client(rec, max_retries=0, server_kind="app") as client:
        with pytest.raises(cls) as info:
            await client.pause_sandbox("sb-1")
    err = info.value
    assert type(err) is cls and isinstance(err, OpenHandsError)
    assert err.status == status and err.method == "POST"
    assert err.url == BASE + "/api/v1/sandboxes/sb-1/pause"
    assert err.detail == detail
    assert str(status) in str(err) and detail in str(err)
    assert rec.calls == 1


@pytest.mark.parametrize("status", [400, 401, 403, 404, 409, 422])
async def test_client_errors_are_not_retried(status: int, sleeps: list[float]) -> None:
    rec = Recorder(ok({"detail": "no"}, status))
    async with make_client(rec, server_kind="app") as client:
        with pytest.raises(HTTPStatusError):
            await client.search_sandboxes()
    assert rec.calls == 1 and sleeps == []


async def test_422_parsed_into_http_validation_error() -> None:
    body = load("agent-server-capture/rest/demo_events_search_limit0.json")["body"]
    body["detail"].append(
        {
            "type": "datetime_from_date_parsing",
            "loc": ["query", "timestamp__gte"],
            "msg": "Input should be a valid datetime or date, invalid character in year",
            "input": "not-a-date",
            "ctx": {"error": "invalid character in year"},
        }
    )
    rec = Recorder(ok(body, 422))
    async with make_client(rec) as client:
        with pytest.raises(ApiValidationError) as info:
            await client.search_events("c1")
    err = info.value
    assert isinstance(err.validation, HTTPValidationError)
    assert [item.loc for item in err.validation.detail] == [
        ["query", "limit"],
        ["query", "timestamp__gte"],
    ]
    assert err.validation.detail[0].ctx == {"gt": 0}
    assert err.status == 422
    assert "query.limit: Input should be greater than 0" in str(err)
    assert "query.timestamp__gte: Input should be a valid datetime" in str(err)


async def test_422_with_unusual_body_still_maps() -> None:
    rec = Recorder(ok({"detail": "nope"}, 422))
    async with make_client(rec) as client:
        with pytest.raises(ApiValidationError) as info:
            await client.search_events("c1")
    assert info.value.validation.detail == [] and "nope" in str(info.value)


@pytest.mark.parametrize(
    "response",
    [
        httpx.Response(200, text="<html>login</html>", headers={"content-type": "text/html"}),
        httpx.Response(200, text='{"items": [', headers={"content-type": "application/json"}),
        ok({"items": 5}),
        ok({"events": []}),
        ok([1, 2, 3]),
        ok("a string"),
    ],
    ids=["html", "truncated-json", "items-not-list", "no-items", "array", "string"],
)
async def test_malformed_event_page_is_bad_response(
    response: httpx.Response, sleeps: list[float]
) -> None:
    rec = Recorder(response)
    async with make_client(rec) as client:
        with pytest.raises(BadResponse) as info:
            await client.search_shared_events("c1")
    # JSON cut off mid-way is read again (a flaky proxy or server): the rest are not JSON
    # pages at all, so reading them again would not help
    cut_off = response.text.startswith('{"items": [')
    assert rec.calls == (4 if cut_off else 1) and info.value.method == "GET"


async def test_wrong_shaped_control_records_are_bad_response() -> None:
    session_key = "4kZ9pQ2xV7nB1mC8rT5yW3sL6dF0hJ"
    broken_box = dict(load("constructed/app_server/sandbox_page.json")["items"][0])
    del broken_box["id"]
    cases: list[tuple[Callable[[OpenHandsClient], Any], Any]] = [
        (lambda c: c.search_sandboxes(), {"items": [broken_box], "next_page_id": None}),
        (lambda c: c.get_sandboxes(["a"]), {"a": 1}),
        (lambda c: c.get_sandboxes(["a", "b"]), [None]),  # wrong length
        (lambda c: c.count_events("c1"), "12"),
        (lambda c: c.count_conversations(), True),
        (lambda c: c.pause_sandbox("s"), {"success": "yes"}),
        (lambda c: c.get_events("c1", ["e"]), {"items": []}),
        (lambda c: c.start_conversation(), {"status": "READY"}),
        (lambda c: c.validate_profile("p"), [1]),
    ]
    for call, body in cases:
        async with make_client(Recorder(ok(body))) as client:
            with pytest.raises(BadResponse) as info:
                await call(client)
            assert session_key not in str(info.value) and session_key not in repr(info.value)


# --- paging ----------------------------------------------------------------------------------


async def test_iter_events_follows_pages_and_keeps_everything() -> None:
    pages = {
        None: page([event(0), event(1)], "p2"),
        "p2": page([event(2), "not an object", {"kind": "FutureEvent", "id": "f1"}], "p3"),
        "p3": page([event(3)], None),
    }
    rec = Recorder(lambda r: ok(pages[r.url.params.get("page_id")]))
    async with make_client(rec) as client:
        events = [e async for e in client.iter_events("c1", limit=3)]
    assert rec.calls == 3
    assert [query(r).get("page_id") for r in rec.requests] == [None, ["p2"], ["p3"]]
    assert all(query(r)["limit"] == ["3"] for r in rec.requests)
    assert len(events) == 6
    raw = [e for e in events if isinstance(e, RawEvent)]
    assert len(raw) == 2 and raw[0].raw == "not an object" and raw[1].kind == "FutureEvent"
    assert [e.id for e in events if not isinstance(e, RawEvent)] == [
        "ev-00000",
        "ev-00001",
        "ev-00002",
        "ev-00003",
    ]


async def test_iter_event_pages_and_shared_flag() -> None:
    rec = Recorder(ok(page([event(0)], "5")), ok(page([event(1)])))
    async with make_client(rec) as client:
        pages = [
            p
            async for p in client.iter_event_pages(
                "c1", shared=True, kind="PauseEvent", page_id="0"
            )
        ]
    assert all(isinstance(p, EventPage) for p in pages) and len(pages) == 2
    assert [r.url.path for r in rec.requests] == ["/api/shared-events/search"] * 2
    assert [query(r)["page_id"] for r in rec.requests] == [["0"], ["5"]]
    assert all(query(r)["kind__eq"] == ["PauseEvent"] for r in rec.requests)


async def test_repeated_next_page_id_raises_instead_of_looping() -> None:
    pages = {None: page([event(0)], "a"), "a": page([event(1)], "b"), "b": page([event(2)], "a")}
    rec = Recorder(lambda r: ok(pages[r.url.params.get("page_id")]))
    got = []
    async with make_client(rec) as client:
        with pytest.raises(PageLoopError) as info:
            async for e in client.iter_events("c1"):
                got.append(e.id)
    assert got == ["ev-00000", "ev-00001", "ev-00002"] and rec.calls == 3
    assert info.value.page_id == "a" and "'a'" in str(info.value)

    # a page that points at itself
    rec = Recorder(ok(page([event(0)], "x")))
    async with make_client(rec) as client:
        with pytest.raises(PageLoopError):
            [p async for p in client.iter_event_pages("c1", page_id="x")]
    assert rec.calls == 1


async def test_endless_empty_pages_are_stopped() -> None:
    counter = iter(range(10_000))
    rec = Recorder(lambda r: ok(page([], f"n{next(counter)}")))
    async with make_client(rec) as client:
        with pytest.raises(PageLoopError, match="empty pages"):
            [e async for e in client.iter_events("c1")]
    assert rec.calls == 50


async def test_iter_conversations_and_sandboxes_follow_pages() -> None:
    conv = load("constructed/app_server/app_conversation_page.json")["items"][0]
    boxes = load("constructed/app_server/sandbox_page.json")["items"]
    conv_pages = {None: page([conv], "1"), "1": page([{**conv, "id": "other"}], None)}
    rec = Recorder(lambda r: ok(conv_pages[r.url.params.get("page_id")]))
    async with make_client(rec) as client:
        ids = [c.id async for c in client.iter_conversations(limit=1)]
    assert ids == [conv["id"], "other"]

    box_pages = {None: page(boxes[:1], "1"), "1": page(boxes[1:], "1")}
    rec = Recorder(lambda r: ok(box_pages[r.url.params.get("page_id")]))
    async with make_client(rec) as client:
        got = []
        with pytest.raises(PageLoopError):
            async for box in client.iter_sandboxes(limit=1):
                got.append(box.id)
    assert got == [b["id"] for b in boxes]


# --- create_conversation ---------------------------------------------------------------------


def task_with(status: str, **extra: Any) -> dict[str, Any]:
    return {**load("cli-mock-responses/start_task_pending.json"), "status": status, **extra}


async def test_create_conversation_polls_until_ready() -> None:
    ready = load("cli-mock-responses/start_task_ready.json")
    sequence = [
        task_with("WAITING_FOR_SANDBOX"),
        task_with("WAITING_FOR_SANDBOX"),
        task_with("PREPARING_REPOSITORY"),
        ready,
    ]
    conversation = {
        **load("constructed/app_server/app_conversation_page.json")["items"][0],
        "id": "conv-001",
        "title": "Conversation conv0",  # the real app server ignores the title it was sent
    }
    patched: list[Any] = []

    def answer(request: httpx.Request) -> httpx.Response:
        if request.method == "POST":
            return ok(task_with("WORKING"))
        if request.method == "PATCH":
            assert request.url.path == "/api/v1/app-conversations/conv-001"
            patched.append(json.loads(request.content))
            return ok({**conversation, "title": "t"})
        if request.url.path == "/api/v1/app-conversations":
            assert query(request) == {"ids": ["conv-001"]}
            return ok([conversation])
        assert query(request) == {"ids": [ready["id"]]}
        return ok([sequence.pop(0)])

    seen: list[str] = []
    rec = Recorder(answer)
    async with make_client(rec) as client:
        task = await client.create_conversation(
            {"title": "t"},
            poll_interval=0,
            on_progress=lambda t: seen.append(str(getattr(t.status, "value", t.status))),
        )
    assert task.status == StartTaskStatus.READY and task.app_conversation_id == "conv-001"
    assert seen == ["WORKING", "WAITING_FOR_SANDBOX", "PREPARING_REPOSITORY", "READY"]
    assert patched == [{"title": "t"}]  # the title the server ignored, applied once READY
    assert rec.calls == 7


async def test_create_conversation_async_callback_and_error() -> None:
    error = load("cli-mock-responses/start_task_error.json")
    rec = Recorder(ok(task_with("WORKING")), ok([None]), ok([error]))
    seen: list[str] = []

    async def progress(task: AppConversationStartTask) -> None:
        seen.append(str(getattr(task.status, "value", task.status)))

    async with make_client(rec) as client:
        with pytest.raises(StartTaskFailed) as info:
            await client.create_conversation(poll_interval=0, on_progress=progress)
    assert seen == ["WORKING", "ERROR"]
    assert info.value.task.status == StartTaskStatus.ERROR
    assert "sandbox provisioning failed" in str(info.value)


async def test_create_conversation_times_out() -> None:
    rec = Recorder(ok(task_with("WORKING")), ok([task_with("WAITING_FOR_SANDBOX")]))
    async with make_client(rec) as client:
        with pytest.raises(StartTaskTimeout) as info:
            await client.create_conversation(poll_interval=0.01, timeout=0.05)
    assert isinstance(info.value, RequestTimeout)
    assert info.value.task.status == StartTaskStatus.WAITING_FOR_SANDBOX


# --- open records, repr, lifetime ------------------------------------------------------------


async def test_unknown_fields_in_control_records_are_kept() -> None:
    conv = {
        **load("constructed/app_server/app_conversation_page.json")["items"][0],
        "brand_new_field": {"x": 1},
    }
    rec = Recorder(ok(page([conv])))
    async with make_client(rec) as client:
        result = await client.search_conversations()
    assert result.items[0].model_extra["brand_new_field"] == {"x": 1}
    assert result.items[0].model_extra["acp_server"] is None


async def test_context_manager_closes() -> None:
    client = make_client(Recorder(ok(page([]))))
    async with client:
        await client.search_sandboxes()
    with pytest.raises(RuntimeError, match="closed"):
        await client.search_sandboxes()


# --- secrets never leak ----------------------------------------------------------------------


async def test_keys_never_appear_in_errors_reprs_or_logs(
    caplog: pytest.LogCaptureFixture, sleeps: list[float]
) -> None:
    """Provoke every error class with a key configured; grep everything a user could see."""
    caplog.set_level(logging.DEBUG)
    # bodies that echo the keys back, as a careless server or proxy might
    echo = {"detail": f"bad key {SENTINEL} / {SESSION_SENTINEL}"}
    validation = {
        "detail": [
            {
                "type": "x",
                "loc": ["query", "session_api_key"],
                "msg": "bad",
                "input": SESSION_SENTINEL,
            },
            {
                "type": "y",
                "loc": ["header", "authorization"],
                "msg": f"Bearer {SENTINEL}",
                "input": {"api_key": SENTINEL},
            },
        ]
    }
    faults: list[Any] = [
        ok(echo, 400),
        ok(echo, 401),
        ok({"error": echo["detail"]}, 403),
        ok(echo, 404),
        ok(echo, 409),
        ok(validation, 422),
        ok({"message": echo["detail"]}, 429, {"Retry-After": "0"}),
        ok(echo, 500),
        ok(echo, 418),
        httpx.Response(200, text=f"<html>{SENTINEL}</html>"),
        ok({"items": SENTINEL}),
        httpx.ReadTimeout(f"timeout {SENTINEL}"),
        httpx.ConnectError(f"refused {SESSION_SENTINEL}"),
        httpx.RemoteProtocolError(f"dropped {SENTINEL}"),
    ]
    errors: list[BaseException] = []
    for fault in faults:
        rec = Recorder(fault)
        client = make_client(rec, api_key=SENTINEL, session_api_key=SESSION_SENTINEL, max_retries=1)
        assert SENTINEL not in repr(client) and SESSION_SENTINEL not in repr(client)
        assert SENTINEL not in repr(client._http.client.headers)
        async with client:
            with pytest.raises(OpenHandsError) as info:
                await client.search_events("c1", timestamp_gte="2026-01-01T00:00:00")
            errors.append(info.value)
            assert rec.last.headers["authorization"] == f"Bearer {SENTINEL}"  # it was sent
    # the loop guard and start-task errors too
    rec = Recorder(ok(page([], "same")))
    async with make_client(rec, api_key=SENTINEL) as client:
        with pytest.raises(PageLoopError) as info:
            [p async for p in client.iter_event_pages("c1", page_id="same")]
        errors.append(info.value)
    rec = Recorder(
        ok(task_with("WORKING")), ok([task_with("ERROR", detail=f"failed with {SENTINEL}")])
    )
    async with make_client(rec, api_key=SENTINEL) as client:
        with pytest.raises(StartTaskFailed) as info:
            await client.create_conversation(poll_interval=0)
        errors.append(info.value)
    with pytest.raises(InvalidParameter) as info:
        OpenHandsClient(BASE, session_api_key=f" {SESSION_SENTINEL}")
    errors.append(info.value)

    kinds = {type(e) for e in errors}
    assert {
        BadRequest,
        AuthError,
        NotFound,
        Conflict,
        ApiValidationError,
        RateLimited,
        ServerError,
        HTTPStatusError,
        BadResponse,
        RequestTimeout,
        ConnectionLost,
        PageLoopError,
        StartTaskFailed,
        InvalidParameter,
    } <= kinds
    for err in errors:
        for text in (str(err), repr(err), repr(err.args), repr(err.detail), repr(vars(err))):
            assert SENTINEL not in text, f"{type(err).__name__} leaks the api key: {text}"
            assert SESSION_SENTINEL not in text, (
                f"{type(err).__name__} leaks the session key: {text}"
            )
        validation = getattr(err, "validation", None)
        if validation is not None:
            dumped = validation.model_dump_json()
            assert SENTINEL not in dumped and SESSION_SENTINEL not in dumped
    assert caplog.records, "expected the client to log retries"
    for record in caplog.records:
        text = record.getMessage()
        assert SENTINEL not in text and SESSION_SENTINEL not in text, text


async def test_urls_with_credentials_are_redacted() -> None:
    rec = Recorder(ok({"detail": "no"}, 404))
    client = OpenHandsClient(
        f"http://user:{SENTINEL}@oh.test/prefix/", transport=httpx.MockTransport(rec), max_retries=0
    )
    assert SENTINEL not in client.base_url and SENTINEL not in repr(client)
    async with client:
        with pytest.raises(NotFound) as info:
            await client.search_events("c1")
    # the 404 made the client ask what answered (nothing OpenHands here): all redacted
    assert rec.requests[0].url.path == "/prefix/api/v1/conversation/c1/events/search"
    assert "not an OpenHands server" in str(info.value)
    assert SENTINEL not in str(info.value) and SENTINEL not in (info.value.url or "")
