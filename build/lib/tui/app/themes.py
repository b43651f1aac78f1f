"""Themes: the bundled ones, the user's own, and the colours with a meaning every theme gives.

The bundled themes are the JSON files of the top-level ``themes/`` folder, installed as the
package ``tui._themes`` and read from that package's own folder (no path guessing: it works
from a checkout, a wheel, ``pip install --user`` and pipx alike; ``importlib.resources``
would too, but its import costs ~5 ms before the first frame). A user's own go in
``<config dir>/themes/*.json`` (``ohtui info`` prints the config dir); one with a bundled
theme's name replaces it. A user's file is checked before it is used (a FIFO or a device
is never opened, each field must have its type, each colour must parse), so one that cannot
be used is reported by name and skipped, never fatal; colours it leaves out are derived from
those it gives, as Textual does (a theme needs only a name and a primary colour).

Statuses, diffs and the live mark are coloured by ohtui's own theme variables
(:data:`VARIABLES`: ``$status-running``, ``$diff-added``, …). A theme may set them in its
``"variables"``; a theme that does not (any Textual theme) gets each from one of its own
semantic colours, so every theme colours them sensibly. Stylesheets use them as
``$status-running``; code that builds rich Text (table cells, tree labels, the header, the
diff) asks :func:`theme_style`, which reads the same variables.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

from rich.style import Style
from textual.color import Color
from textual.css.constants import VALID_STYLE_FLAGS
from textual.css.errors import UnresolvedVariableError
from textual.design import ColorSystem
from textual.markup import parse_style
from textual.theme import Theme

from tui.untrusted_files import FileRefused, read_text

DEFAULT_THEME = "ohtui-dark"
#: Largest theme file read (a full one is a few KiB).
MAX_THEME_BYTES = 256 * 1024

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


#: Where Textual's ColorSystem takes a semantic colour a theme leaves out from.
_DERIVED = {
    "secondary": "primary",
    "warning": "primary",
    "error": "secondary",
    "success": "secondary",
    "accent": "primary",
}


def _semantic(colours: ColorSystem, name: str) -> Color:
    colour = getattr(colours, name)
    while colour is None:  # primary is always set
        name = _DERIVED[name]
        colour = getattr(colours, name)
    return colour


def variable_defaults(theme: Theme) -> dict[str, str]:
    """:data:`VARIABLES` for ``theme``, from its own semantic colours (the theme's
    ``"variables"`` override these)."""
    colours = theme.to_color_system()
    return {name: _semantic(colours, source).hex for name, source in VARIABLES.items()}


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
    """One theme file; raises (:class:`FileRefused`, ValueError, …) if it is not a usable
    theme. ``check``: a user's file, so it is read as untrusted and each field is checked
    now (a bad one fails here, not when shown)."""
    if not check:  # ours: checked by the tests
        return Theme(**json.loads(source.read_text(encoding="utf-8")))
    text, _ = read_text(source, MAX_THEME_BYTES)
    try:
        data = json.loads(text)
    except RecursionError:
        raise ThemeProblem("nested too deeply to be read") from None
    return checked_theme(data)


_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
_VARIABLE = re.compile(r"[a-z0-9][a-z0-9-]{0,63}")
_COLOUR_FIELDS = (
    "primary",
    "secondary",
    "warning",
    "error",
    "success",
    "accent",
    "foreground",
    "background",
    "surface",
    "panel",
    "boost",
)
#: A colour with an alpha (``#81a1c1 35%``), as Textual's own variables give some.
_WITH_ALPHA = re.compile(r"(.+?)\s+\d{1,3}(?:\.\d+)?%")


class ThemeProblem(ValueError):
    """What is wrong with a user's theme file, naming the field."""


def _is_colour(value: str, *, plain: bool = False) -> bool:
    """Whether Textual reads ``value`` as a colour; unless ``plain``, also ``auto``,
    ``initial`` and a colour with an alpha, which Textual's variables use."""
    colour = value.strip()
    if not plain:
        with_alpha = _WITH_ALPHA.fullmatch(colour)
        colour = with_alpha.group(1) if with_alpha else colour
        if colour in ("auto", "initial"):
            return True
    try:
        Color.parse(colour)
    except Exception:  # noqa: BLE001 - Textual's parse raises several kinds
        return False
    return True


def _variable_problem(name: Any, value: Any) -> str | None:
    if not isinstance(name, str) or not _VARIABLE.fullmatch(name):
        return f"variables: {str(name)[:40]!r} is not a variable name"
    if not isinstance(value, str) or len(value) > 100:
        return f"variables.{name}: a string is expected"
    if "style" in name:
        if value.split() and set(value.split()) <= VALID_STYLE_FLAGS:
            return None
        return f"variables.{name}: {value[:40]!r} is not a text style"
    if _is_colour(value, plain=name in VARIABLES):
        return None
    return f"variables.{name}: {value[:40]!r} is not a colour"


def checked_theme(data: Any) -> Theme:
    """The theme a user's file describes, each field checked for its type and value first:
    Textual's ``Theme`` takes anything and fails only when the theme is shown."""
    if not isinstance(data, dict):
        raise ThemeProblem(
            "not a theme: a JSON object with a name and a primary colour is expected"
        )
    name = data.get("name")
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise ThemeProblem("name: up to 64 letters, digits, '.', '_' or '-' are expected")
    fields: dict[str, Any] = {"name": name}
    for field in _COLOUR_FIELDS:
        value = data.get(field)
        if value is None and field != "primary":
            continue
        if not isinstance(value, str) or len(value) > 100 or not _is_colour(value, plain=True):
            raise ThemeProblem(f"{field}: a colour is expected (#RRGGBB, a name, rgb(…))")
        fields[field] = value
    if "dark" in data:
        if not isinstance(data["dark"], bool):
            raise ThemeProblem("dark: true or false is expected")
        fields["dark"] = data["dark"]
    for field in ("luminosity_spread", "text_alpha"):
        if field in data:
            value = data[field]
            if not (
                isinstance(value, int | float)
                and not isinstance(value, bool)
                and math.isfinite(value)
                and 0 <= value <= 1
            ):
                raise ThemeProblem(f"{field}: a number from 0 to 1 is expected")
            fields[field] = value
    variables = data.get("variables", {})
    if not isinstance(variables, dict):
        raise ThemeProblem("variables: an object of names and values is expected")
    for key, value in variables.items():
        problem = _variable_problem(key, value)
        if problem:
            raise ThemeProblem(problem)
    theme = Theme(**fields, variables=dict(variables))
    theme.to_color_system().generate()  # every colour Textual derives from them
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
        except FileRefused as exc:
            problems.append(f"{source} {exc}")
            continue
        except Exception as exc:  # noqa: BLE001 - a user's file: reported, never fatal
            problems.append(f"{source}: {exc}".splitlines()[0][:300])
            continue
        themes[theme.name] = theme
    return list(themes.values()), problems
