"""A user's own files never stop ohtui: themes, the config file, ``OHTUI_*`` values and
``agent_settings_file`` that are minimal, FIFOs, devices, endless, huge or nested too deeply.

A theme that cannot be used is skipped with a notice naming it; a setting that cannot be read
stops the CLI with one line naming the file (exit 2) — never a traceback, never a hang. A
FIFO here has a writer waiting in a thread (:func:`fifo_writer`): a reader that opened it
would get a valid file and an end, so a test sees whether it was opened, and never hangs.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from textual.color import Color

from tests.cli.test_config import write_config
from tests.helpers.app_helpers import SIZE, conversations_shown, make_app, wait_for
from tui.app.themes import VARIABLES, load_themes, theme_style
from tui.cli import build_parser
from tui.commands.connect import load_settings
from tui.config import ConfigError, load

DEVICE = Path("/dev/zero")
needs_posix = pytest.mark.skipif(not DEVICE.exists(), reason="needs FIFOs and /dev/zero")


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch) -> Path:
    for name in list(os.environ):
        if name.startswith("OHTUI_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    for var in ("CONFIG", "DATA", "STATE", "CACHE"):
        monkeypatch.setenv(f"XDG_{var}_HOME", str(tmp_path / var.lower()))
    return tmp_path / "config" / "ohtui" / "config.toml"


@contextmanager
def fifo_writer(path: Path, content: str) -> Iterator[threading.Event]:
    """A FIFO at ``path`` whose writer waits for a reader, then gives it ``content`` and an
    end. The event is set once something opened it. On leaving, the writer is released (this
    opens it itself), so the thread always ends."""
    os.mkfifo(path)
    opened = threading.Event()

    def write() -> None:
        with open(path, "w", encoding="utf-8") as out:  # blocks until a reader opens it
            opened.set()
            out.write(content)

    thread = threading.Thread(target=write, daemon=True)
    thread.start()
    try:
        yield opened
    finally:
        release = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        thread.join()
        os.close(release)


def minimal(name: str) -> str:
    return json.dumps({"name": name, "primary": "#336699"})


# --- themes ---------------------------------------------------------------------------------


async def test_a_minimal_theme_and_one_named_like_a_bundled_one_both_work(
    demo_server, tmp_path, monkeypatch
):
    themes = tmp_path / "themes"
    themes.mkdir()
    (themes / "mini.json").write_text(minimal("mini"))
    (themes / "dark.json").write_text(minimal("ohtui-dark"))  # the default: every start
    monkeypatch.setattr("tui.paths.config_dir", lambda: tmp_path)
    for theme in (None, "mini"):
        await _starts_in_the_minimal_theme(demo_server.base_url, theme)


async def _starts_in_the_minimal_theme(url: str, theme: str | None) -> None:
    app = make_app(url, theme=theme)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        assert app.current_theme.primary == "#336699"
        # the colours it does not give are derived from those it gives, as Textual does
        assert all(theme_style(f"${name}").color is not None for name in VARIABLES)
        assert app.theme_variables["status-error"] == Color.parse("#336699").hex


@needs_posix
def test_a_theme_that_is_a_fifo_is_never_opened(tmp_path):
    with fifo_writer(tmp_path / "fifo.json", minimal("from-fifo")) as opened:
        themes, problems = load_themes(tmp_path)
        assert not opened.is_set()
    assert "from-fifo" not in {theme.name for theme in themes}
    assert problems == [f"{tmp_path / 'fifo.json'} is a FIFO, not a regular file: never read"]


@needs_posix
def test_a_theme_that_is_a_device_or_too_large_is_skipped_with_a_word(tmp_path):
    (tmp_path / "zero.json").symlink_to(DEVICE)
    (tmp_path / "huge.json").write_text(minimal("huge")[:-1] + ', "x": "' + "y" * 300_000 + '"}')
    (tmp_path / "ok.json").write_text(minimal("ok"))
    themes, problems = load_themes(tmp_path)
    size = (tmp_path / "huge.json").stat().st_size
    assert "ok" in {theme.name for theme in themes}
    assert problems == [
        f"{tmp_path / 'huge.json'} is {size:,} bytes, over the 262,144-byte limit: not read",
        f"{tmp_path / 'zero.json'} is a character device, not a regular file: never read",
    ]


@pytest.mark.parametrize(
    ("fields", "words"),
    [
        ({"luminosity_spread": "wide"}, "luminosity_spread"),
        ({"dark": "yes"}, "dark"),
        ({"variables": ["a"]}, "variables"),
        ({"variables": {"status-running": 5}}, "status-running"),
        ({"name": "x" * 200}, "name"),
        ({"name": "a theme"}, "name"),
    ],
)
async def test_a_theme_with_a_hostile_field_is_skipped_with_a_word(
    demo_server, tmp_path, monkeypatch, fields, words
):
    (tmp_path / "themes").mkdir()
    data = {"name": "odd", "primary": "#336699", **fields}
    (tmp_path / "themes" / "odd.json").write_text(json.dumps(data))
    monkeypatch.setattr("tui.paths.config_dir", lambda: tmp_path)
    notes: list[str] = []
    app = make_app(demo_server.base_url)
    app.notify = lambda message, **kw: notes.append(str(message))  # type: ignore[method-assign]
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        assert [note for note in notes if "odd.json" in note and words in note], notes
        assert app.theme == "ohtui-dark"


async def test_a_theme_problem_is_shown_literally(demo_server, tmp_path, monkeypatch):
    (tmp_path / "themes").mkdir()
    (tmp_path / "themes" / "[bold]x[red].json").write_text("{")
    monkeypatch.setattr("tui.paths.config_dir", lambda: tmp_path)
    notes: list[tuple[str, object]] = []
    app = make_app(demo_server.base_url)
    app.notify = lambda message, **kw: notes.append((str(message), kw.get("markup", True)))  # type: ignore[method-assign]
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        assert [markup for note, markup in notes if "[bold]x[red].json" in note] == [False]


# --- the config file, OHTUI_* and agent_settings_file ------------------------------------------


def one_line_exit_2(capsys, argv: list[str], *words: str) -> None:
    """``ohtui ARGV`` stops before starting anything (its settings are None: exit 2), with
    one line naming what is wrong."""
    assert load_settings(build_parser(env_defaults=False).parse_args(argv)) is None
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.count("\n") == 1, err
    assert all(word in err for word in words), err


def test_a_deeply_nested_config_file_is_said_in_words(isolated, capsys):
    write_config(isolated, "theme = " + "[" * 5000 + "]" * 5000 + "\n")
    with pytest.raises(ConfigError, match="nested too deeply"):
        load()
    write_config(isolated, "board = " + "{a = " * 5000 + "1" + "}" * 5000 + "\n")
    with pytest.raises(ConfigError, match="nested too deeply"):
        load()
    one_line_exit_2(capsys, [], str(isolated), "nested too deeply")


@needs_posix
def test_a_config_file_that_is_a_fifo_or_a_device_is_refused(isolated, tmp_path, capsys):
    with fifo_writer(tmp_path / "fifo.toml", 'theme = "from-fifo"\n') as opened:
        with pytest.raises(ConfigError, match="is a FIFO, not a regular file"):
            load(config=tmp_path / "fifo.toml")
        assert not opened.is_set()
    one_line_exit_2(capsys, ["--config", str(DEVICE)], f"{DEVICE}: is a character device")


def test_a_config_file_too_large_is_refused(isolated, capsys):
    write_config(isolated, "# " + "x" * (1024 * 1024) + "\n")
    one_line_exit_2(capsys, [], str(isolated), "over the 1,048,576-byte limit")


def test_a_deeply_nested_environment_value_names_its_variable(monkeypatch, capsys):
    monkeypatch.setenv("OHTUI_KEYMAP", '{"a":' * 5000)
    with pytest.raises(ConfigError, match="OHTUI_KEYMAP"):
        load()
    one_line_exit_2(capsys, [], "OHTUI_KEYMAP", "nested too deeply")


@needs_posix
def test_agent_settings_from_a_device_are_refused_unread(isolated, capsys):
    write_config(isolated, f'agent_settings_file = "{DEVICE}"\n')
    resolved = load()
    assert resolved.errors == [
        (
            f"agent_settings_file (file): {DEVICE} is a character device, not a regular file: "
            "never read"
        )
    ]
    one_line_exit_2(capsys, [], str(DEVICE), "not a regular file")


@pytest.mark.parametrize(
    ("content", "words"),
    [
        ('{"a": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested too deeply"),
        ('{"a": ' + "[" * 200 + "]" * 200 + "}", "nested too deeply"),
    ],
)
def test_agent_settings_nested_too_deeply_are_said_in_words(isolated, capsys, content, words):
    isolated.parent.mkdir(parents=True, exist_ok=True)
    (isolated.parent / "agent.json").write_text(content, encoding="utf-8")
    write_config(isolated, 'agent_settings_file = "agent.json"\n')
    resolved = load()
    assert resolved.agent_settings is None
    assert len(resolved.errors) == 1 and words in resolved.errors[0]
    one_line_exit_2(capsys, [], "agent.json", words)


@needs_posix
def test_a_key_file_that_is_a_fifo_is_never_opened(isolated, tmp_path):
    write_config(
        isolated,
        '[profiles.p]\nurl = "http://127.0.0.1:9"\nsession_key_file = "key"\n',
    )
    with fifo_writer(isolated.parent / "key", "a-key\n") as opened:
        resolved = load({"profile": "p"})
        assert not opened.is_set()
    assert resolved.session_key is None
    assert resolved.errors == [
        (
            f"profile 'p': session_key_file {isolated.parent / 'key'} is a FIFO, not a regular "
            "file: never read"
        )
    ]


@needs_posix
def test_a_session_key_file_that_is_a_fifo_is_never_opened(tmp_path):
    from tui.server.serve import SessionKeyError, resolve_session_key

    with fifo_writer(tmp_path / "key", "a-key\n") as opened:
        with pytest.raises(SessionKeyError, match="is a FIFO, not a regular file"):
            resolve_session_key(None, str(tmp_path / "key"), {})
        assert not opened.is_set()


def test_the_bundled_themes_pass_the_check_a_user_theme_gets(tmp_path):
    """The check refuses nothing a real theme holds (the bundled ones set many variables)."""
    from tui.app.themes import bundled_theme_dir

    for source in sorted(bundled_theme_dir().glob("*.json")):
        (tmp_path / source.name).write_text(source.read_text(encoding="utf-8"))
    themes, problems = load_themes(tmp_path)
    assert problems == [] and {"ohtui-dark", "ohtui-light"} <= {t.name for t in themes}
