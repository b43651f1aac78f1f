"""``agent_settings_file``: the agent a bare agent server starts new conversations with.

A bare agent server starts a conversation from the agent's settings (its LLM, tools…),
which only the user knows. They live in a JSON file the user names (top level or in a
profile); like the config file it never holds a key. A key is named by reference, next
to where it goes: ``"api_key_env": "MY_LLM_KEY"`` (an environment variable) or
``"api_key_file": "llm.key"`` (a file, ``~`` expanded, relative to the settings file).
Any ``<secret name>_env`` / ``<secret name>_file`` pair works the same way. A literal key
in the file is refused with a message naming where it is, never its value.

Example::

    {"kind": "Agent",
     "llm": {"model": "anthropic/claude-sonnet-4-5", "api_key_env": "ANTHROPIC_API_KEY"},
     "tools": [{"name": "terminal"}, {"name": "file_editor"}]}
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from tui.models.jsonscan import max_depth
from tui.models.redact import is_secret_key
from tui.untrusted_files import FileRefused, read_text

MAX_SETTINGS_BYTES = 1024 * 1024
MAX_KEY_BYTES = 64 * 1024
#: Deepest nesting read (an agent's settings nest a handful of levels).
MAX_SETTINGS_DEPTH = 64
REFERENCE_SUFFIXES = ("_env", "_file")


class AgentSettingsError(ValueError):
    """What is wrong with the file, in one sentence (never a key's value)."""


def _path(text: str, base: Path) -> Path:
    path = Path(text).expanduser()
    return path if path.is_absolute() else base / path


def _reference(key: str) -> tuple[str, str] | None:
    """``("api_key", "_env")`` for ``api_key_env``; None for a key that is no reference."""
    for suffix in REFERENCE_SUFFIXES:
        if key.endswith(suffix) and len(key) > len(suffix):
            target = key[: -len(suffix)]
            if is_secret_key(target):
                return target, suffix
    return None


def _read_key(where: str, suffix: str, name: Any, base: Path) -> str:
    if not isinstance(name, str) or not name.strip():
        raise AgentSettingsError(
            f"{where} must name {'a variable' if suffix == '_env' else 'a file'}"
        )
    if suffix == "_env":
        value = os.environ.get(name, "")
        if not value:
            raise AgentSettingsError(f"{where} names {name}, which is not set")
        return value
    path = _path(name, base)
    try:
        value = read_text(path, MAX_KEY_BYTES)[0].strip()
    except FileRefused as exc:
        raise AgentSettingsError(f"{where}: {path} {exc}") from None
    if not value:
        raise AgentSettingsError(f"{where}: {path} is empty")
    return value


def resolve_references(data: Any, base: Path, at: str = "") -> Any:
    """``data`` with every key reference replaced by the key it names; a literal key (a
    string under a secret-named key) raises :class:`AgentSettingsError`."""
    if isinstance(data, list):
        return [resolve_references(item, base, f"{at}[{i}]") for i, item in enumerate(data)]
    if not isinstance(data, dict):
        return data
    out: dict[str, Any] = {}
    for key, value in data.items():
        where = f"{at}.{key}" if at else str(key)
        found = _reference(key) if isinstance(key, str) else None
        if found is not None:
            target, suffix = found
            if target in data:
                raise AgentSettingsError(f"{where}: {target} is given as well; keep one")
            out[target] = _read_key(where, suffix, value, base)
        elif isinstance(key, str) and is_secret_key(key) and isinstance(value, str) and value:
            raise AgentSettingsError(
                f"{where} holds a key: keys never go in the file; name an environment "
                f"variable ({key}_env) or a file ({key}_file) instead"
            )
        else:
            out[key] = resolve_references(value, base, where)
    return out


def load_agent_settings(path_text: str, base: Path) -> dict[str, Any]:
    """The settings in the JSON file at ``path_text`` (relative to ``base``), keys resolved."""
    path = _path(path_text, base)
    try:
        text = read_text(path, MAX_SETTINGS_BYTES)[0]
    except FileRefused as exc:
        raise AgentSettingsError(f"{path} {exc}") from None
    # json and the walks below recurse once per level: too deep a file is refused unparsed
    if max_depth(text) > MAX_SETTINGS_DEPTH:
        raise AgentSettingsError(
            f"{path} is nested too deeply (over {MAX_SETTINGS_DEPTH} levels) to be read"
        )
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise AgentSettingsError(
            f"{path} is not JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from None
    if not isinstance(data, dict) or not data:
        raise AgentSettingsError(f"{path} must hold a non-empty JSON object")
    try:
        return resolve_references(data, path.parent)
    except AgentSettingsError as exc:
        raise AgentSettingsError(f"{path}: {exc}") from None


def secret_strings(data: Any) -> list[str]:
    """Every string under a secret-named key (to scrub them from messages)."""
    found: list[str] = []
    if isinstance(data, dict):
        for key, value in data.items():
            if isinstance(key, str) and is_secret_key(key) and isinstance(value, str):
                found.append(value)
            else:
                found.extend(secret_strings(value))
    elif isinstance(data, list):
        for item in data:
            found.extend(secret_strings(item))
    return [value for value in found if value]
