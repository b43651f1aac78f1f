"""A stand-in for ``tui.app.helper.live_worker``'s helper that misbehaves on purpose, for the
in-line fallback's tests: ``OHTUI_TEST_HELPER`` = ``silent`` (never says it is ready),
``fails`` (every request raises) or ``dies`` (exits on the first request)."""

from __future__ import annotations

import os
import sys

from tui.client.process_worker import serve

MODE = os.environ.get("OHTUI_TEST_HELPER", "fails")


def handle(payload: object) -> object:
    if MODE == "dies":
        os._exit(1)
    raise ValueError("a request this helper cannot read")


if __name__ == "__main__":
    if MODE == "silent":
        sys.stdin.buffer.read()  # reads until its stdin closes, answering nothing
    else:
        serve(handle)
