"""The config file: pydantic-settings' TOML source, with the checks a person needs.

:class:`ConfigFileSource` reads the file as ``TomlConfigSettingsSource`` does and adds what
a generic validator cannot say well: a problem names the file and the line, a key written
into the file (``session_key = "…"``) is refused with the places a key *does* go, and an
unknown top-level name lists the known ones. Values are checked by the model afterwards;
:func:`line_of` lets those messages name their line too.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

from pydantic_settings import BaseSettings, TomlConfigSettingsSource

from tui.untrusted_files import FileRefused, read_text

from .errors import ConfigError
from .settings import ENV_PREFIX, FILE_KEYS, FLAGS

#: Largest config file read (a real one is a few hundred bytes).
MAX_CONFIG_BYTES = 1024 * 1024
#: What a parser's RecursionError means, after the file's name.
TOO_DEEP = "nested too deeply to be read"
#: Names that hold a secret, wherever they appear in the file.
SECRET_NAMES = frozenset({"key", "token", "password", "secret"})

_BARE = r"[A-Za-z0-9_-]+"
_PART = rf"(?:{_BARE}|\"[^\"]*\"|'[^']*')"
_DOTTED = rf"{_PART}(?:\s*\.\s*{_PART})*"
_HEADER = re.compile(rf"^\s*\[\[?\s*({_DOTTED})\s*\]\]?")
_ASSIGN = re.compile(rf"^\s*({_DOTTED})\s*=")
_PARTS = re.compile(_PART)


def is_secret_name(name: str) -> bool:
    """``api_key``, ``session_key``, ``session_api_key``, ``token``… (not ``api_key_env``)."""
    return name.lower().endswith("_key") or name.lower() in SECRET_NAMES


def _parts(dotted: str) -> tuple[str, ...]:
    return tuple(p.strip("\"'") for p in _PARTS.findall(dotted))


def line_of(text: str, path: tuple[str, ...]) -> int | None:
    """The 1-based line of ``text`` (TOML) that sets ``path`` (e.g. ``("profiles", "x",
    "url")``), or the line of the nearest enclosing table or inline table; None if not found.

    A line scan, not a parser: enough to point a person at the right line."""
    table: tuple[str, ...] = ()
    best: tuple[int, int] | None = None  # (matched length, line)
    for number, line in enumerate(text.splitlines(), 1):
        header = _HEADER.match(line)
        if header:
            table = _parts(header.group(1))
            here = table
        else:
            assign = _ASSIGN.match(line)
            if not assign:
                continue
            here = table + _parts(assign.group(1))
        if here == path:
            return number
        if path[: len(here)] == here and (best is None or len(here) > best[0]):
            best = (len(here), number)
    return best[1] if best else None


def where(path: Path, text: str, keys: tuple[str, ...]) -> str:
    """``FILE, line N`` (or ``FILE`` when the line cannot be found)."""
    number = line_of(text, keys)
    return f"{path}, line {number}" if number else str(path)


def _key_refused(path: Path, text: str, keys: tuple[str, ...]) -> ConfigError:
    name = keys[-1]
    ref = "session_key" if "session" in name.lower() else "api_key"
    profile = keys[1] if len(keys) == 3 and keys[0] == "profiles" else "<name>"
    env = f"{ENV_PREFIX}{ref.upper()}"
    return ConfigError(
        f"{where(path, text, keys)}: '{'.'.join(keys)}' holds a key, and keys never go in the "
        "config file. Keep it elsewhere and name it in the profile:\n"
        f'  {ref}_env = "VARIABLE"   (an environment variable that holds it)  in [profiles.{profile}]\n'
        f'  {ref}_file = "PATH"      (a file that holds it, chmod 600)        in [profiles.{profile}]\n'
        f"or give it for one run: {env}=… or {FLAGS[ref]} …"
    )


def check_file_data(path: Path, text: str, data: dict[str, Any]) -> None:
    """Refuse keys written into the file and unknown top-level names, naming the line."""
    for key in data:
        if is_secret_name(key):
            raise _key_refused(path, text, (key,))
    profiles = data.get("profiles")
    if isinstance(profiles, dict):
        for name, table in profiles.items():
            if isinstance(table, dict):
                for key in table:
                    if is_secret_name(key):
                        raise _key_refused(path, text, ("profiles", name, key))
    for key in data:
        if key in FILE_KEYS:
            continue
        hint = (
            f"; {key} belongs in a [profiles.<name>] table "
            f"(or {ENV_PREFIX}{key.upper()} / {FLAGS[key]} for one run)"
            if key in ("url", "server_kind")
            else f" (known: {', '.join(FILE_KEYS)})"
        )
        raise ConfigError(f"{where(path, text, (key,))}: unknown setting '{key}'{hint}")


class ConfigFileSource(TomlConfigSettingsSource):
    """pydantic-settings' TOML source for ``path``, raising :class:`ConfigError` with the
    file and line for anything a person wrote wrong (``FileNotFoundError`` when there is no
    file, which the caller may allow). ``text`` keeps the file for messages."""

    def __init__(self, settings_cls: type[BaseSettings], path: Path) -> None:
        self.path = path
        self.text = ""
        super().__init__(settings_cls, toml_file=path)

    def _read_files(self, files: Any, deep_merge: bool = False) -> dict[str, Any]:
        # pydantic-settings reads only paths that are files and skips anything else in
        # silence; the one file named here is read whatever it is, so a FIFO or a device
        # is refused in words (never opened) rather than ignored.
        return self._read_file(self.path)

    def _read_file(self, file_path: Path) -> dict[str, Any]:
        try:
            self.text, _ = read_text(file_path, MAX_CONFIG_BYTES)
        except FileRefused as exc:
            if exc.missing:
                raise FileNotFoundError(file_path) from None
            raise ConfigError(f"{file_path}: {exc}") from None
        try:
            data = tomllib.loads(self.text)
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{file_path}: invalid TOML: {exc}") from None
        except RecursionError:  # tomllib recurses once per level of nesting
            raise ConfigError(f"{file_path}: invalid TOML: {TOO_DEEP}") from None
        check_file_data(Path(file_path), self.text, data)
        return data

    @property
    def data(self) -> dict[str, Any]:
        """What the file sets (top level), for telling where each setting came from."""
        return self.toml_data
