"""Command line entry point. Heavy imports happen only on the paths that need them,
so ``ohtui --version`` and ``--help`` stay instant (no Textual, httpx or pydantic-settings)."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from tui import __version__

EPILOG = """\
With no URL (flag, OHTUI_URL or profile), ohtui starts its bundled reference server on a
loopback port with a demo dataset, so everything can be tried at once.

Settings: config file < OHTUI_* environment < flags. The file is config.toml in the user
config dir (`ohtui info` prints it; OHTUI_CONFIG or --config moves it). Environment:
OHTUI_URL, OHTUI_API_KEY, OHTUI_SESSION_KEY, OHTUI_PROFILE, OHTUI_THEME, OHTUI_READONLY.

commands:
  ohtui info                      every path, the active profile, where each setting came from
  ohtui config init [--force]     write a commented config file (mode 600, no keys)
  ohtui export ID [--format md|jsonl] [-o FILE] [--shared]
                                  a conversation as a Markdown transcript or JSONL, no UI
  ohtui serve [--host H] [--port N] [--db PATH] [--demo] [--session-key-file F]
                                  run the reference server in the foreground
"""

#: Settings a flag can set (``--readonly`` included); the rest come from env or the file.
SETTING_FLAGS = ("url", "api_key", "session_key", "theme", "readonly", "profile")


def _env(name: str, env_defaults: bool) -> str | None:
    return os.environ.get(name) if env_defaults else None


def add_settings_options(parser: argparse.ArgumentParser, *, env_defaults: bool = False) -> None:
    """Connection and config flags shared by the app, ``info`` and ``export``."""
    parser.add_argument(
        "--config",
        metavar="PATH",
        help="config file (default: config.toml in the user config dir; also OHTUI_CONFIG)",
    )
    parser.add_argument(
        "--profile",
        "-P",
        metavar="NAME",
        default=_env("OHTUI_PROFILE", env_defaults),
        help="use [profiles.NAME] of the config file (also OHTUI_PROFILE)",
    )
    parser.add_argument(
        "--url",
        default=_env("OHTUI_URL", env_defaults),
        help="base URL of the service (default: the profile's, else the bundled demo server)",
    )
    parser.add_argument(
        "--api-key",
        default=_env("OHTUI_API_KEY", env_defaults),
        help="cloud API key, sent as 'Authorization: Bearer' (prefer OHTUI_API_KEY or a profile)",
    )
    parser.add_argument(
        "--session-key",
        default=_env("OHTUI_SESSION_KEY", env_defaults),
        help="self-hosted key, sent as X-Session-API-Key",
    )


def build_parser(*, env_defaults: bool = True) -> argparse.ArgumentParser:
    """The app's parser. With ``env_defaults`` the ``OHTUI_*`` values show as defaults;
    :func:`main` parses with ``env_defaults=False`` so that flags and environment stay
    apart for the settings' precedence and for ``ohtui info``."""
    parser = argparse.ArgumentParser(
        prog="ohtui",
        description="Terminal UI for OpenHands-style agent services.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"ohtui {__version__}")
    parser.add_argument(
        "--print-config-path", action="store_true", help="print the config file's path and exit"
    )
    add_settings_options(parser, env_defaults=env_defaults)
    parser.add_argument("--conversation", metavar="ID", help="open this conversation directly")
    parser.add_argument(
        "--shared",
        action="store_true",
        help="browse --conversation as a public shared conversation",
    )
    parser.add_argument(
        "--theme",
        default=_env("OHTUI_THEME", env_defaults),
        help="colour theme (ohtui-dark, ohtui-light, or any Textual theme; also OHTUI_THEME)",
    )
    parser.add_argument(
        "--readonly",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="disable every mutating action (also OHTUI_READONLY, readonly = true)",
    )
    parser.add_argument(
        "path",
        nargs="?",
        metavar="PATH",
        help="browse local OpenHands conversation folders (a folder of conversations, or one)",
    )
    parser.add_argument("--local", metavar="PATH", help="same as PATH")
    return parser


def build_serve_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="ohtui serve", description="Run the reference server.")
    parser.add_argument(
        "--host", default="127.0.0.1", help="interface to bind (default: loopback only)"
    )
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--db", default=None, help="SQLite file (default: in memory)")
    parser.add_argument("--demo", action="store_true", help="load the demo dataset")
    parser.add_argument(
        "--session-key-file",
        metavar="PATH",
        default=None,
        help="require the key in this file (one line, mode 600) on /api/v1 and the agent routes",
    )
    parser.add_argument(
        "--session-key",
        default=None,
        help="require this key (visible in the process list: prefer --session-key-file or OHTUI_SESSION_KEY)",
    )
    parser.add_argument(
        "--chaos",
        type=float,
        default=0.0,
        metavar="RATE",
        help="fail this share (0-1) of API GETs at random: 5xx, 429, slow or truncated answers, to watch recovery",
    )
    return parser


