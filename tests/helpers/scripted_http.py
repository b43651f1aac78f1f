"""A loopback HTTP/1.1 server whose every answer (or silence) is scripted per connection.

For faults of the connection itself that a well-behaved ASGI app cannot be made to show on
cue: uvicorn's "500 without ``Connection: close``, then close" (facts §10) with the close
arriving after the client's next request is on the wire, or a server that reads a request
and drops the connection without answering. Real sockets, real keep-alive.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any, Self


@dataclass
class Seen:
    """One request as the server read it: which connection, its number there, and what."""

    connection: int
    number: int  # 1 = first request on that connection
    method: str
    path: str


@dataclass
class Answer:
    status: int = 200
    body: Any = None  # JSON-encoded unless bytes
    content_type: str = "application/json"
    close_before_next: bool = False  # keep the socket, then close it when the next request comes
    drop: bool = False  # read the request, answer nothing, close
    headers: dict[str, str] = field(default_factory=dict)
    declared_length: int | None = None  # a Content-Length other than the body's own
    endless: bytes | None = None  # a chunked body of these bytes again and again, never ending


Script = Callable[[Seen], Answer]


class ScriptedHttpServer:
    """``with ScriptedHttpServer(script) as server: ... server.base_url ... server.seen``."""

    def __init__(self, script: Script, host: str = "127.0.0.1") -> None:
        self.script = script
        self.host = host
        self.port = 0
        self.seen: list[Seen] = []
        self.connections = 0
        self.body_sent = 0  # bytes of answers' bodies written
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._server: asyncio.base_events.Server | None = None

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def __enter__(self) -> Self:
        self._thread.start()
        self._server = self._call(asyncio.start_server(self._handle, self.host, 0))
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    def __exit__(self, *exc: object) -> None:
        async def stop() -> None:
            assert self._server is not None
            self._server.close()

        self._call(stop())
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)

    def _call(self, coro: Any) -> Any:
        future: Future = asyncio.run_coroutine_threadsafe(coro, self._loop)
        return future.result(10)

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        connection = self.connections
        number = 0
        closing = False
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                if closing:  # the close "arrives" after the client wrote this request
                    writer.transport.abort()
                    return
                lines = head.decode("latin-1").split("\r\n")
                method, target, _ = lines[0].split(" ", 2)
                headers = {
                    k.strip().lower(): v.strip()
                    for k, v in (line.split(":", 1) for line in lines[1:] if ":" in line)
                }
                await reader.readexactly(int(headers.get("content-length", "0")))
                number += 1
                seen = Seen(connection, number, method, target.split("?", 1)[0])
                self.seen.append(seen)
                answer = self.script(seen)
                if answer.drop:
                    writer.transport.abort()
                    return
                head, body = _response(answer)
                writer.write(head + body)
                self.body_sent += len(body)
                await writer.drain()
                while answer.endless:  # until the client stops reading and closes
                    frame = b"%x\r\n%s\r\n" % (len(answer.endless), answer.endless)
                    writer.write(frame)
                    self.body_sent += len(answer.endless)
                    await writer.drain()
                closing = answer.close_before_next
        except (asyncio.IncompleteReadError, ConnectionError):
            writer.close()


def _response(answer: Answer) -> tuple[bytes, bytes]:
    if isinstance(answer.body, bytes):
        body = answer.body
    else:
        body = json.dumps(answer.body).encode()
    reasons = {200: "OK", 404: "Not Found", 500: "Internal Server Error"}
    lines = [
        f"HTTP/1.1 {answer.status} {reasons.get(answer.status, 'Status')}",
        f"content-type: {answer.content_type}",
        *(f"{k}: {v}" for k, v in answer.headers.items()),
    ]
    if answer.endless:
        lines.append("transfer-encoding: chunked")
        body = b""
    else:
        length = answer.declared_length if answer.declared_length is not None else len(body)
        lines.append(f"content-length: {length}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"), body


__all__ = ["Answer", "ScriptedHttpServer", "Seen"]
