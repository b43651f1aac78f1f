"""Themes as data files in ``themes/``, registered with Textual's theme system."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from textual.theme import Theme

DEFAULT_THEME = "ohtui-dark"
_FIELDS = (
    "name",
    "primary",
    "secondary",
    "accent",
    "foreground",
    "background",
    "surface",
    "panel",
    "boost",
    "warning",
    "error",
    "success",
    "dark",
    "luminosity_spread",
    "text_alpha",
    "variables",
)


def theme_dirs() -> list[Path]:
    """The repo's ``themes/`` (editable installs) and the installed copy."""
    here = Path(__file__).resolve()
    return [here.parents[2] / "themes", Path(sys.prefix) / "share" / "ohtui" / "themes"]


def load_theme(path: Path) -> Theme:
    data = json.loads(path.read_text(encoding="utf-8"))
    return Theme(**{k: v for k, v in data.items() if k in _FIELDS})


def load_themes(extra_dirs: list[Path] | None = None) -> list[Theme]:
    themes: dict[str, Theme] = {}
    for folder in [*theme_dirs(), *(extra_dirs or [])]:
        if folder.is_dir():
            for path in sorted(folder.glob("*.json")):
                theme = load_theme(path)
                themes.setdefault(theme.name, theme)
    return list(themes.values())
