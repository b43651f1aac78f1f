"""Themes: the bundled ones, the user's own, and the colours with a meaning every theme gives.

The bundled themes are the JSON files of the top-level ``themes/`` folder, installed as the
package ``tui._themes`` and read from that package's own folder (no path guessing: it works
from a checkout, a wheel, ``pip install --user`` and pipx alike; ``importlib.resources``
would too, but its import costs ~5 ms before the first frame). A user's own go in
``<config dir>/themes/*.json`` (``ohtui info`` prints the config dir); one with a bundled
theme's name replaces it, and one that cannot be read is reported, not fatal.

Statuses, diffs and the live mark are coloured by ohtui's own theme variables
(:data:`VARIABLES`: ``$status-running``, ``$diff-added``, …). A theme may set them in its
``"variables"``; a theme that does not (any Textual theme) gets each from one of its own
semantic colours, so every theme colours them sensibly. Stylesheets use them as
``$status-running``; code that builds rich Text (table cells, tree labels, the header, the
diff) asks :func:`theme_style`, which reads the same variables.
"""

from __future__ import annotations

import json
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


def user_theme_dir() -> Path:
    """Where a user's own themes go: ``themes/`` in ohtui's config directory."""
    from tui.paths import config_dir

    return config_dir() / "themes"


def load_theme(source: Path, *, check: bool = True) -> Theme:
    """One theme file; raises (OSError, ValueError, …) if it is not a usable theme.
    ``check``: parse its colours now (a user's file), so a bad one fails here, not when shown."""
    data = json.loads(source.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or not isinstance(data.get("name"), str):
        raise TypeError("not a theme: a JSON object with a name is expected")
    theme = Theme(**{k: v for k, v in data.items() if k in _FIELDS})
    if check:
        theme.to_color_system()
    return theme


def bundled_theme_dir() -> Path:
    """The installed ``tui._themes`` package's folder (the repository's ``themes/``)."""
    import tui._themes

    return Path(tui._themes.__file__).parent


def _theme_files(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.json")) if folder.is_dir() else []


def load_themes(user_dir: Path | None = None) -> tuple[list[Theme], list[str]]:
    """The bundled themes and the user's own (``user_dir``, default :func:`user_theme_dir`),
    and what was wrong with any user file that could not be used."""
    themes: dict[str, Theme] = {}
    for source in _theme_files(bundled_theme_dir()):
        theme = load_theme(source, check=False)  # ours: checked by the tests
        themes[theme.name] = theme
    problems: list[str] = []
    folder = user_dir if user_dir is not None else user_theme_dir()
    for source in _theme_files(folder):
        try:
            theme = load_theme(source)
        except Exception as exc:  # noqa: BLE001 - a user's file: reported, never fatal
            problems.append(f"{source}: {exc}".splitlines()[0][:300])
            continue
        themes[theme.name] = theme
    return list(themes.values()), problems
