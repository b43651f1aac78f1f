"""The whole-log walk's helper: its interpreter imports no httpx (``tui.client``'s names
load on first use), which would add ~0.05 s of CPU to its start, which the walk waits for."""

from __future__ import annotations

import subprocess
import sys


def test_the_helpers_imports_leave_httpx_out():
    code = (
        "import sys, tui.app.page_worker, tui.app.page_walker\n"
        "print(sorted(m for m in ('httpx', 'httpcore', 'anyio') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
