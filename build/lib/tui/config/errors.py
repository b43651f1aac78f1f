"""The one exception of the settings layer (standard library only: the CLI catches it
without importing pydantic)."""

from __future__ import annotations


class ConfigError(Exception):
    """A config problem the user must fix. The message never contains a key."""
