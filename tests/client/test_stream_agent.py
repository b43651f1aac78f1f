"""``agent_endpoint`` URL derivation and ``AgentServerClient`` request shapes.

``httpx.MockTransport`` is used only for request shapes and status mapping: the reference
server does not serve the agent-server control routes yet.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import httpx
import pytest

from tests.helpers.samples import SAMPLES
from tui.client import (
    AgentEndpoint,
    AgentServerClient,
    AuthError,
    BadResponse,
    Conflict,
    EventStream,
    InvalidParameter,
    ServerError,
    agent_endpoint,
)
from tui.models import AppConversation

HEX = "697ecf519eef41b2bdca3fa62e1da900"
KEY = "sess-SENTINEL-agent-1a2b3c4d"
REST = SAMPLES / "agent-server-capture" / "rest"


def conversation(url: str | None, key: str | None = KEY) -> AppConversation:
    return AppConversation(id=HEX, sandbox_id="sb", conversation_url=url, session_api_key=key)


# --- endpoint derivation -------------------------------------------------------------------


@pytest.mark.parametrize(
    "app_base, url, http_base, ws_url",
    [
        (
            None,
            f"http://h:8000/api/conversations/{HEX}",
            "http://h:8000",
            f"ws://h:8000/sockets/events/{HEX}",
        ),
        (
            None,
            f"https://sandbox.example.com/api/conversations/{HEX}",
            "https://sandbox.example.com",
            f"wss://sandbox.example.com/sockets/events/{HEX}",
        ),
        (
            None,
            f"http://h:8000/agent/abc/api/conversations/{HEX}",
            "http://h:8000/agent/abc",
            f"ws://h:8000/agent/abc/sockets/events/{HEX}",
        ),
        (
            None,
            f"https://h/runtime/x-1/api/conversations/{HEX}/",
            "https://h/runtime/x-1",
            f"wss://h/runtime/x-1/sockets/events/{HEX}",
        ),
        # relative (Docker proxy mode): the app server's scheme and host, its path ignored
        (
            "http://localhost:3000",
            f"/agent/oh-agent-1/api/conversations/{HEX}",
            "http://localhost:3000/agent/oh-agent-1",
            f"ws://localhost:3000/agent/oh-agent-1/sockets/events/{HEX}",
        ),
        (
            "https://app.all-hands.dev/ui/",
            f"/agent/s/api/conversations/{HEX}",
            "https://app.all-hands.dev/agent/s",
            f"wss://app.all-hands.dev/agent/s/sockets/events/{HEX}",
        ),
    ],
)
def test_agent_endpoint(app_base: str | None, url: str, http_base: str, ws_url: str) -> None:
    endpoint = agent_endpoint(app_base, conversation(url))
    assert endpoint == AgentEndpoint(http_base, ws_url, HEX, KEY)
    assert endpoint.conversation_url == f"{http_base}/api/conversations/{HEX}"
    assert KEY not in repr(endpoint)
    # a dict works too
    assert agent_endpoint(app_base, {"conversation_url": url, "session_api_key": KEY}) == endpoint


@pytest.mark.parametrize(
    "app_base, url, message",
    [
        (None, None, "no conversation_url"),
        (None, "", "no conversation_url"),
        (None, f"/agent/x/api/conversations/{HEX}", "relative"),
        ("ftp://app", f"/agent/x/api/conversations/{HEX}", "http(s)"),
        (None, "http://h:8000/api/conversations/", "does not end in"),
        (None, "http://h:8000/somewhere/else", "does not end in"),
        (None, f"ftp://h/api/conversations/{HEX}", "http(s)"),
    ],
)
def test_agent_endpoint_errors(app_base: str | None, url: str | None, message: str) -> None:
    with pytest.raises(InvalidParameter, match=message.replace("(", r"\(").replace(")", r"\)")):
        agent_endpoint(app_base, conversation(url))


def test_agent_endpoint_rejects_malformed_key_without_echoing_it() -> None:
    with pytest.raises(InvalidParameter) as info:
        agent_endpoint(None, conversation(f"http://h/api/conversations/{HEX}", key=" bad key\n"))
    assert "bad key" not in str(info.value)


def test_websocket_url_variants() -> None:
    client = AgentServerClient.for_conversation(
        None, conversation(f"http://h:1/p/api/conversations/{HEX}")
    )
    base = f"ws://h:1/p/sockets/events/{HEX}"
    assert client.websocket_url() == f"{base}?resend_mode=all"
    assert client.websocket_url(resend_mode=None) == base
    assert client.websocket_url(resend_mode="since", after_timestamp="2026-11-21T22:53:04.5") == (
        f"{base}?resend_mode=since&after_timestamp=2026-11-21T22%3A53%3A04.5"
    )
    assert client.websocket_url(include_key=True) == f"{base}?resend_mode=all&session_api_key={KEY}"
    with pytest.raises(InvalidParameter):
        client.websocket_url(resend_mode="since")
    stream = client.event_stream(offline_after=2)
    assert isinstance(stream, EventStream) and stream._key == KEY and stream.offline_after == 2
    assert stream.gaps.endpoint == client.endpoint  # its gaps are read from the same agent server
    assert KEY not in repr(stream) and KEY not in repr(stream.gaps.endpoint)


# --- control calls -------------------------------------------------------------------------


class Recorder:
    def __init__(self, *responses: httpx.Response) -> None:
        self.responses = list(responses)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return self.responses.pop(0) if len(self.responses) > 1 else self.responses[0]


def captured(name: str) -> httpx.Response:
    data = json.loads((REST / name).read_text())
    return httpx.Response(data["status"], json=data["body"])


def make(recorder: Recorder, url: str = f"http://h:8000/agent/abc/api/conversations/{HEX}"):
    return AgentServerClient.for_conversation(
        None, conversation(url), transport=httpx.MockTransport(recorder), backoff=0
    )


@pytest.mark.parametrize(
    "call, path, body, response",
    [
        (lambda c: c.pause(), "/pause", None, "slow_pause_response.json"),
        (lambda c: c.interrupt(), "/interrupt", None, "slow_interrupt_response.json"),
        (lambda c: c.run(), "/run", None, "slow_pause_response.json"),
        (
            lambda c: c.send_message("Thanks!"),
            "/events",
            {"role": "user", "content": [{"type": "text", "text": "Thanks!"}], "run": True},
            "demo_send_message_rest_response.json",
        ),
        (
            lambda c: c.send_message("later", run=False),
            "/events",
            {"role": "user", "content": [{"type": "text", "text": "later"}], "run": False},
            "demo_send_message_rest_response.json",
        ),
        (
            lambda c: c.respond_to_confirmation(False),
            "/events/respond_to_confirmation",
            {"accept": False, "reason": "User rejected the action."},
            "confirm_respond_response.json",
        ),
        (
            lambda c: c.respond_to_confirmation(True, "ok"),
            "/events/respond_to_confirmation",
            {"accept": True, "reason": "ok"},
            "confirm_respond_response.json",
        ),
    ],
)
async def test_request_shapes(call, path: str, body: Any, response: str) -> None:
    recorder = Recorder(captured(response))
    async with make(recorder) as client:
        assert await call(client) is True
    (request,) = recorder.requests
    assert request.method == "POST"
    assert str(request.url) == f"http://h:8000/agent/abc/api/conversations/{HEX}{path}"
    assert request.headers["X-Session-API-Key"] == KEY
    assert "authorization" not in request.headers
    if body is None:
        assert request.content == b""
    else:
        assert json.loads(request.content) == body


async def test_run_while_running_is_conflict_and_not_retried() -> None:
    recorder = Recorder(httpx.Response(409, json={"detail": "Conversation already running"}))
    async with make(recorder) as client:
        with pytest.raises(Conflict, match="already running"):
            await client.run()
    assert len(recorder.requests) == 1


async def test_pause_is_retried_but_message_is_not() -> None:
    recorder = Recorder(httpx.Response(503), httpx.Response(200, json={"success": True}))
    async with make(recorder) as client:
        assert await client.pause() is True
    assert len(recorder.requests) == 2
    recorder = Recorder(httpx.Response(503), httpx.Response(200, json={"success": True}))
    async with make(recorder) as client:
        with pytest.raises(ServerError):
            await client.send_message("once")
    assert len(recorder.requests) == 1


async def test_errors_are_redacted(caplog) -> None:
    caplog.set_level(logging.DEBUG)
    recorder = Recorder(httpx.Response(401, json={"detail": f"bad key {KEY}"}))
    async with make(recorder) as client:
        with pytest.raises(AuthError) as info:
            await client.interrupt()
        assert KEY not in repr(client)
    assert KEY not in str(info.value) and KEY not in repr(info.value)
    assert KEY not in str(info.value.detail)
    assert KEY not in caplog.text


async def test_unexpected_body_and_success_false() -> None:
    async with make(Recorder(httpx.Response(200, json=[1]))) as client:
        with pytest.raises(BadResponse):
            await client.pause()
    async with make(Recorder(httpx.Response(200, json={"success": False}))) as client:
        assert await client.pause() is False
    async with make(Recorder(httpx.Response(200))) as client:
        assert await client.run() is True


async def test_parameter_checks() -> None:
    async with make(Recorder(httpx.Response(200))) as client:
        for bad in ("", "   ", None, 5):
            with pytest.raises(InvalidParameter):
                await client.send_message(bad)  # type: ignore[arg-type]
        with pytest.raises(InvalidParameter):
            await client.send_message("x", run="yes")  # type: ignore[arg-type]
        with pytest.raises(InvalidParameter):
            await client.respond_to_confirmation("no")  # type: ignore[arg-type]
    with pytest.raises(InvalidParameter):
        AgentServerClient("http://h")  # type: ignore[arg-type]
