"""The command line: cheap --version/--help, python -m tui, and argument checks."""

from __future__ import annotations

import subprocess
import sys

from tui import __version__
from tui.cli import build_parser, main


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tui", *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_version_via_python_m():
    result = run("--version")
    assert result.returncode == 0 and result.stdout.strip() == f"ohtui {__version__}"


def test_version_does_not_import_the_ui():
    code = "import sys; from tui.cli import main\ntry:\n    main(['--version'])\nexcept SystemExit:\n    pass\nprint('textual' in sys.modules, 'httpx' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert result.stdout.split()[-2:] == ["False", "False"]


def test_help_lists_the_options():
    result = run("--help")
    assert result.returncode == 0
    for option in (
        "--url",
        "--api-key",
        "--session-key",
        "--conversation",
        "--shared",
        "--theme",
        "--readonly",
        "ohtui serve",
    ):
        assert option in result.stdout


def test_shared_needs_a_conversation(capsys):
    assert main(["--shared"]) == 2
    assert "--shared needs --conversation" in capsys.readouterr().err


def test_environment_supplies_defaults(monkeypatch):
    monkeypatch.setenv("OHTUI_URL", "http://127.0.0.1:1")
    monkeypatch.setenv("OHTUI_API_KEY", "k")
    args = build_parser().parse_args([])
    assert args.url == "http://127.0.0.1:1" and args.api_key == "k"
    assert build_parser().parse_args(["--url", "http://x"]).url == "http://x"


def test_help_of_the_app_and_the_commands_imports_nothing_heavy():
    code = (
        "import sys\nfrom tui.cli import main\n"
        "for argv in (['--help'], ['info', '--help'], ['export', '--help'], ['--version']):\n"
        "    try:\n        main(argv)\n    except SystemExit:\n        pass\n"
        "heavy = [m for m in ('textual', 'httpx', 'pydantic', 'pydantic_settings') if m in sys.modules]\n"
        "print('HEAVY', heavy)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert result.stdout.splitlines()[-1] == "HEAVY []"
