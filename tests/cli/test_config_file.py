"""The config file through pydantic-settings' own TOML source: one ``Settings`` class, and
messages that name the file and the line — above all for a key written into the file."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from pydantic_settings import TomlConfigSettingsSource

from tui.cli import main
from tui.config import ConfigError, ConfigFileSource, Settings, load
from tui.config.config_file import line_of

SENTINEL = "sk-SENTINEL-file-41c9"


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch) -> Path:
    for name in list(os.environ):
        if name.startswith("OHTUI_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    for var in ("CONFIG", "DATA", "STATE", "CACHE"):
        monkeypatch.setenv(f"XDG_{var}_HOME", str(tmp_path / var.lower()))
    path = tmp_path / "config" / "ohtui" / "config.toml"
    path.parent.mkdir(parents=True)
    return path


def refusal(path: Path, text: str) -> str:
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load()
    message = str(caught.value)
    assert SENTINEL not in message
    return message


def test_the_file_is_read_by_pydantic_settings_toml_source(isolated):
    assert issubclass(ConfigFileSource, TomlConfigSettingsSource)
    isolated.write_text('theme = "t"\n[profiles.a]\nurl = "http://a"\n')
    resolved = load()
    assert type(resolved.settings) is Settings  # no class made per file
    assert resolved.theme == "t" and resolved.settings.profiles["a"].url == "http://a"
    assert Settings().theme is None  # outside load(), no file is read


def test_a_key_at_the_top_names_the_line_and_the_alternatives(isolated):
    message = refusal(isolated, f'theme = "x"\n\n# the key:\napi_key = "{SENTINEL}"\n')
    assert message.startswith(f"{isolated}, line 4: 'api_key' holds a key")
    for alternative in ('api_key_env = "VARIABLE"', 'api_key_file = "PATH"', "OHTUI_API_KEY"):
        assert alternative in message
    assert "--api-key" in message


def test_a_key_in_a_profile_names_the_line_and_the_profile(isolated):
    text = (
        '[profiles.work]\nurl = "https://w.example"\n\n'
        f'[profiles.home]\nurl = "http://h"\nsession_key = "{SENTINEL}"\n'
    )
    message = refusal(isolated, text)
    assert message.startswith(f"{isolated}, line 6: 'profiles.home.session_key' holds a key")
    assert 'session_key_env = "VARIABLE"' in message and "in [profiles.home]" in message
    assert "OHTUI_SESSION_KEY" in message and "--session-key" in message


@pytest.mark.parametrize(
    ("text", "line"),
    [
        (f'[profiles]\nw = {{ url = "http://w", token = "{SENTINEL}" }}\n', 2),
        (f'profiles.w.url = "http://w"\nprofiles.w.session_api_key = "{SENTINEL}"\n', 2),
        (f'[profiles."my work"]\n"api_key" = "{SENTINEL}"\n', 2),
    ],
)
def test_keys_in_other_toml_spellings_are_found(isolated, text, line):
    assert f"{isolated}, line {line}: 'profiles." in refusal(isolated, text)


def test_key_references_and_the_keymap_are_not_keys(isolated, monkeypatch):
    monkeypatch.setenv("V", SENTINEL)
    isolated.write_text(
        'default_profile = "w"\n[profiles.w]\nurl = "http://w"\napi_key_env = "V"\n'
        '[keymap]\n"app.toggle_key" = "k"\n'
    )
    assert load().key("api_key") == SENTINEL


def test_values_and_unknown_names_name_their_line(isolated):
    message = refusal(isolated, '[profiles.a]\nurl = "http://a"\n\n[profiles.b]\nport = 1\n')
    assert f"profiles.b.port (file {isolated}, line 5): unknown setting" in message
    message = refusal(isolated, 'theme = "x"\nreadonly = "maybe"\n')
    assert f"readonly (file {isolated}, line 2)" in message
    message = refusal(isolated, 'theme = "x"\nserver_kind = "agent"\n')
    assert f"{isolated}, line 2: unknown setting 'server_kind'" in message
    assert "[profiles.<name>]" in message and "--server-kind" in message


def test_a_directory_is_not_a_config_file(tmp_path, capsys):
    assert main(["info", "--config", str(tmp_path)]) == 1
    assert "is a directory, not a regular file" in capsys.readouterr().out


def test_line_of():
    text = '# c\ntheme = "x"\n[profiles.a]\nurl = "u"\n[profiles."b c"]\n url = "v"\n[keymap]\n'
    assert line_of(text, ("theme",)) == 2
    assert line_of(text, ("profiles", "a", "url")) == 4
    assert line_of(text, ("profiles", "b c", "url")) == 6
    assert line_of(text, ("profiles", "a", "missing")) == 3  # the table, for want of the key
    assert line_of(text, ("nowhere",)) is None
