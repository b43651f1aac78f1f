"""The command line as a person types it: settings options on either side of the command
word, URLs checked before anything starts, ``--server-kind``, ``ohtui export`` of a local
conversation folder, and failures titled by what happened with the next step.

Every test runs with HOME and XDG_* inside ``tmp_path`` and no OHTUI_* variable inherited.
"""

from __future__ import annotations

import json
import os
import re
import socket
from pathlib import Path

import pytest

from tests.helpers.folder_helpers import write_folder
from tui.cli import main
from tui.client import http as client_http
from tui.commands.options import command_word
from tui.server import Store, load_demo
from tui.server.demo import generate_conversation

IDS = load_demo(Store())
KEY = "sk-cli-commands-7e1d"


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch) -> Path:
    for name in list(os.environ):
        if name.startswith("OHTUI_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    for var in ("CONFIG", "DATA", "STATE", "CACHE"):
        monkeypatch.setenv(f"XDG_{var}_HOME", str(tmp_path / var.lower()))
    return tmp_path / "config" / "ohtui" / "config.toml"


def usage_error(argv: list[str], capsys) -> str:
    """Standard error of a command line argparse refuses (exit 2)."""
    with pytest.raises(SystemExit) as exited:
        main(argv)
    assert exited.value.code == 2
    return capsys.readouterr().err


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# --- where the command word is ----------------------------------------------------------------


def test_the_command_word_is_found_after_settings_options():
    assert command_word(["info"]) == "info"
    assert command_word(["--readonly", "info"]) == "info"
    assert command_word(["--url", "http://h", "export", "x"]) == "export"
    assert command_word(["-P", "work", "--theme", "info", "info"]) == "info"  # a value, then it
    assert command_word(["--conversation", "export"]) is None  # the id is not a command
    assert command_word(["--", "info"]) is None  # after --, a PATH named info
    assert command_word(["./info"]) is None and command_word([]) is None


@pytest.mark.parametrize(
    "argv",
    [
        ["--readonly", "info", "--no-probe"],
        ["info", "--readonly", "--no-probe"],
        ["--no-readonly", "info", "--readonly", "--no-probe"],  # the later one wins
    ],
)
def test_global_options_before_or_after_the_command(argv, capsys):
    assert main(argv) == 0
    assert re.search(r"readonly\s+yes\s+\[flag --readonly\]", capsys.readouterr().out)


def test_options_before_the_command_are_not_reset_by_the_command(capsys):
    assert main(["--theme", "before", "--readonly", "info", "--no-probe"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"theme\s+before\s+\[flag --theme\]", out)
    assert re.search(r"readonly\s+yes", out)


def test_export_with_the_url_before_or_after_the_command(demo_server, capsys):
    for argv in (
        ["--url", demo_server.base_url, "export", IDS["hello"], "-f", "jsonl"],
        ["export", IDS["hello"], "-f", "jsonl", "--url", demo_server.base_url],
    ):
        assert main(argv) == 0
        lines = capsys.readouterr().out.splitlines()
        assert len(lines) > 10 and all(json.loads(line)["id"] for line in lines)


def test_command_help_lists_the_settings_options(capsys):
    for command in ("info", "export"):
        with pytest.raises(SystemExit) as exited:
            main([command, "--help"])
        assert exited.value.code == 0
        out = capsys.readouterr().out
        for option in ("--url", "--readonly", "--server-kind", "--profile", "--session-key"):
            assert option in out, (command, option)


def test_options_that_do_not_apply_are_refused(capsys):
    assert main(["--url", "http://h", "config", "path"]) == 2
    assert "--url does not apply" in capsys.readouterr().err
    assert main(["--session-key", KEY, "serve"]) == 2
    err = capsys.readouterr().err
    assert "after 'serve'" in err and KEY not in err


def test_config_takes_its_file_before_or_after(tmp_path, capsys):
    target = tmp_path / "elsewhere.toml"
    for argv in (
        ["--config", str(target), "config", "path"],
        ["config", "path", "--config", str(target)],
    ):
        assert main(argv) == 0
        assert capsys.readouterr().out.strip() == str(target)


# --- URLs -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("notaurl", "write http://notaurl"),
        ("localhost:8000", "write http://localhost:8000"),
        ("ftp://example.com", "not an http or https URL"),
        ("http://", "names no host"),
        ("http://h:port", "not a valid URL"),
    ],
)
def test_a_bad_url_is_a_usage_error_before_anything_starts(url, says, capsys):
    err = usage_error(["--url", url], capsys)
    assert "argument --url" in err and says in err
    assert says in usage_error(["info", "--url", url], capsys)


