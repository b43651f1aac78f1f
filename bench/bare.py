"""bare: the toolkit's limit for opening a conversation, against which ohtui's open is judged.

A minimal Textual app with one Line-API list and nothing else. Its screen is pushed on a
running app (as ohtui's conversation screen is pushed from its list); on mount it makes one
raw ``httpx`` GET of a page of 100 events from the same reference server (on a connection
already open, as the app's is), ``json.loads`` it, and hands the rows to the list. Timed
from the push to the first paint showing those rows: everything Textual must do at least.

ohtui's open is timed the same way (``bench.open``: ``open_conversation`` → first paint with
rows) in the same process run, at 100 and 100,000 events, so the ratio is like for like.

    python -m bench.bare [--repeat 5] [--sizes 100,100000]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time

import httpx
from rich.segment import Segment
from textual import work
from textual.app import App, ComposeResult
from textual.geometry import Size
from textual.screen import Screen
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widgets import Static

from bench.common import DB, SIZE, PaintProbe, dataset, median, report, server_process, until


class BareList(ScrollView):
    """One line per event: time, source, kind (the least a list of events shows)."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[str] = []

    def set_rows(self, rows: list[str]) -> None:
        self.rows = rows
        self.virtual_size = Size(self.size.width, len(rows))
        self.refresh()

    def render_line(self, y: int) -> Strip:
        index = self.scroll_offset.y + y
        if index >= len(self.rows):
            return Strip.blank(self.size.width)
        return Strip([Segment(self.rows[index][: self.size.width])]).extend_cell_length(
            self.size.width
        )


class BareScreen(Screen):
    def __init__(self, client: httpx.AsyncClient, cid: str) -> None:
        super().__init__()
        self.client, self.cid = client, cid

    def compose(self) -> ComposeResult:
        yield BareList()

    def on_mount(self) -> None:
        self.load()

    @work
    async def load(self) -> None:
        response = await self.client.get(
            f"/api/v1/conversation/{self.cid}/events/search", params={"limit": 100}
        )
        items = json.loads(response.content)["items"]
        rows = [
            f"{(e.get('timestamp') or '')[11:19]}  {e.get('source', ''):<6} {e.get('kind', '')}"
            for e in items
        ]
        self.query_one(BareList).set_rows(rows)


class BareApp(App):
    def __init__(self, url: str) -> None:
        super().__init__()
        self.url = url
        self.client: httpx.AsyncClient | None = None

    def compose(self) -> ComposeResult:
        yield Static("bare")

    async def on_mount(self) -> None:
        self.client = httpx.AsyncClient(base_url=self.url)


async def bare_open(url: str, cid: str) -> float:
    """Seconds from pushing the bare screen to the first paint showing its rows."""
    app = BareApp(url)
    app.animation_level = "none"
    probe = PaintProbe(app)
    async with app.run_test(size=SIZE):
        await until(lambda: app.client is not None)
        # the connection is open, as the app's is when a conversation is opened from its list
        path = f"/api/v1/conversation/{cid}/events/search"
        (await app.client.get(path, params={"limit": 1})).raise_for_status()
        screen = BareScreen(app.client, cid)
        began = time.perf_counter()
        app.push_screen(screen)
        probe.watch(screen)
        probe.expect(lambda: bool(screen.is_mounted and screen.query(BareList).first().rows))
        await until(lambda: probe.shown_at is not None)
        shown = probe.shown_at - began
        await app.client.aclose()
    return shown


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--sizes", default="100,100000")
    args = parser.parse_args()
    sizes = tuple(int(s) for s in args.sizes.split(","))
    ids = dataset(sizes)
    figures: dict[str, float] = {}
    with server_process("--db", str(DB)) as url:
        for n in sizes:
            runs = [asyncio.run(bare_open(url, ids[n])) for _ in range(args.repeat)]
            figures[f"bare_{n}_ms"] = median(runs) * 1000
            print(
                f"{n:>7,} events: bare screen pushed → rows painted {figures[f'bare_{n}_ms']:6.1f} ms "
                f"(runs: {', '.join(f'{r * 1000:.0f}' for r in runs)})",
                flush=True,
            )
    report("bare", figures)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
