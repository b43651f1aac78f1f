"""A loopback TCP proxy that can cut its connections: network faults an ASGI app cannot make.

Between the client and the reference server it forwards bytes unchanged; ``drop_all()``
aborts every open connection at once (no close frame, no FIN handshake), which is what a
crashed proxy, a NAT timeout or a restarted load balancer does: pooled keep-alive HTTP
connections die under the client, and websockets end with 1006.
"""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import Future
from typing import Self


class TcpProxy:
    """``with TcpProxy(upstream_port) as proxy: ... proxy.base_url ... proxy.drop_all()``."""

    def __init__(self, upstream_port: int, host: str = "127.0.0.1") -> None:
        self.host = host
        self.upstream_port = upstream_port
        self.port = 0
        self.connections = 0
        self.drops = 0
        self._loop = asyncio.new_event_loop()
        self._open: set[asyncio.Transport] = set()
        self._thread = threading.Thread(
            target=self._loop.run_forever, name="tcp-proxy", daemon=True
        )
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
        self.drop_all()

        async def stop() -> None:
            assert self._server is not None
            self._server.close()

        self._call(stop())
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)

    def _call(self, coro):  # run on the proxy's loop, wait for the result
        future: Future = asyncio.run_coroutine_threadsafe(coro, self._loop)
        return future.result(10)

    def drop_all(self) -> int:
        """Abort every open connection (both sides); returns how many client connections died."""

        async def abort() -> int:
            victims = list(self._open)
            for transport in victims:
                transport.abort()
            self._open.clear()
            return len(victims) // 2

        count = self._call(abort())
        self.drops += count
        return count

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            up_reader, up_writer = await asyncio.open_connection(self.host, self.upstream_port)
        except OSError:
            writer.transport.abort()
            return
        pair = {writer.transport, up_writer.transport}
        self._open |= pair

        async def pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
            try:
                while data := await src.read(65536):
                    dst.write(data)
                    await dst.drain()
            except (ConnectionError, OSError):
                pass
            finally:
                dst.transport.abort() if dst.transport.is_closing() else dst.close()

        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))
        self._open -= pair
