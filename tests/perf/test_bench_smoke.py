"""Each benchmark still runs (at a tiny size, into a throw-away dataset); no timing is asserted."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    "name, args",
    [
        ("open", ["--repeat", "1", "--sizes", "100"]),
        ("keys", ["--presses", "2", "--sizes", "100"]),
        ("load", ["--size", "300", "--repeat", "1"]),
        ("live", ["--rates", "200", "--seconds", "0.5"]),
        ("startup", ["--repeat", "1"]),
        ("hostile", ["--sizes", "0.01,0.02", "--tree", "2000", "--repeat", "1"]),
        ("board", ["--agents", "6", "--sockets", "2", "--seconds", "0.5", "--presses", "3"]),
        ("big_output", ["--mb", "0.05", "--line", "2000"]),
        ("big_payloads", ["--outputs", "2", "--mb", "0.05", "--servers", "folder"]),
        ("insights", ["--size", "300", "--repeat", "1", "--presses", "2"]),
        ("changes", ["--files", "8", "--presses", "2", "--repeat", "1"]),
    ],
)
def test_bench_runs_and_reports(name, args, tmp_path):
    if name == "changes" and shutil.which("git") is None:
        pytest.skip("git is not installed: the Changes benchmark has no workspace")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OHTUI_BENCH_DB": str(tmp_path / "bench.sqlite")}
    result = subprocess.run(
        [sys.executable, "-m", f"bench.{name}", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    reported = [
        json.loads(line[7:]) for line in result.stdout.splitlines() if line.startswith("RESULT ")
    ]
    assert reported and reported[-1]["bench"] == name
    if name == "live":
        assert reported[-1]["lost_200"] == 0 and reported[-1]["sent_200"] > 0
    if name == "load":
        assert reported[-1]["events"] == 300
    if name == "board":
        assert reported[-1]["rows"] == 6 and reported[-1]["followers_max"] <= 2
    if name == "big_output":
        assert reported[-1]["mb"] == 0.05 and reported[-1]["long_line_s"] > 0
    if name == "big_payloads":
        assert reported[-1]["folder_app_peak_mb"] > 0 and reported[-1]["folder_export_s"] > 0
    if name == "insights":
        assert reported[-1]["events"] == 300 and reported[-1]["ratio"] > 0
    if name == "changes":
        assert reported[-1]["diff_rows"] > 0 and reported[-1]["first_rows_ms"] > 0
    if name == "hostile":
        assert reported[-1]["tree_events"] == 2000 and "output_jsonl_0.02mb_ratio" in reported[-1]
