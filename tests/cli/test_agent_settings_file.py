"""``agent_settings_file``: the agent a bare agent server starts conversations with.

Keys are named by reference (``api_key_env`` / ``api_key_file``) and resolved at load; a key
written in the file is refused without its value in the message; the settings reach the
client ``make_client`` builds, so ``n`` is offered on an agent server.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.cli.test_config import write_config
from tui.commands.connect import make_client
from tui.config import describe, load

SENTINEL = "sk-AGENT-SENTINEL-51c2"


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch) -> Path:
    for name in list(os.environ):
        if name.startswith("OHTUI_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    for var in ("CONFIG", "DATA", "STATE", "CACHE"):
        monkeypatch.setenv(f"XDG_{var}_HOME", str(tmp_path / var.lower()))
    return tmp_path / "config" / "ohtui" / "config.toml"


def settings_file(folder: Path, data: object, name: str = "agent.json") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


AGENT = {
    "kind": "Agent",
    "llm": {"model": "openai/fake-model", "base_url": "http://127.0.0.1:1/v1"},
    "tools": [{"name": "terminal"}],
}


def test_a_key_named_by_an_environment_variable_is_resolved(isolated, monkeypatch):
    monkeypatch.setenv("MY_LLM_KEY", SENTINEL)
    data = {**AGENT, "llm": {**AGENT["llm"], "api_key_env": "MY_LLM_KEY"}}
    settings_file(isolated.parent, data)
    write_config(isolated, 'agent_settings_file = "agent.json"\n')
    resolved = load()
    assert resolved.errors == []
    assert resolved.agent_settings["llm"]["api_key"] == SENTINEL
    assert "api_key_env" not in resolved.agent_settings["llm"]
    assert resolved.origins["agent_settings_file"] == "file"
    text = describe(resolved, resolved.location)
    assert "agent" in text and "loaded" in text and SENTINEL not in text
    assert SENTINEL not in repr(resolved)
    assert resolved.scrub(f"failed with {SENTINEL}") == "failed with ‹redacted›"


def test_a_key_file_is_read_beside_the_settings(isolated, tmp_path):
    folder = tmp_path / "agents"
    (folder / "llm.key").parent.mkdir(parents=True)
    (folder / "llm.key").write_text(SENTINEL + "\n", encoding="utf-8")
    data = {**AGENT, "llm": {**AGENT["llm"], "api_key_file": "llm.key"}}
    path = settings_file(folder, data)
    resolved = load({}, config=write_config(isolated, f'agent_settings_file = "{path}"\n'))
    assert resolved.agent_settings["llm"]["api_key"] == SENTINEL


def test_a_key_in_the_file_is_refused_without_showing_it(isolated):
    settings_file(isolated.parent, {**AGENT, "llm": {**AGENT["llm"], "api_key": SENTINEL}})
    write_config(isolated, 'agent_settings_file = "agent.json"\n')
    resolved = load()
    assert resolved.agent_settings is None
    [error] = resolved.errors
    assert "llm.api_key holds a key" in error and "api_key_env" in error
    assert SENTINEL not in error


@pytest.mark.parametrize(
    ("content", "words"),
    [
        ("{not json", "is not JSON (line 1"),
        ("[1, 2]", "non-empty JSON object"),
        (
            json.dumps({"llm": {"api_key_env": "NOT_SET_ANYWHERE"}}),
            "NOT_SET_ANYWHERE, which is not set",
        ),
        (None, "does not exist"),
    ],
)
def test_a_broken_file_is_said_in_words(isolated, content, words):
    if content is not None:
        isolated.parent.mkdir(parents=True, exist_ok=True)
        (isolated.parent / "agent.json").write_text(content, encoding="utf-8")
    write_config(isolated, 'agent_settings_file = "agent.json"\n')
    resolved = load()
    assert resolved.agent_settings is None
    assert len(resolved.errors) == 1 and words in resolved.errors[0]
    assert resolved.errors[0].startswith("agent_settings_file (file): ")


def test_a_profile_setting_wins_for_its_own_url(isolated, monkeypatch):
    settings_file(isolated.parent, {**AGENT, "tools": []}, "top.json")
    settings_file(isolated.parent, AGENT, "work.json")
    write_config(
        isolated,
        'agent_settings_file = "top.json"\n'
        '[profiles.work]\nurl = "http://127.0.0.1:8010"\nagent_settings_file = "work.json"\n',
    )
    resolved = load({"profile": "work"})
    assert resolved.agent_settings["tools"] == [{"name": "terminal"}]
    assert resolved.origins["agent_settings_file"] == "profile work"
    assert load().agent_settings["tools"] == []  # no profile: the top-level file
    monkeypatch.setenv("OHTUI_AGENT_SETTINGS_FILE", str(isolated.parent / "work.json"))
    assert load().origins["agent_settings_file"] == "env OHTUI_AGENT_SETTINGS_FILE"


async def test_the_client_gets_the_settings_and_may_start_conversations(isolated, make_server):
    from tui.server import Store

    settings_file(isolated.parent, AGENT)
    write_config(isolated, 'agent_settings_file = "agent.json"\n')
    resolved = load()
    server = make_server(Store(), kind="agent")
    client = make_client(resolved, server.base_url)
    try:
        info = await client.detect()
        assert info.kind == "agent" and info.can("start_conversation")
        assert client.agent_settings == AGENT
    finally:
        await client.aclose()
    plain = make_client(load({}, config=write_config(isolated, "")), server.base_url)
    try:
        assert not (await plain.detect(refresh=True)).can("start_conversation")
    finally:
        await plain.aclose()
