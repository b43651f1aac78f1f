"""Regenerate the README's screenshots: the demo data, a fixed terminal size, fixed clock.

Run: python scripts/screenshots.py   (writes screenshots/*.svg)
"""

from __future__ import annotations

import asyncio
import sys
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tui.app.app import OhtuiApp  # noqa: E402
from tui.client import OpenHandsClient  # noqa: E402
from tui.server.embedded import start_demo_server  # noqa: E402

SIZE = (140, 42)
NOW = datetime(2026, 11, 21, 12, 0, 0, tzinfo=timezone.utc)
OUT = ROOT / "screenshots"


async def settle(pilot, seconds: float = 0.6) -> None:
    await pilot.pause(seconds)
    await pilot.pause(0.1)


async def shoot(url: str, name: str, keys: list[str], theme: str | None = None, **options) -> None:
    app = OhtuiApp(OpenHandsClient(url), url=url, clock=lambda: NOW, theme=theme, **options)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for key in keys:
            if key.startswith("wait:"):
                await pilot.pause(float(key[5:]))
            else:
                await pilot.press(key)
        await settle(pilot)
        app.save_screenshot(f"{name}.svg", str(OUT))
        print("wrote", OUT / f"{name}.svg")


async def main() -> None:
    url, stop = start_demo_server()
    try:
        await shoot(url, "conversations", [])
        await shoot(url, "conversation", ["enter", "wait:1.0", "down", "down", "down", "wait:0.3"])
        await shoot(url, "conversation-raw", ["enter", "wait:1.0", "down", "down", "enter", "r"])
        await shoot(url, "sandboxes", ["2", "wait:0.5"])
        await shoot(url, "conversation-light", ["enter", "wait:1.0", "down", "down"], theme="ohtui-light")
    finally:
        stop()


if __name__ == "__main__":
    asyncio.run(main())
