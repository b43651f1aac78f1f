"""Command line entry point. Heavy imports happen only on the paths that need them,
so ``ohtui --version`` and ``--help`` stay instant (no Textual, httpx or pydantic-settings)."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from tui import memory
from tui.commands.connect import load_settings, make_client, warn_keys_on_argv
from tui.commands.options import (
    COMMANDS,
    SETTING_FLAGS,
    add_settings_options,
    build_command_parser,
    build_parser,
    command_word,
)
from tui.text import clean, say

__all__ = ["COMMANDS", "SETTING_FLAGS", "add_settings_options", "build_parser", "main"]


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
    parser.add_argument(
        "--agents",
        type=int,
        default=0,
        metavar="N",
        help="also run N simulated agents at once, each in its own conversation (for the board)",
    )
    return parser


def _local_default(scan: bool = True) -> Any:
    """Where the OpenHands CLI keeps conversations, if there are any there. Without
    ``scan``, only that the folder is there (a scan lists every conversation's events
    folder: for a run on a real server it waits until the user switches to it)."""
    from pathlib import Path

    from tui.server.folder_scan import conversation_folders

    env = os.environ.get("OPENHANDS_CONVERSATIONS_DIR")
    path = Path(env) if env else Path.home() / ".openhands" / "conversations"
    try:
        return path if (conversation_folders(path) if scan else path.is_dir()) else None
    except OSError:
        return None


def _no_folders(path: str) -> None:
    say(
        f"ohtui: no OpenHands conversation folders in {path} (expected <id>/events/event-NNNNN-<id>.json)",
        file=sys.stderr,
    )


def _serve_folders(path: str) -> tuple[str, Any, str] | None:
    """The reference server over local conversation folders, on loopback, in this process:
    ``(url, stop, key)``; the key is made for this run and only the client given it can read
    them. For ``ohtui export``/``insights`` (the app runs it in a child: ``_spawn_folders``)."""
    from tui.server.folder_server import start_folder_server

    served = start_folder_server(path)
    if served is None:
        _no_folders(path)
        return None
    return served.base_url, served.stop, served.session_key


def _spawn_folders(path: str) -> Any:
    """As ``_serve_folders``, but the server runs in a child process (``folder_process.py``),
    starting on the other core while the app imports and paints; it ends with the app.
    Its ``ServerProcess``, or None after saying why not."""
    from tui.server.folder_process import start_folder_process

    served = start_folder_process(path)
    if served is None:
        _no_folders(path)
    return served


def _app_client(resolved: Any, url: str, folder_key: str | None) -> Any:
    """The app's client: the configured one, or for local folders the folder server's own
    per-run key (the configured keys belong to another server)."""
    if folder_key is None:
        return make_client(resolved, url)
    from tui.client import OpenHandsClient

    return OpenHandsClient(url, session_api_key=folder_key, server_kind="app")


def _folder_client(path: str) -> tuple[Any, Any] | None:
    """For ``ohtui export FOLDER`` (and ``insights``): a client of the folder server over ``path`` and the
    server's stop, or None after saying why not (as for ``ohtui PATH``)."""
    from tui.client import OpenHandsClient

    started = _serve_folders(path)
    if started is None:
        return None
    url, stop, key = started
    return OpenHandsClient(url, session_api_key=key), stop


def _theme_names() -> list[str]:
    """Every theme a run can pick: ohtui's own, then Textual's."""
    from textual.theme import BUILTIN_THEMES

    from tui.app.themes import load_themes

    loaded = load_themes()  # a list of themes, or (themes, problems) where user themes load
    own = [theme.name for theme in (loaded[0] if isinstance(loaded, tuple) else loaded)]
    return own + sorted(name for name in BUILTIN_THEMES if name not in own)


