"""Where ohtui keeps things, per platform (``platformdirs``; XDG on Linux and the BSDs).

Only :data:`CONFIG_ENV` and the ``--config`` flag move the config file; every other
directory follows the platform's rules (``XDG_CONFIG_HOME``, ``XDG_DATA_HOME``,
``XDG_STATE_HOME``, ``XDG_CACHE_HOME`` on Linux). Nothing here creates a directory:
callers create what they write into. Cheap to import (no pydantic, no Textual).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from platformdirs import PlatformDirs

APP_NAME = "ohtui"
CONFIG_ENV = "OHTUI_CONFIG"
CONFIG_FILE_NAME = "config.toml"
LOG_FILE_NAME = "ohtui.log"


def _dirs() -> PlatformDirs:
    # appauthor=False: no "<author>/<app>" nesting on Windows.
    return PlatformDirs(APP_NAME, appauthor=False)


def config_dir() -> Path:
    return Path(_dirs().user_config_dir)


def data_dir() -> Path:
    return Path(_dirs().user_data_dir)


def state_dir() -> Path:
    return Path(_dirs().user_state_dir)


def log_dir() -> Path:
    return Path(_dirs().user_log_dir)


def log_file() -> Path:
    """The app's log (``tui/app/log_file.py``): what failed, with tracebacks, never a key."""
    return log_dir() / LOG_FILE_NAME


def cache_dir() -> Path:
    return Path(_dirs().user_cache_dir)


@dataclass(frozen=True)
class ConfigLocation:
    """The config file to read and why that one: ``--config``, ``OHTUI_CONFIG`` or ``default``."""

    path: Path
    source: str

    @property
    def explicit(self) -> bool:
        """True when the user named the file (then a missing file is an error)."""
        return self.source != "default"


def config_location(flag: str | os.PathLike[str] | None = None) -> ConfigLocation:
    """The config file: ``--config PATH`` beats ``OHTUI_CONFIG`` beats ``<config dir>/config.toml``."""
    if flag:
        return ConfigLocation(Path(flag).expanduser(), "--config")
    env = os.environ.get(CONFIG_ENV)
    if env:
        return ConfigLocation(Path(env).expanduser(), CONFIG_ENV)
    return ConfigLocation(config_dir() / CONFIG_FILE_NAME, "default")


def all_paths() -> dict[str, Path]:
    """Every directory ohtui may use, by name, for ``ohtui info`` (created or not)."""
    return {
        "config dir": config_dir(),
        "data dir": data_dir(),
        "state dir": state_dir(),
        "log dir": log_dir(),
        "cache dir": cache_dir(),
    }