def build_info_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ohtui info",
        description="Print every path ohtui uses, the active profile and where each setting came from. Keys show only as set / not set.",
    )
    add_settings_options(parser)
    parser.add_argument("--theme", help="as for ohtui: shows how a flag would change the result")
    parser.add_argument("--readonly", action=argparse.BooleanOptionalAction, default=None)
    return parser


def build_config_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="ohtui config", description="Manage the config file.")
    sub = parser.add_subparsers(dest="action", required=True)
    init = sub.add_parser("init", help="write a commented template (mode 600, never any key)")
    init.add_argument(
        "--config", metavar="PATH", help="where to write it (default: the usual config file)"
    )
    init.add_argument("--force", action="store_true", help="replace an existing file")
    path = sub.add_parser("path", help="print the config file's path")
    path.add_argument("--config", metavar="PATH")
    return parser


def build_export_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ohtui export",
        description="Write a conversation as a Markdown transcript or as JSONL (one event per line, secrets masked), without the UI.",
    )
    parser.add_argument("conversation", metavar="ID", help="conversation id")
    parser.add_argument(
        "--format",
        "-f",
        choices=("md", "jsonl"),
        help="output format (default: from the -o suffix, else md)",
    )
    parser.add_argument(
        "--output", "-o", metavar="FILE", help="write to FILE (default: standard output)"
    )
    parser.add_argument(
        "--shared", action="store_true", help="read it as a public shared conversation"
    )
    add_settings_options(parser)
    return parser


def _settings_flags(args: argparse.Namespace) -> dict[str, Any]:
    return {name: getattr(args, name, None) for name in SETTING_FLAGS}


def _load_settings(args: argparse.Namespace, prog: str = "ohtui") -> Any:
    """Resolved settings, or None after printing why not (keys never printed)."""
    from tui.config import ConfigError, load, print_warnings

    try:
        resolved = load(_settings_flags(args), config=args.config)
    except ConfigError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return None
    for error in resolved.errors:
        print(f"{prog}: {resolved.scrub(error)}", file=sys.stderr)
    if resolved.errors:
        return None
    print_warnings(resolved)
    return resolved


def _client(resolved: Any, url: str, folder_key: str | None = None) -> Any:
    """The client for ``url``; ``folder_key``: the local-folder server's own key, instead of
    any configured key (which is for another server)."""
    from tui.client import OpenHandsClient

    if folder_key is not None:
        return OpenHandsClient(url, session_api_key=folder_key)
    return OpenHandsClient(
        url, api_key=resolved.key("api_key"), session_api_key=resolved.key("session_key")
    )


LOCAL_PROFILE = "local folders"


def _local_default() -> Any:
    """Where the OpenHands CLI keeps conversations, if there are any there."""
    from pathlib import Path

    from tui.server.folder_scan import conversation_folders

    env = os.environ.get("OPENHANDS_CONVERSATIONS_DIR")
    path = Path(env) if env else Path.home() / ".openhands" / "conversations"
    try:
        return path if conversation_folders(path) else None
    except OSError:
        return None