def test_a_password_in_a_bad_url_is_not_echoed(capsys):
    err = usage_error(["--url", "ftp://me:hunter2@example.com"], capsys)
    assert "hunter2" not in err and "me:****@example.com" in err


def test_a_bad_url_from_the_environment_or_a_profile_names_its_source(
    isolated, monkeypatch, capsys
):
    monkeypatch.setenv("OHTUI_URL", "example.com")
    assert main([]) == 2
    err = capsys.readouterr().err
    assert "url (env OHTUI_URL)" in err and "write http://example.com" in err
    monkeypatch.delenv("OHTUI_URL")
    isolated.parent.mkdir(parents=True)
    isolated.write_text('default_profile = "w"\n\n[profiles.w]\nurl = "w.example"\n')
    assert main(["export", "x"]) == 2
    assert re.search(r"profiles\.w\.url \(file .*config\.toml, line 4\)", capsys.readouterr().err)


# --- keys on the command line ---------------------------------------------------------------


@pytest.mark.parametrize(
    "argv",
    [
        ["info", "--no-probe", "--api-key", KEY, "--session-key", KEY],
        ["--api-key", KEY, "--session-key", KEY, "info", "--no-probe"],
    ],
)
def test_keys_given_as_options_are_warned_about_once(argv, capsys):
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert KEY not in err
    said = "ohtui info: warning: {} is visible to every local user in the process list; prefer {}"
    assert err.splitlines() == [
        said.format("--api-key", "OHTUI_API_KEY or a profile's api_key_env / api_key_file"),
        said.format(
            "--session-key", "OHTUI_SESSION_KEY or a profile's session_key_env / session_key_file"
        ),
    ]


def test_the_app_warns_before_it_starts_and_the_environment_is_quiet(monkeypatch, capsys):
    assert main(["--session-key", KEY, "--shared"]) == 2  # stops before the app would start
    err = capsys.readouterr().err
    assert err.startswith("ohtui: warning: --session-key is visible") and KEY not in err
    monkeypatch.setenv("OHTUI_SESSION_KEY", KEY)
    monkeypatch.setenv("OHTUI_API_KEY", KEY)
    assert main(["info", "--no-probe"]) == 0
    assert "warning" not in capsys.readouterr().err


# --- server kind ------------------------------------------------------------------------------


