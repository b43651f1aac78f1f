"""The servers the palette switches between, each way: the bundled demo, local conversation
folders, the server given at start and the config file's profiles.

``ohtui`` (the command line) makes one :class:`Profile` per server it can offer; the app
only calls them and shows their names and descriptions, marking the one in use. A
profile's ``connect`` gives ``(client, url)`` or ``(client, url, serves local folders)``;
a plain function of that shape is a profile of the config file.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

#: the bundled demo server's name in the palette and on the board
DEMO = "demo"
#: ~/.openhands/conversations (or the folder ``ohtui PATH`` opened)
LOCAL = "local folders"
#: what a profile of the config file is, said where it has no description of its own
CONFIG_DESCRIPTION = "Connect to this server profile of the config file"


@dataclass(frozen=True)
class Profile:
    """A server the palette can switch to: how to connect, and what to call it."""

    connect: Callable[[], tuple[Any, ...]]
    description: str = CONFIG_DESCRIPTION
    #: "demo", "folders", "start" (the server given at start) or "config"
    kind: str = "config"
    #: what its search index is of, where not its URL (a folder root: its port changes)
    index_source: str = ""

    def __call__(self) -> tuple[Any, ...]:
        return self.connect()


def description(profile: object) -> str:
    return getattr(profile, "description", CONFIG_DESCRIPTION)


def kind(profile: object) -> str:
    return getattr(profile, "kind", "config")


def palette_order(profiles: Mapping[str, object]) -> list[str]:
    """The demo first, then local folders, then the others by name."""
    rank = {"demo": 0, "folders": 1}
    return sorted(profiles, key=lambda name: (rank.get(kind(profiles[name]), 2), name))


def watched(profiles: Mapping[str, object]) -> list[str]:
    """The profiles the board watches with "all servers": every one but the demo (a
    server of ohtui's own, started only when switched to; it is watched while in use)."""
    return sorted(name for name, each in profiles.items() if kind(each) != "demo")


def unused_name(name: str, taken: Mapping[str, object]) -> str:
    """``name``, or ``name (ohtui)`` where the config file already has a profile by it."""
    return name if name not in taken else f"{name} (ohtui)"