def _folder_factory(path: Any, stops: list) -> Any:
    """A palette profile that serves local folders (started on first use, read-only)."""

    def connect() -> tuple[Any, str, bool]:
        from tui.client import OpenHandsClient

        started = _serve_folders(str(path))
        if started is None:
            raise RuntimeError(f"no conversation folders in {path}")
        url, stop, key = started
        stops.append(stop)
        return OpenHandsClient(url, session_api_key=key), url, True

    return connect


def _serve_folders(path: str) -> tuple[str, Any, str] | None:
    """The reference server over local conversation folders, on loopback: ``(url, stop,
    key)``; the key is made for this run and only the client given it can read them."""
    from tui.server.folder_server import start_folder_server

    served = start_folder_server(path)
    if served is None:
        print(
            f"ohtui: no OpenHands conversation folders in {path} (expected <id>/events/event-NNNNN-<id>.json)",
            file=sys.stderr,
        )
        return None
    return served.base_url, served.stop, served.session_key


def _profile_factory(args: argparse.Namespace, name: str) -> Any:
    """For the palette's profile switch: that profile's client and URL (flags for another
    server are not carried over; its keys come from its own references)."""

    def connect() -> tuple[Any, str]:
        from tui.config import load

        resolved = load({"profile": name}, config=args.config)
        if resolved.errors:
            raise RuntimeError(resolved.scrub("; ".join(resolved.errors)))
        if not resolved.url:
            raise RuntimeError(f"profile {name!r} has no url")
        return _client(resolved, resolved.url), resolved.url

    return connect


def _serve_demo(sock: Any) -> Any:
    from tui.server.embedded import start_demo_server

    return start_demo_server(sock=sock)[1]


def run_app(args: argparse.Namespace) -> int:
    if args.shared and not args.conversation:
        print("ohtui: --shared needs --conversation ID", file=sys.stderr)
        return 2
    resolved = _load_settings(args)
    if resolved is None:
        return 2

    from textual.app import InvalidThemeError

    from tui.app.app import OhtuiApp
    from tui.app.notices import Notifier

    stop = warm_up = folder_key = None
    url = resolved.url
    local = args.local or args.path
    readonly = resolved.readonly
    if local:
        started = _serve_folders(local)
        if started is None:
            return 2
        url, stop, folder_key = started
        readonly = True  # the folders are never written to, and there are no sandboxes
    elif not url:
        # the port now, the server after the app's first frame (in a thread): the demo's
        # imports and data load no longer delay the first paint
        from tui.loopback import DeferredServer

        demo = DeferredServer(_serve_demo)
        url, stop, warm_up = demo.url, demo.stop, demo.start
    profiles = {name: _profile_factory(args, name) for name in resolved.settings.profiles}
    notice, stops = None, [stop] if stop else []
    found = None if (local or resolved.url) else _local_default()
    if found is not None:  # offered beside the demo, one palette command away
        profiles[LOCAL_PROFILE] = _folder_factory(found, stops)
        notice = f"Local OpenHands conversations in {found}: ctrl+p → 'Profile: {LOCAL_PROFILE}' browses them."

    def stop_all() -> None:
        for each in stops:
            each()

    stop = stop_all if stops else None
    try:
        app = OhtuiApp(
            # built in a thread after the first frame: its imports (httpx, the models) take ~0.3 s
            client_factory=lambda: _client(resolved, url, folder_key),
            url=url,
            conversation_id=args.conversation,
            shared=args.shared,
            theme=resolved.theme,
            readonly=readonly,
            keymap=resolved.keymap,
            notifier=Notifier(
                frozenset(resolved.settings.notify),
                bell=resolved.settings.notify_bell,
                desktop=resolved.settings.notify_desktop,
            ),
            profiles=profiles,
            notice=notice,
            local=bool(local),
            profile=resolved.profile,
            on_exit=stop,
            warm_up=warm_up,
        )
    except InvalidThemeError:
        if stop is not None:
            stop()
        print(
            f"ohtui: unknown theme {resolved.theme!r} (from {resolved.origins['theme']})",
            file=sys.stderr,
        )
        return 2
    app.run()
    return app.return_code or 0


