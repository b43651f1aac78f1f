"""Settings: file < OHTUI_* env < flags, profiles, key references that never leak,
``ohtui info``, ``ohtui config init`` and the keymap applied to a running app.

Every test runs with XDG_* and HOME pointing into ``tmp_path`` and no OHTUI_* variable
inherited, so the real home directory is never read or written.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

import pytest

from tests.helpers.app_helpers import conversations_shown, screen_ready, settled
from tui.cli import main
from tui.config import ConfigError, Settings, describe, load, write_template
from tui.paths import config_location

SENTINEL = "sk-SENTINEL-7f3a9c"


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch) -> Path:
    for name in list(os.environ):
        if name.startswith("OHTUI_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    for var in ("CONFIG", "DATA", "STATE", "CACHE"):
        monkeypatch.setenv(f"XDG_{var}_HOME", str(tmp_path / var.lower()))
    return tmp_path / "config" / "ohtui" / "config.toml"


def write_config(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


PROFILES = """\
default_profile = "work"

[profiles.work]
url = "https://work.example"
api_key_env = "WORK_KEY"

[profiles.local]
url = "http://127.0.0.1:8000"
session_key_file = "local.key"
"""


# --- paths ----------------------------------------------------------------------------------


def test_paths_follow_xdg_and_the_overrides(isolated, tmp_path, monkeypatch, capsys):
    assert config_location().path == isolated and config_location().source == "default"
    assert main(["--print-config-path"]) == 0
    assert capsys.readouterr().out.strip() == str(isolated)
    monkeypatch.setenv("OHTUI_CONFIG", str(tmp_path / "env.toml"))
    assert config_location() == config_location(None)
    assert (
        config_location().path == tmp_path / "env.toml"
        and config_location().source == "OHTUI_CONFIG"
    )
    assert main(["--print-config-path", "--config", str(tmp_path / "flag.toml")]) == 0
    assert capsys.readouterr().out.strip() == str(tmp_path / "flag.toml")


def test_no_file_means_defaults(isolated):
    resolved = load()
    assert not resolved.config_exists
    assert (resolved.url, resolved.theme, resolved.readonly, resolved.keymap) == (
        None,
        None,
        False,
        {},
    )
    assert resolved.origins["theme"] == "default" and resolved.origins["url"] == "default"


def test_a_named_file_that_is_missing_is_an_error(tmp_path, monkeypatch):
    with pytest.raises(ConfigError, match="not found"):
        load(config=tmp_path / "nope.toml")
    monkeypatch.setenv("OHTUI_CONFIG", str(tmp_path / "nope.toml"))
    with pytest.raises(ConfigError, match="OHTUI_CONFIG"):
        load()


# --- precedence -----------------------------------------------------------------------------


def test_precedence_file_then_env_then_flags(isolated, monkeypatch):
    write_config(isolated, 'theme = "from-file"\nreadonly = true\n')
    resolved = load()
    assert (resolved.theme, resolved.readonly) == ("from-file", True)
    assert resolved.origins["theme"] == resolved.origins["readonly"] == "file"

    monkeypatch.setenv("OHTUI_THEME", "from-env")
    monkeypatch.setenv("OHTUI_READONLY", "false")
    resolved = load()
    assert (resolved.theme, resolved.readonly) == ("from-env", False)
    assert resolved.origins["theme"] == "env OHTUI_THEME"
    assert resolved.origins["readonly"] == "env OHTUI_READONLY"

    resolved = load({"theme": "from-flag", "readonly": True, "url": None})
    assert (resolved.theme, resolved.readonly) == ("from-flag", True)
    assert (
        resolved.origins["theme"] == "flag --theme"
        and resolved.origins["readonly"] == "flag --readonly"
    )


def test_url_precedence_profile_env_flag(isolated, monkeypatch):
    write_config(isolated, PROFILES)
    monkeypatch.setenv("WORK_KEY", SENTINEL)
    assert load().url == "https://work.example"
    monkeypatch.setenv("OHTUI_URL", "http://env.example")
    assert load().url == "http://env.example"
    resolved = load({"url": "http://flag.example"})
    assert resolved.url == "http://flag.example" and resolved.origins["url"] == "flag --url"


def test_profile_selection(isolated, monkeypatch):
    write_config(isolated, PROFILES)
    (isolated.parent / "local.key").write_text("local-key\n")
    (isolated.parent / "local.key").chmod(0o600)
    monkeypatch.setenv("WORK_KEY", SENTINEL)
    resolved = load()
    assert resolved.profile == "work" and resolved.origins["profile"] == "file default_profile"
    monkeypatch.setenv("OHTUI_PROFILE", "local")
    resolved = load()
    assert resolved.profile == "local" and resolved.url == "http://127.0.0.1:8000"
    assert resolved.origins["profile"] == "env OHTUI_PROFILE"
    resolved = load({"profile": "work"})
    assert resolved.profile == "work" and resolved.origins["profile"] == "flag --profile"
    with pytest.raises(ConfigError) as caught:
        load({"profile": "nope"})
    assert "no profile 'nope'" in str(caught.value) and "local, work" in str(caught.value)


def test_cli_flags_reach_the_settings(isolated, monkeypatch, capsys):
    write_config(isolated, 'theme = "from-file"\n')
    monkeypatch.setenv("OHTUI_READONLY", "1")
    assert main(["info", "--theme", "from-flag"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"theme\s+from-flag\s+\[flag --theme\]", out)
    assert re.search(r"readonly\s+yes\s+\[env OHTUI_READONLY\]", out)


# --- keys -----------------------------------------------------------------------------------


def test_key_from_an_env_reference_never_shows(isolated, monkeypatch, capsys):
    write_config(isolated, PROFILES)
    monkeypatch.setenv("WORK_KEY", SENTINEL)
    resolved = load()
    assert resolved.key("api_key") == SENTINEL
    assert resolved.origins["api_key"] == "profile work: env WORK_KEY"
    for text in (repr(resolved), str(resolved), repr(resolved.settings), repr(resolved.api_key)):
        assert SENTINEL not in text
    assert main(["info"]) == 0
    out = capsys.readouterr().out
    assert SENTINEL not in out
    assert re.search(r"api key\s+set\s+\[profile work: env WORK_KEY\]", out)
    assert re.search(r"session key\s+not set", out)


def test_key_from_a_file_reference_and_its_mode(isolated, monkeypatch):
    write_config(isolated, PROFILES)
    key_file = isolated.parent / "local.key"
    key_file.write_text(SENTINEL + "\n")
    key_file.chmod(0o600)
    resolved = load({"profile": "local"})
    assert resolved.key("session_key") == SENTINEL and resolved.warnings == []
    key_file.chmod(0o644)
    resolved = load({"profile": "local"})
    assert resolved.key("session_key") == SENTINEL
    [warning] = resolved.warnings
    assert "readable by others" in warning and "chmod 600" in warning and SENTINEL not in warning
    assert SENTINEL not in describe(resolved, resolved.location)


def test_missing_key_references_are_errors_that_name_the_reference(isolated, monkeypatch, capsys):
    write_config(isolated, PROFILES)
    resolved = load()
    assert resolved.api_key is None
    assert resolved.errors == ["profile 'work': api_key_env names WORK_KEY, which is not set"]
    resolved = load({"profile": "local"})
    assert "local.key does not exist" in resolved.errors[0]
    assert main(["export", "some-id"]) == 2  # refuses to connect without the key
    assert "WORK_KEY, which is not set" in capsys.readouterr().err


def test_a_profile_key_is_never_sent_to_another_url(isolated, monkeypatch):
    write_config(isolated, PROFILES)
    monkeypatch.setenv("WORK_KEY", SENTINEL)
    resolved = load({"url": "http://elsewhere.example"})
    assert resolved.api_key is None
    assert any("api_key not used" in w for w in resolved.warnings)
    assert load({"url": "https://work.example"}).key("api_key") == SENTINEL  # same server: fine


def test_env_and_flag_keys_are_masked(isolated, monkeypatch):
    monkeypatch.setenv("OHTUI_API_KEY", SENTINEL)
    resolved = load({"session_key": SENTINEL + "-flag"})
    assert (
        resolved.key("api_key") == SENTINEL and resolved.origins["api_key"] == "env OHTUI_API_KEY"
    )
    assert resolved.origins["session_key"] == "flag --session-key"
    assert SENTINEL not in repr(resolved) and SENTINEL not in repr(Settings())
    assert (
        resolved.scrub(f"GET failed: {SENTINEL}-flag and {SENTINEL}")
        == "GET failed: ‹redacted› and ‹redacted›"
    )


def test_keys_do_not_belong_in_the_file_and_errors_do_not_echo_values(isolated, monkeypatch):
    write_config(isolated, f'api_key = "{SENTINEL}"\n')
    with pytest.raises(ConfigError) as caught:
        load()
    assert "api_key_env" in str(caught.value) and SENTINEL not in str(caught.value)

    write_config(isolated, f'[profiles.x]\nurl = "http://x"\nsession_key = "{SENTINEL}"\n')
    with pytest.raises(ConfigError) as caught:
        load()
    assert "profiles.x.session_key" in str(caught.value) and SENTINEL not in str(caught.value)

    write_config(isolated, "")
    monkeypatch.setenv("OHTUI_READONLY", SENTINEL)
    with pytest.raises(ConfigError) as caught:
        load()
    assert "readonly (env OHTUI_READONLY)" in str(caught.value) and SENTINEL not in str(
        caught.value
    )


def test_broken_files_are_reported_plainly(isolated, capsys):
    write_config(isolated, "theme = [\n")
    with pytest.raises(ConfigError, match="invalid TOML"):
        load()
    write_config(isolated, 'themes = "typo"\n')
    with pytest.raises(ConfigError, match="unknown setting 'themes'"):
        load()
    write_config(isolated, '[profiles.a]\napi_key_env = "A"\napi_key_file = "a.key"\n')
    with pytest.raises(ConfigError, match="not both"):
        load()
    assert main(["info"]) == 1  # info still prints every path, then the problem
    out = capsys.readouterr().out
    assert str(isolated) in out and "config error" in out and "not both" in out


# --- info, config init ----------------------------------------------------------------------


def test_info_lists_every_path(isolated, tmp_path, capsys):
    assert main(["info"]) == 0
    out = capsys.readouterr().out
    for label, folder in (
        ("config dir", "config"),
        ("data dir", "data"),
        ("state dir", "state"),
        ("cache dir", "cache"),
    ):
        assert re.search(rf"{label}\s+{re.escape(str(tmp_path / folder / 'ohtui'))}", out)
    assert "log dir" in out and "not created yet" in out
    assert re.search(r"profile\s+none", out) and "bundled demo server" in out


def test_config_init_writes_a_private_template_without_keys(isolated, monkeypatch, capsys):
    monkeypatch.setenv("OHTUI_API_KEY", SENTINEL)
    assert main(["config", "init"]) == 0
    assert stat.S_IMODE(isolated.stat().st_mode) == 0o600
    text = isolated.read_text()
    assert SENTINEL not in text
    assert main(["config", "init"]) == 1  # never overwrites silently
    assert "already exists" in capsys.readouterr().err
    isolated.chmod(0o644)
    assert main(["config", "init", "--force"]) == 0
    assert stat.S_IMODE(isolated.stat().st_mode) == 0o600
    assert load().config_exists  # all comments: loads as defaults

    # Uncommented, the template is a valid config.
    settings_line = re.compile(r'^# (\[|"?[a-z_.]+"? = )')
    live = "\n".join(line[2:] if settings_line.match(line) else line for line in text.splitlines())
    write_config(isolated, live)
    resolved = load()
    assert set(resolved.settings.profiles) == {"local", "cloud"}
    assert resolved.keymap == {"list.down": "j,down,ctrl+n", "app.sandboxes": "2,f2"}


def test_write_template_elsewhere(tmp_path):
    path = Path(write_template(tmp_path / "deep" / "dir" / "ohtui.toml").path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert not list(path.parent.glob(".*.tmp"))


# --- keymap ---------------------------------------------------------------------------------


def test_keymap_values_accept_strings_and_lists(isolated):
    write_config(isolated, '[keymap]\n"list.down" = ["j", "down"]\n"app.quit" = " q , ctrl+q "\n')
    assert load().keymap == {"list.down": "j,down", "app.quit": "q,ctrl+q"}
    write_config(isolated, '[keymap]\n"list.down" = "j,,k"\n')
    with pytest.raises(ConfigError, match="empty key"):
        load()


async def test_keymap_from_the_config_is_applied_to_the_running_app(isolated, demo_server):
    from tests.helpers.app_helpers import SIZE, make_app, wait_for
    from tui.app.screens.conversations.conversations import ConversationsScreen
    from tui.app.screens.sandboxes.sandboxes import SandboxesScreen

    write_config(
        isolated, '[keymap]\n"app.sandboxes" = "f2"\n"app.conversations" = "f3"\n"no.such" = "f9"\n'
    )
    resolved = load()
    app = make_app(demo_server.base_url, keymap=resolved.keymap)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        await pilot.press("2")  # the default key is replaced, not added to
        await settled(pilot)
        assert isinstance(app.screen, ConversationsScreen)
        await pilot.press("f2")
        await wait_for(lambda: screen_ready(app, SandboxesScreen), pilot=pilot)
        await pilot.press("f3")
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        warnings = [n.message for n in app._notifications if n.severity == "warning"]
        assert any("no.such" in m for m in warnings)
