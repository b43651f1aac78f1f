"""The README's test command is exactly what CI runs (``.ci/run``), so a user runs what CI runs."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_readme_test_command_is_the_ci_command():
    ci = [line for line in (ROOT / ".ci" / "run").read_text().splitlines() if line.strip()][-1]
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("```bash\n", 1)[1].split("```", 1)[0].splitlines()
    assert block[1] == ci
    assert "pytest -q -n 2" in ci and "ruff check" in ci and "ruff format --check" in ci
