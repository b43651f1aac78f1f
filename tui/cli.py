"""Command line entry point. Heavy imports happen only on the paths that need them,
so ``ohtui --version`` and ``--help`` stay instant."""

from __future__ import annotations

import argparse
import os
import sys

from tui import __version__

EPILOG = """\
With no --url, ohtui starts its bundled reference server on a loopback port with a demo
dataset, so everything can be tried at once. Environment: OHTUI_URL, OHTUI_API_KEY,
OHTUI_SESSION_KEY, OHTUI_THEME.

commands:
  ohtui serve [--host H] [--port N] [--db PATH] [--demo] [--session-key K]
      run the reference server in the foreground
"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ohtui",
        description="Terminal UI for OpenHands-style agent services.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"ohtui {__version__}")
    parser.add_argument("--url", default=os.environ.get("OHTUI_URL"), help="base URL of the service (default: the bundled demo server)")
    parser.add_argument("--api-key", default=os.environ.get("OHTUI_API_KEY"), help="cloud API key, sent as 'Authorization: Bearer'")
    parser.add_argument("--session-key", default=os.environ.get("OHTUI_SESSION_KEY"), help="self-hosted key, sent as X-Session-API-Key")
    parser.add_argument("--conversation", metavar="ID", help="open this conversation directly")
    parser.add_argument("--shared", action="store_true", help="browse --conversation as a public shared conversation")
    parser.add_argument("--theme", default=os.environ.get("OHTUI_THEME"), help="colour theme (ohtui-dark, ohtui-light, or any Textual theme)")
    parser.add_argument("--readonly", action="store_true", help="disable every mutating action")
    return parser


def build_serve_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="ohtui serve", description="Run the reference server.")
    parser.add_argument("--host", default="127.0.0.1", help="interface to bind (default: loopback only)")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--db", default=None, help="SQLite file (default: in memory)")
    parser.add_argument("--demo", action="store_true", help="load the demo dataset")
    parser.add_argument("--session-key", default=None, help="require this X-Session-API-Key on /api/v1")
    return parser


def run_app(args: argparse.Namespace) -> int:
    from tui.client import OpenHandsClient

    from tui.app.app import OhtuiApp

    if args.shared and not args.conversation:
        print("ohtui: --shared needs --conversation ID", file=sys.stderr)
        return 2
    stop = None
    url = args.url
    if not url:
        from tui.server.embedded import start_demo_server

        url, stop = start_demo_server()
    client = OpenHandsClient(url, api_key=args.api_key, session_api_key=args.session_key)
    app = OhtuiApp(
        client,
        url=url,
        conversation_id=args.conversation,
        shared=args.shared,
        theme=args.theme,
        readonly=args.readonly,
        on_exit=stop,
    )
    app.run()
    return app.return_code or 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["serve"]:
        args = build_serve_parser().parse_args(argv[1:])
        from tui.server.serve import serve_main

        return serve_main(args.host, args.port, args.db, args.demo, args.session_key)
    return run_app(build_parser().parse_args(argv))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
