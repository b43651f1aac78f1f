"""The text of ``ohtui info``: every path, the connection and each setting's origin.

Keys appear only as ``set``/``not set``. What the server turned out to be (the CLI probes
it) arrives as ready lines, so this module stays free of any network code.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from tui.paths import CONFIG_ENV, ConfigLocation, all_paths, log_file

from .resolve import Resolved
from .settings import ENV_PREFIX
from .urls import printable_url


def _dir_line(label: str, path: Path) -> str:
    state = "" if path.exists() else "  (not created yet)"
    return f"  {label:<13}{path}{state}"


def describe(
    resolved: Resolved | None,
    location: ConfigLocation,
    error: str | None = None,
    server: Sequence[str] = (),
) -> str:
    """The text of ``ohtui info``: every path, the active profile and each setting's origin;
    ``server`` lines (what a probe found) follow the connection. Keys appear only as
    ``set``/``not set``.
    """
    from tui import __version__

    lines = [f"ohtui {__version__}", "", "paths"]
    exists = location.path.exists()
    suffix = "" if exists else "  (not found)"
    lines.append(f"  {'config file':<13}{location.path}{suffix}  [{location.source}]")
    for label, path in all_paths().items():
        lines.append(_dir_line(label, path))
    log = log_file()
    lines.append(f"  {'log file':<13}{log}" + ("" if log.exists() else "  (not written yet)"))
    if error is not None:
        lines += ["", "config error", *(f"  {line}" for line in error.splitlines())]
        return "\n".join(lines) + "\n"
    assert resolved is not None
    s = resolved.settings
    origins = resolved.origins
    lines += ["", "connection"]
    profile = resolved.profile or "none"
    lines.append(
        f"  {'profile':<13}{profile}" + (f"  [{origins['profile']}]" if resolved.profile else "")
    )
    url = printable_url(resolved.url) if resolved.url else "bundled demo server"
    lines.append(f"  {'url':<13}{url}  [{origins['url']}]")
    for what, label in (("api_key", "api key"), ("session_key", "session key")):
        state = "set" if getattr(resolved, what) is not None else "not set"
        origin = origins.get(what, "default")
        lines.append(f"  {label:<13}{state}" + (f"  [{origin}]" if state == "set" else ""))
    kind = resolved.server_kind
    lines.append(
        f"  {'server kind':<13}{'detect' if kind == 'auto' else kind}"
        + f"  [{origins.get('server_kind', 'default')}]"
    )
    agents = origins.get("agent_settings_file", "default")
    if agents != "default":
        state = "loaded" if resolved.agent_settings is not None else "not loaded (see problems)"
        lines.append(f"  {'agent':<13}{state}  [{agents}]")
    if server:
        lines += ["", "server", *(f"  {line}" for line in server)]
    lines += ["", "interface"]
    lines.append(f"  {'theme':<13}{resolved.theme or 'ohtui-dark'}  [{origins['theme']}]")
    lines.append(
        f"  {'readonly':<13}{'yes' if resolved.readonly else 'no'}  [{origins['readonly']}]"
    )
    if resolved.keymap:
        lines.append(f"  {'keymap':<13}{len(resolved.keymap)} binding(s)  [{origins['keymap']}]")
        for binding_id, keys in sorted(resolved.keymap.items()):
            lines.append(f"    {binding_id} = {keys}")
    else:
        lines.append(f"  {'keymap':<13}defaults")
    if s.profiles:
        lines += ["", "profiles"]
        for pname, p in sorted(s.profiles.items()):
            refs = []
            for what in ("api_key", "session_key"):
                if getattr(p, f"{what}_env"):
                    refs.append(f"{what} from env {getattr(p, f'{what}_env')}")
                elif getattr(p, f"{what}_file"):
                    refs.append(f"{what} from file {getattr(p, f'{what}_file')}")
            mark = "*" if pname == resolved.profile else " "
            where = printable_url(p.url) if p.url else "(no url)"
            if p.server_kind:
                refs.append(f"server kind {p.server_kind}")
            if p.agent_settings_file:
                refs.append(f"agent settings {p.agent_settings_file}")
            lines.append(f" {mark}{pname:<13}{where}" + (f"  ({'; '.join(refs)})" if refs else ""))
    if resolved.warnings or resolved.errors:
        lines += ["", "problems"]
        lines += [f"  warning: {w}" for w in resolved.warnings]
        lines += [f"  error: {e}" for e in resolved.errors]
    lines += [
        "",
        f"precedence: config file < {ENV_PREFIX}* environment < flags  ({CONFIG_ENV} or --config moves the file)",
    ]
    return resolved.scrub("\n".join(lines) + "\n")