def run_info(argv: list[str]) -> int:
    from tui.config import ConfigError, describe, load
    from tui.paths import config_location

    args = build_info_parser().parse_args(argv)
    location = config_location(args.config)
    try:
        resolved = load(_settings_flags(args), config=args.config)
    except ConfigError as exc:
        sys.stdout.write(describe(None, location, str(exc)))
        return 1
    sys.stdout.write(describe(resolved, location))
    return 1 if resolved.errors else 0


def run_config(argv: list[str]) -> int:
    from tui.paths import config_location

    args = build_config_parser().parse_args(argv)
    location = config_location(args.config)
    if args.action == "path":
        print(location.path)
        return 0
    from tui.config import ConfigError, write_template

    try:
        path = write_template(location.path, force=args.force)
    except (ConfigError, OSError) as exc:
        print(f"ohtui config: {exc}", file=sys.stderr)
        return 1
    print(f"wrote {path} (mode 600; it holds key references, never keys)")
    return 0


def run_export(argv: list[str]) -> int:
    import asyncio

    from tui.export import ExportError, export_conversation, format_for

    args = build_export_parser().parse_args(argv)
    resolved = _load_settings(args, "ohtui export")
    if resolved is None:
        return 2
    fmt = format_for(args.output, args.format)
    stop = None
    url = resolved.url
    if not url:
        from tui.server.embedded import start_demo_server

        url, stop = start_demo_server()
    client = _client(resolved, url)
    to_file = bool(args.output) and args.output != "-"
    part = f"{args.output}.part" if to_file else None

    async def run(write: Any) -> int:
        async with client:
            return await export_conversation(
                client, args.conversation, write, fmt=fmt, shared=args.shared
            )

    try:
        if to_file:
            with open(part, "w", encoding="utf-8", errors="replace", newline="\n") as out:
                count = asyncio.run(run(out.write))
            os.replace(part, args.output)
        else:
            if hasattr(sys.stdout, "reconfigure"):
                sys.stdout.reconfigure(encoding="utf-8", errors="replace")
            count = asyncio.run(run(sys.stdout.write))
            sys.stdout.flush()
    except (Exception, KeyboardInterrupt) as exc:  # noqa: BLE001 - one line, never a traceback
        if part:
            try:
                os.unlink(part)
            except OSError:
                pass
        if isinstance(exc, KeyboardInterrupt):
            return 130
        if isinstance(exc, BrokenPipeError) and not to_file:
            # The reader went away (`| head`): not an error; keep the exit flush quiet too.
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 0
        from tui.client import OpenHandsError

        plain = isinstance(exc, (ExportError, OpenHandsError)) and str(exc)
        message = str(exc) if plain else f"{type(exc).__name__}: {exc}"
        print(f"ohtui export: {resolved.scrub(message)}", file=sys.stderr)
        return 1
    finally:
        if stop is not None:
            stop()
    if count == 0:
        print(
            f"ohtui export: warning: conversation {args.conversation!r} has no events",
            file=sys.stderr,
        )
    if to_file:
        print(f"wrote {count} event(s) to {args.output}", file=sys.stderr)
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    command = argv[:1]
    if command == ["serve"]:
        args = build_serve_parser().parse_args(argv[1:])
        from tui.server.serve import serve_main

        if not 0.0 <= args.chaos <= 1.0:
            print("ohtui serve: --chaos takes a rate between 0 and 1", file=sys.stderr)
            return 2
        return serve_main(
            args.host,
            args.port,
            args.db,
            args.demo,
            args.session_key,
            chaos=args.chaos,
            session_key_file=args.session_key_file,
        )
    if command == ["info"]:
        return run_info(argv[1:])
    if command == ["config"]:
        return run_config(argv[1:])
    if command == ["export"]:
        return run_export(argv[1:])
    args = build_parser(env_defaults=False).parse_args(argv)
    if args.print_config_path:
        from tui.paths import config_location

        print(config_location(args.config).path)
        return 0
    return run_app(args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
