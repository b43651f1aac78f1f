"""Command line entry point. Heavy imports happen only on the paths that need them,
so ``ohtui --version`` and ``--help`` stay instant."""

from __future__ import annotations

import argparse
import sys

from tui import __version__


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ohtui",
        description="Terminal UI for OpenHands-style agent services.",
    )
    parser.add_argument("--version", action="version", version=f"ohtui {__version__}")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    del args
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