def run_app(args: argparse.Namespace) -> int:
    if args.shared and not args.conversation:
        say("ohtui: --shared needs --conversation ID", file=sys.stderr)
        return 2
    if args.conversation and not (args.local or args.path):  # folders may name theirs freely
        from tui.commands.target import conversation_problem

        problem = conversation_problem(args.conversation, args.shared)
        if problem is not None:
            say(f"ohtui: --conversation: {problem}", file=sys.stderr)
            return 2
    memory.pause_collector()  # until the app's imports are done (``OhtuiApp._started``)
    local = args.local or args.path
    folders = zipped = None
    try:
        if local and _is_zip(local):  # a trajectory zip: unpacked, then served as a folder
            zipped = _open_zip(local)
            if zipped is None:
                return 2
        if local:  # first: the server's start runs beside the settings, imports and paint
            folders = _spawn_folders(str(zipped.folder) if zipped else local)
            if folders is None:
                return 2
        return _run_app(args, local, folders, zipped)
    finally:  # however the app ended (its own quit stops the server already: a no-op then)
        if folders is not None:
            folders.stop()
        if zipped is not None:
            zipped.remove()
        memory.resume_collector()


def _is_zip(path: str) -> bool:
    from tui.commands.trajectory_zip import looks_like_zip

    return looks_like_zip(path)


def _open_zip(path: str) -> Any:
    """``ohtui FILE.zip``: the zip unpacked into a private temporary folder (removed when
    the app ends), or None after saying why it cannot be opened."""
    from tui.commands.trajectory_zip import ZipRefused, open_zip

    try:
        return open_zip(path)
    except ZipRefused as exc:
        say(f"ohtui: {exc}", file=sys.stderr)
        return None


def _run_app(args: argparse.Namespace, local: str | None, folders: Any, zipped: Any = None) -> int:
    resolved = load_settings(args)
    if resolved is None:
        return 2
    demo = None
    if folders is None and not resolved.url:
        # the demo's server in a child process, before the app's imports: its own imports
        # and data load run on the other core while the app imports and paints (the app
        # waits for it in a thread)
        from tui.server.demo_process import start_demo_process

        demo = start_demo_process()

    from textual.app import InvalidThemeError

    from tui.app.app import OhtuiApp
    from tui.app.board.options import BoardOptions
    from tui.app.notices import Notifier

    warm_up = folder_key = None
    url = resolved.url
    stops: list = []  # ohtui's own servers, stopped when the app ends (more may start)
    profiles, current, notice = _profiles(args, resolved, local, folders, demo, zipped, stops)
    if folders is not None:
        url, folder_key = folders.base_url, folders.session_key
    elif demo is not None:
        url, warm_up = demo.base_url, demo.wait_ready

    def stop_all() -> None:
        for each in stops:
            each()

    try:
        app = OhtuiApp(
            # built in a thread after the first frame: its imports (httpx, the models) take ~0.3 s
            client_factory=lambda: _app_client(resolved, url, folder_key),
            url=url,
            conversation_id=args.conversation,
            shared=args.shared,
            theme=resolved.theme,
            readonly=resolved.readonly,  # local folders are read-only all the same
            keymap=resolved.keymap,
            notifier=Notifier(
                frozenset(resolved.settings.notify),
                bell=resolved.settings.notify_bell,
                desktop=resolved.settings.notify_desktop,
            ),
            profiles=profiles,
            notice=notice,
            local=bool(local),
            profile=current,
            on_exit=stop_all,
            warm_up=warm_up,
            board=BoardOptions.from_settings(
                resolved.settings.board, all_profiles=args.all_profiles
            ),
            search_max_bytes=resolved.settings.search_index_mb << 20,
        )
    except InvalidThemeError:
        stop_all()
        say(
            f"ohtui: unknown theme {resolved.theme!r} (from {resolved.origins['theme']})",
            file=sys.stderr,
        )
        say(f"  themes: {', '.join(_theme_names())}", file=sys.stderr)
        return 2
    from tui.app.log_file import writing_log

    with writing_log():  # where the notices of failures the app survives send the details
        app.run()
    return app.return_code or 0


