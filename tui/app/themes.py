"""Themes: the bundled ones in ``themes/``, and the colours with a meaning every theme gives.

Statuses, diffs and the live mark are coloured by ohtui's own theme variables
(:data:`VARIABLES`: ``$status-running``, ``$diff-added``, …). A theme may set them in its
``"variables"``; a theme that does not (any Textual theme) gets each from one of its own
semantic colours, so every theme colours them sensibly. Stylesheets use them as
``$status-running``; code that builds rich Text (table cells, tree labels, the header, the
diff) asks :func:`theme_style`, which reads the same variables.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from rich.style import Style
from textual.css.errors import UnresolvedVariableError
from textual.markup import parse_style
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

#: ohtui's theme variables → the theme colour each is taken from when a theme does not set it.
VARIABLES = {
    "status-running": "success",
    "status-waiting": "secondary",  # waiting for the user's confirmation
    "status-paused": "warning",
    "status-starting": "accent",  # and the sandboxes' "pausing…", "resuming…" marks
    "status-finished": "primary",
    "status-error": "error",  # error, stuck
    "diff-added": "success",
    "diff-removed": "error",
    "diff-hunk": "primary",
    "live-ok": "success",  # the live stream is connected
    "live-retrying": "warning",
    "live-down": "error",  # offline, or failed
}


def variable_defaults(theme: Theme) -> dict[str, str]:
    """:data:`VARIABLES` for ``theme``, from its own semantic colours (the theme's
    ``"variables"`` override these)."""
    colours = theme.to_color_system()
    return {name: getattr(colours, source).hex for name, source in VARIABLES.items()}


def theme_style(spec: str) -> Style:
    """``spec`` — e.g. ``"$status-running bold"`` — as a rich Style in the running app's
    current theme (Textual's ``parse_style`` reads the variables; ~50 µs, so callers that
    style many lines resolve once). Outside a running app (unit tests) only the text
    style remains."""
    try:
        return parse_style(spec).rich_style
    except UnresolvedVariableError:
        return Style.parse(" ".join(word for word in spec.split() if not word.startswith("$")))


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
