"""``ohtui config init`` and ``ohtui config path``."""

from __future__ import annotations

import argparse
import sys

from tui.text import say


def run_config(args: argparse.Namespace) -> int:
    from tui.paths import config_location

    location = config_location(getattr(args, "config", None))
    if args.action == "path":
        say(str(location.path))
        return 0
    from tui.config import ConfigError, write_template

    try:
        where = write_template(location.path, force=args.force)
    except (ConfigError, OSError) as exc:
        say(f"ohtui config: {exc}", file=sys.stderr)
        return 1
    say(f"wrote {where} (mode 600; it holds key references, never keys)")
    return 0