def _profiles(
    args: argparse.Namespace,
    resolved: Any,
    local: str | None,
    folders: Any,
    demo: Any,
    zipped: Any,
    stops: list,
) -> tuple[dict[str, Any], str | None, str | None]:
    """What the palette switches between, each way (``tui.app.profiles``): the config
    file's profiles, the bundled demo, local folders (those opened, else
    ~/.openhands/conversations when it holds any) and the server given at start without
    a profile name. Returns them, the one in use, and the notice to show at start."""
    from tui.app.profiles import DEMO, LOCAL, unused_name
    from tui.commands import profiles as made

    settings = resolved.settings.profiles
    profiles: dict[str, Any] = {
        name: made.config_profile(args, name, spec.url) for name, spec in settings.items()
    }
    current, notice = resolved.profile, None
    demo_name, local_name = unused_name(DEMO, settings), unused_name(LOCAL, settings)
    profiles[demo_name] = made.demo_profile(made.demo_server(stops, demo))
    if demo is not None:
        stops.append(demo.stop)
        current = demo_name
    if folders is not None:
        stops.append(folders.stop)
        path = str(zipped.folder) if zipped else str(local)
        shown = f"the trajectory zip {zipped.name}" if zipped else f"the conversations in {local}"
        profiles[local_name] = made.folders_profile(
            made.folder_server(path, stops, folders), shown, path
        )
        current = local_name
        if zipped is not None:
            notice = f"{clean(zipped.name)}: opened read-only (unpacked into a private folder, removed on exit)."
    else:
        found = _local_default(scan=demo is not None)  # the demo's notice says they are there
        if found is not None:
            shown = f"the OpenHands conversations in {found}"
            profiles[local_name] = made.folders_profile(
                made.folder_server(str(found), stops), shown, str(found)
            )
            if demo is not None:  # offered beside the demo, one palette command away
                notice = f"Local OpenHands conversations in {found}: ctrl+p → 'Profile: {local_name}' browses them."
    if current is None and resolved.url:  # a URL without a profile's name: a way back to it
        current = made.start_name(resolved.url, profiles)
        profiles[current] = made.start_profile(resolved, resolved.url)
    return profiles, current, notice


def run_command(argv: list[str]) -> int:
    """``ohtui [settings] info|config|export|insights|diff|download …``: settings options on
    either side."""
    args = build_command_parser().parse_args(argv)
    warn_keys_on_argv(args, f"ohtui {args.command}")
    if args.command == "info":
        from tui.commands.info import run_info

        return run_info(args)
    if args.command == "config":
        given = [name for name in SETTING_FLAGS if getattr(args, name, None) is not None]
        if given:
            flag = "--" + given[0].replace("_", "-")
            say(f"ohtui config: {flag} does not apply here (only --config does)", file=sys.stderr)
            return 2
        from tui.commands.config_file import run_config

        return run_config(args)
    if args.command == "insights":
        from tui.commands.insights import run_insights

        return run_insights(args, _folder_client)
    if args.command == "diff":
        from tui.commands.diff import run_diff

        return run_diff(args, _folder_client)
    if args.command in ("search", "index"):
        from tui.commands.search import run_index_command

        return run_index_command(args, _folder_client)
    if args.command == "download":
        from tui.commands.download import run_download

        return run_download(args, _folder_client)
    from tui.commands.export import run_export

    return run_export(args, _folder_client)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    memory.map_big_blocks()  # outputs of megabytes freed are given back (tui/memory.py)
    command = command_word(argv)
    if command == "serve":
        if argv[:1] != ["serve"]:
            say(
                "ohtui serve: runs a server and takes no connection settings; put its own "
                "options after 'serve' (ohtui serve --help)",
                file=sys.stderr,
            )
            return 2
        args = build_serve_parser().parse_args(argv[1:])
        from tui.server.serve import serve_main

        if not 0.0 <= args.chaos <= 1.0:
            say("ohtui serve: --chaos takes a rate between 0 and 1", file=sys.stderr)
            return 2
        if not 0 <= args.agents <= 2000:
            say("ohtui serve: --agents takes a number from 0 to 2000", file=sys.stderr)
            return 2
        return serve_main(
            args.host,
            args.port,
            args.db,
            args.demo,
            args.session_key,
            chaos=args.chaos,
            session_key_file=args.session_key_file,
            agents=args.agents,
        )
    if command is not None:
        return run_command(argv)
    args = build_parser(env_defaults=False).parse_args(argv)  # keys: flags only, not OHTUI_*
    warn_keys_on_argv(args)
    if args.print_config_path:
        from tui.paths import config_location

        say(str(config_location(args.config).path))
        return 0
    return run_app(args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