def test_server_kind_from_flag_env_and_profile(isolated, monkeypatch, capsys):
    isolated.parent.mkdir(parents=True)
    isolated.write_text(
        'default_profile = "agent"\n\n[profiles.agent]\nurl = "http://127.0.0.1:9"\n'
        'server_kind = "agent"\n'
    )
    assert main(["info", "--no-probe"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"server kind\s+agent\s+\[profile agent\]", out)
    assert re.search(r"\*agent\s+http://127\.0\.0\.1:9\s+\(server kind agent\)", out)
    monkeypatch.setenv("OHTUI_SERVER_KIND", "app")
    assert main(["info", "--no-probe"]) == 0
    assert re.search(r"server kind\s+app\s+\[env OHTUI_SERVER_KIND\]", capsys.readouterr().out)
    assert main(["--server-kind", "shared", "info", "--no-probe"]) == 0
    assert re.search(r"server kind\s+shared\s+\[flag --server-kind\]", capsys.readouterr().out)
    # the profile's kind is about the profile's server: another URL is detected
    monkeypatch.delenv("OHTUI_SERVER_KIND")
    assert main(["info", "--no-probe", "--url", "http://elsewhere.example"]) == 0
    assert re.search(r"server kind\s+detect\s+\[default\]", capsys.readouterr().out)


def test_an_unknown_server_kind_is_refused(monkeypatch, capsys):
    assert "invalid choice: 'bare'" in usage_error(["--server-kind", "bare"], capsys)
    monkeypatch.setenv("OHTUI_SERVER_KIND", "bare")
    assert main(["info"]) == 1
    assert "server_kind (env OHTUI_SERVER_KIND)" in capsys.readouterr().out


# --- export of local folders ------------------------------------------------------------------


def _folders(root: Path, count: int) -> list[tuple[str, int]]:
    made = []
    for seed in range(count):
        store = Store()
        cid = generate_conversation(store, 12 + seed, seed=seed)
        events = [json.loads(row.json) for row in store.iter_events(cid)]
        write_folder(root, cid, events)
        made.append((cid, len(events)))
    return made


def test_export_of_one_conversation_folder(tmp_path, capsys):
    [(cid, count)] = _folders(tmp_path / "convs", 1)
    assert main(["export", str(tmp_path / "convs" / cid), "--format", "jsonl"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == count and all(json.loads(line)["id"] for line in lines)
    # a folder of conversations that holds just one needs no id either
    target = tmp_path / "out.md"
    assert main(["export", "--local", str(tmp_path / "convs"), "-o", str(target)]) == 0
    assert f"wrote {count} event(s)" in capsys.readouterr().err
    assert target.read_text(encoding="utf-8").startswith("# local ")


def test_export_local_dir_and_id(tmp_path, capsys):
    made = _folders(tmp_path, 3)
    cid, count = made[1]
    assert main(["export", "--local", str(tmp_path), cid, "-f", "jsonl"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == count
    dashed = f"{cid[:8]}-{cid[8:12]}-{cid[12:16]}-{cid[16:20]}-{cid[20:]}".upper()
    assert main(["export", "--local", str(tmp_path), dashed, "-f", "jsonl"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == count
    assert main(["export", str(tmp_path)]) == 2  # which one?
    err = capsys.readouterr().err
    assert "holds several conversations" in err and "--local" in err
    assert all(f"  {each[:8]}  " in err for each, _ in made), err  # the candidates
    assert main(["export", "--local", str(tmp_path), cid[:6], "-f", "jsonl"]) == 0  # a prefix
    assert len(capsys.readouterr().out.splitlines()) == count


def test_export_local_without_settings_or_server(tmp_path, isolated, capsys):
    # A broken config and a profile whose key is missing do not matter to local folders.
    isolated.parent.mkdir(parents=True)
    isolated.write_text(
        'default_profile = "w"\n[profiles.w]\nurl = "http://h"\napi_key_env = "X"\n'
    )
    _folders(tmp_path / "c", 1)
    assert main(["--url", f"http://127.0.0.1:{closed_port()}", "export", str(tmp_path / "c")]) == 0
    assert capsys.readouterr().out.startswith("# ")


def test_export_local_problems(tmp_path, capsys):
    assert main(["export", str(tmp_path / "missing")]) == 2
    assert "no OpenHands conversation folders" in capsys.readouterr().err
    _folders(tmp_path, 1)
    assert main(["export", str(tmp_path), "--shared"]) == 2
    assert "--shared" in capsys.readouterr().err
    assert main(["export", "--local", str(tmp_path), "f" * 32]) == 2
    assert "conversation not found" in capsys.readouterr().err
    assert main(["export"]) == 2
    assert "name a conversation" in capsys.readouterr().err


# --- failures titled by what happened ---------------------------------------------------------


def test_export_refused_key_says_where_keys_go(make_server, tmp_path, capsys):
    store = Store()
    cid = load_demo(store)["hello"]
    server = make_server(store, session_key=KEY)
    assert main(["export", cid, "--url", server.base_url]) == 1
    err = capsys.readouterr().err
    assert err.startswith("ohtui export: the server wants a key")
    assert "OHTUI_SESSION_KEY / --session-key" in err
    wrong = "sk-wrong-key-1234"
    assert main(["export", cid, "--url", server.base_url, "--session-key", wrong]) == 1
    warning, err = capsys.readouterr().err.split("\n", 1)
    assert warning.startswith("ohtui export: warning: --session-key is visible")
    assert err.startswith("ohtui export: the server refused the key")
    assert "next: set OHTUI_SESSION_KEY / --session-key" in err and wrong not in err
    assert main(["export", cid, "--url", server.base_url, "--session-key", KEY, "-f", "jsonl"]) == 0


def test_export_unreachable_and_not_found(demo_server, tmp_path, capsys, monkeypatch):
    waits: list[float] = []

    async def no_wait(seconds: float) -> None:  # the retries' pauses, recorded, not slept
        waits.append(seconds)

    monkeypatch.setattr(client_http, "_sleep", no_wait)
    port = closed_port()
    assert main(["export", "1" * 32, "--url", f"http://127.0.0.1:{port}"]) == 1
    assert len(waits) >= 3  # it tried again, patiently, before giving up
    err = capsys.readouterr().err
    assert err.startswith("ohtui export: cannot reach the server")
    assert "next: is it running" in err and "Traceback" not in err
    assert len(err.splitlines()) == 3  # title, detail, next step: no log lines in between
    assert main(["export", "0" * 32, "--url", demo_server.base_url]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0] == f"ohtui export: conversation not found: {'0' * 32}"
    assert err[1].startswith("  next: check the id (`ohtui` lists the conversations")


def test_an_unknown_theme_lists_the_themes(capsys):
    assert main(["--theme", "nope"]) == 2
    err = capsys.readouterr().err
    assert "unknown theme 'nope' (from flag --theme)" in err
    assert re.search(r"themes: ohtui-dark, ohtui-light, .*textual-dark", err)
