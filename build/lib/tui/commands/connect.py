"""From parsed options to settings and a client: shared by the app and the commands."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from tui.text import say

from .options import SETTING_FLAGS


def settings_flags(args: argparse.Namespace) -> dict[str, Any]:
    """The settings the command line gave (``None``: not given)."""
    return {name: getattr(args, name, None) for name in SETTING_FLAGS}


def load_settings(args: argparse.Namespace, prog: str = "ohtui") -> Any:
    """Resolved settings, or None after printing why not (keys never printed)."""
    from tui.config import ConfigError, load, print_warnings

    try:
        resolved = load(settings_flags(args), config=args.config)
    except ConfigError as exc:
        say(f"{prog}: {exc}", file=sys.stderr)
        return None
    for error in resolved.errors:
        say(f"{prog}: {resolved.scrub(error)}", file=sys.stderr)
    if resolved.errors:
        return None
    print_warnings(resolved)
    return resolved


#: Key options → the variable and the profile references that keep the key off the command line.
KEY_OPTIONS = (
    ("api_key", "--api-key", "OHTUI_API_KEY"),
    ("session_key", "--session-key", "OHTUI_SESSION_KEY"),
)


def warn_keys_on_argv(args: argparse.Namespace, prog: str = "ohtui") -> None:
    """A key given as an option is in every local user's process list (``ps``) while ohtui
    runs: say so once, before anything starts (the app's screen would hide it), never the key."""
    for name, flag, env in KEY_OPTIONS:
        if getattr(args, name, None):
            say(
                f"{prog}: warning: {flag} is visible to every local user in the process list;"
                f" prefer {env} or a profile's {name}_env / {name}_file",
                file=sys.stderr,
            )


def keys_sent(resolved: Any) -> bool:
    """Whether a request to the resolved URL carries any key."""
    return resolved.api_key is not None or resolved.session_key is not None


def quiet_client_logs() -> None:
    """A command reports failures itself, once: the client's log lines (retries, give-ups)
    must not reach standard error through logging's last-resort handler."""
    import logging

    logger = logging.getLogger("tui")
    if not logger.handlers:
        logger.addHandler(logging.NullHandler())


def make_client(resolved: Any, url: str, **options: Any) -> Any:
    """The service client for ``url`` with the run's keys and server kind."""
    from tui.client import OpenHandsClient

    return OpenHandsClient(
        url,
        api_key=resolved.key("api_key"),
        session_api_key=resolved.key("session_key"),
        server_kind=resolved.server_kind,
        agent_settings=getattr(resolved, "agent_settings", None),
        **options,
    )
