"""The command line's parsers, and which command a command line names.

Settings options (``--url``, ``--readonly``, ``--profile``…) are global: accepted before or
after the command word, so ``ohtui --readonly info`` and ``ohtui info --readonly`` mean the
same. ``ohtui`` with no command word runs the app (with an optional ``PATH`` of conversation
folders), so the command is found first (:func:`command_word`) and then the line is parsed
by the app's parser or by the commands' parser. Standard library only: ``--help`` and
``--version`` import nothing else.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence

from tui import __version__

#: Commands a first positional word names (``serve`` keeps a parser of its own).
COMMANDS = ("info", "config", "export", "insights", "diff", "download", "search", "index", "serve")
#: Settings a flag can set; ``None`` means "not given" (the environment and file decide).
SETTING_FLAGS = ("url", "api_key", "session_key", "theme", "readonly", "profile", "server_kind")
SERVER_KINDS = ("auto", "app", "agent", "shared")

EPILOG = """\
With no URL (flag, OHTUI_URL or profile), ohtui starts its bundled reference server on a
loopback port with a demo dataset, so everything can be tried at once.

Settings: config file < OHTUI_* environment < flags. The file is config.toml in the user
config dir (`ohtui info` prints it; OHTUI_CONFIG or --config moves it). Environment:
OHTUI_URL, OHTUI_API_KEY, OHTUI_SESSION_KEY, OHTUI_PROFILE, OHTUI_THEME, OHTUI_READONLY,
OHTUI_SERVER_KIND. The settings options go before or after a command word.

commands:
  ohtui info                      every path, the active profile, where each setting came
                                  from, and what the server is (probed)
  ohtui config init [--force]     write a commented config file (mode 600, no keys)
  ohtui export ID|FOLDER [--format md|jsonl] [-o FILE] [--shared] [--local DIR]
                                  a conversation as a Markdown transcript or JSONL, no UI:
                                  by id from the server, or a local conversation folder
  ohtui insights ID|FOLDER [--format md|json] [-o FILE] [--shared] [--local DIR]
                                  where a conversation's time and money went: cost and
                                  tokens over time, tools, slowest actions, dearest steps,
                                  model calls, repeated failures (JSON for scripts)
  ohtui diff ID [-o FILE] [--ref REF] [--path DIR]
                                  what the agent changed in its workspace, as a patch
                                  that `git apply` takes on the base
  ohtui download ID [-o FILE]     the conversation's trajectory (its events and state) as
                                  a zip; `ohtui FILE.zip` opens one read-only like a folder
  ohtui search QUERY [--format text|json] [--limit N] [--local DIR]
                                  every conversation searched at once (a local index,
                                  brought up to date first): words, "phrases", prefix*,
                                  kind: tool: source: in:"title words" since:7d until:DATE
  ohtui index [--rebuild] [--status] [--local DIR]
                                  fill the search index (or say how complete it is)
  ohtui serve [--host H] [--port N] [--db PATH] [--demo] [--session-key-file F]
                                  run the reference server in the foreground
"""


def url_arg(text: str) -> str:
    """``--url``'s type: a usage error (exit 2) unless it is an http(s) URL with a host."""
    from tui.config.urls import url_problem

    problem = url_problem(text)
    if problem is not None:
        raise argparse.ArgumentTypeError(problem)
    return text


def _env(name: str, env_defaults: bool) -> str | None:
    return os.environ.get(name) if env_defaults else None


def add_settings_options(
    parser: argparse.ArgumentParser, *, env_defaults: bool = False, after_command: bool = False
) -> None:
    """The settings options, shared by the app and every command that connects.

    ``after_command``: for a command's own parser, where an option not given must not
    overwrite the value given before the command word (argparse's ``SUPPRESS`` default).
    """

    def default(env: str | None) -> str | None:
        if after_command:
            return argparse.SUPPRESS
        return _env(env, env_defaults) if env else None

    group = parser.add_argument_group("settings (before or after a command word)")
    group.add_argument(
        "--config",
        metavar="PATH",
        default=default(None),
        help="config file (default: config.toml in the user config dir; also OHTUI_CONFIG)",
    )
    group.add_argument(
        "--profile",
        "-P",
        metavar="NAME",
        default=default("OHTUI_PROFILE"),
        help="use [profiles.NAME] of the config file (also OHTUI_PROFILE)",
    )
    group.add_argument(
        "--url",
        type=url_arg,
        default=default("OHTUI_URL"),
        help="base URL of the service, http(s)://host[:port] (default: the profile's, "
        "else the bundled demo server)",
    )
    group.add_argument(
        "--api-key",
        metavar="KEY",
        default=default("OHTUI_API_KEY"),
        help="cloud API key, sent as 'Authorization: Bearer' (prefer OHTUI_API_KEY or a profile)",
    )
    group.add_argument(
        "--session-key",
        metavar="KEY",
        default=default("OHTUI_SESSION_KEY"),
        help="self-hosted key, sent as X-Session-API-Key (prefer OHTUI_SESSION_KEY or a profile)",
    )
    group.add_argument(
        "--server-kind",
        choices=SERVER_KINDS,
        default=default("OHTUI_SERVER_KIND"),
        help="what the server is: an app server, a bare agent server, a shared-conversations "
        "server, or auto (detect; the default). Also OHTUI_SERVER_KIND, a profile's server_kind",
    )
    group.add_argument(
        "--theme",
        metavar="NAME",
        default=default("OHTUI_THEME"),
        help="colour theme (ohtui-dark, ohtui-light, or any Textual theme; also OHTUI_THEME)",
    )
    group.add_argument(
        "--readonly",
        action=argparse.BooleanOptionalAction,
        default=argparse.SUPPRESS if after_command else None,
        help="disable every mutating action (also OHTUI_READONLY, readonly = true)",
    )


def build_parser(*, env_defaults: bool = True) -> argparse.ArgumentParser:
    """The app's parser. With ``env_defaults`` the ``OHTUI_*`` values show as defaults;
    :func:`tui.cli.main` parses with ``env_defaults=False`` so that flags and environment
    stay apart for the settings' precedence and for ``ohtui info``."""
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
    parser.add_argument(
        "--conversation",
        metavar="ID",
        help="open this conversation directly (its id, or its first 4+ hex digits)",
    )
    parser.add_argument(
        "--shared",
        action="store_true",
        help="browse --conversation as a public shared conversation",
    )
    parser.add_argument(
        "path",
        nargs="?",
        metavar="PATH",
        help="browse local OpenHands conversation folders (a folder of conversations, or one, "
        "or a trajectory zip: ohtui download)",
    )
    parser.add_argument("--local", metavar="PATH", help="same as PATH")
    parser.add_argument(
        "--all-profiles",
        action="store_true",
        default=None,
        help="the board (key 3) watches every configured profile at once (also [board] "
        "all_profiles = true)",
    )
    add_settings_options(parser, env_defaults=env_defaults)
    return parser


def _add_export(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "export",
        help="a conversation as Markdown or JSONL, without the UI",
        description="Write a conversation as a Markdown transcript or as JSONL (one event per "
        "line, secrets masked), without the UI: a conversation of the server by id, or a local "
        "conversation folder (ohtui export ~/.openhands/conversations/ID, or --local DIR ID).",
    )
    parser.add_argument(
        "conversation",
        nargs="?",
        metavar="ID|FOLDER",
        help="conversation id (or its first 4+ hex digits), or the path of a local "
        "conversation folder",
    )
    parser.add_argument(
        "--local",
        metavar="DIR",
        help="read local conversation folders in DIR (then ID picks one; not needed when DIR "
        "holds just one)",
    )
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
    add_settings_options(parser, after_command=True)


def _add_insights(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "insights",
        help="where a conversation's time and money went, without the UI",
        description="Print a conversation's insights: cost and tokens over time, per tool calls, "
        "failures and times, the slowest actions, the most expensive steps, model calls and "
        "repeated failures; a figure the log cannot give is said to be unknown. By id from the "
        "server, or a local conversation folder (ohtui insights FOLDER, or --local DIR ID).",
    )
    parser.add_argument(
        "conversation",
        nargs="?",
        metavar="ID|FOLDER",
        help="conversation id (or its first 4+ hex digits), or the path of a local "
        "conversation folder",
    )
    parser.add_argument(
        "--local",
        metavar="DIR",
        help="read local conversation folders in DIR (then ID picks one; not needed when DIR "
        "holds just one)",
    )
    parser.add_argument(
        "--format", "-f", choices=("md", "json"), default="md", help="md (default) or json"
    )
    parser.add_argument(
        "--output", "-o", metavar="FILE", help="write to FILE (default: standard output)"
    )
    parser.add_argument(
        "--shared", action="store_true", help="read it as a public shared conversation"
    )
    add_settings_options(parser, after_command=True)


def _add_diff(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "diff",
        help="what a conversation's agent changed in its workspace, as a patch",
        description="Write the changes in a conversation's workspace (its git repository on "
        "the agent server) as a patch that `git apply` takes on the base: the server's own "
        "patch where it makes one (exact, binaries included), else computed from its changes "
        "and diffs (text files; what it could not hold is said). Written exactly, unmasked, "
        "so that it applies. What was written and where to apply it goes to standard error.",
    )
    parser.add_argument(
        "conversation", nargs="?", metavar="ID", help="conversation id (or its first 4+ hex digits)"
    )
    parser.add_argument(
        "--output", "-o", metavar="FILE", help="write to FILE (default: standard output)"
    )
    parser.add_argument(
        "--ref",
        metavar="REF",
        help="the base: HEAD for uncommitted changes only, or a commit (default: the "
        "server's base, the branch's origin or merge base)",
    )
    parser.add_argument(
        "--path",
        metavar="DIR",
        help="the repository's folder on the server (default: the conversation's workspace)",
    )
    parser.set_defaults(local=None, shared=False)
    add_settings_options(parser, after_command=True)


def _add_download(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "download",
        help="a conversation's trajectory as a zip, without the UI",
        description="Download a conversation's trajectory (its folder of events and state, "
        "as the server keeps it) as a zip: to FILE, or to a new file in the working directory "
        "(ohtui-<id>-trajectory.zip, never over anything). `ohtui FILE.zip` opens it "
        "read-only like a local conversation folder.",
    )
    parser.add_argument(
        "conversation", nargs="?", metavar="ID", help="conversation id (or its first 4+ hex digits)"
    )
    parser.add_argument(
        "--output",
        "-o",
        metavar="FILE",
        help="write to FILE (- for standard output; default: a new file in the working directory)",
    )
    parser.set_defaults(local=None, shared=False)
    add_settings_options(parser, after_command=True)


def _add_search(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "search",
        help="search every conversation at once (a local full-text index)",
        description="Search every conversation of the server (or of local folders with "
        "--local DIR) at once, in a local full-text index brought up to date first (secrets "
        'are masked before they are indexed). Words must all match; "a phrase"; prefix*; '
        "-word must not match; filters: kind:action, tool:terminal, source:agent, "
        'in:"title words", since:2026-11-01 or since:7d, until:DATE. Hits are grouped by '
        "conversation, best first (--newest: newest first); the last line says how complete "
        "the index is. Exit status 1 when nothing matches.",
    )
    parser.add_argument("query", nargs="+", metavar="QUERY", help="what to look for")
    parser.add_argument(
        "--format", "-f", choices=("text", "json"), default="text", help="text (default) or json"
    )
    parser.add_argument(
        "--limit", "-n", type=_positive, default=50, metavar="N", help="at most N hits (50)"
    )
    parser.add_argument("--newest", action="store_true", help="newest hits first")
    parser.add_argument(
        "--no-update",
        action="store_true",
        help="search the index as it is, without asking the server for what is new",
    )
    parser.add_argument("--local", metavar="DIR", help="the conversation folders in DIR")
    add_settings_options(parser, after_command=True)


def _add_index(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "index",
        help="fill the search index, or say how complete it is",
        description="Bring the local search index of the server (or of --local DIR) up to "
        "date: newest conversations first, resuming where the last fill stopped; then say "
        "how complete it is and where it is kept.",
    )
    parser.add_argument("--rebuild", action="store_true", help="empty it first, then fill it")
    parser.add_argument(
        "--status", action="store_true", help="only say how complete it is (no request)"
    )
    parser.add_argument("--local", metavar="DIR", help="the conversation folders in DIR")
    add_settings_options(parser, after_command=True)


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if not 1 <= value <= 10_000:
        raise argparse.ArgumentTypeError("a number from 1 to 10000")
    return value


def _add_config(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "config", help="manage the config file", description="Manage the config file."
    )
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    init = actions.add_parser("init", help="write a commented template (mode 600, never any key)")
    init.add_argument("--force", action="store_true", help="replace an existing file")
    path = actions.add_parser("path", help="print the config file's path")
    for each in (parser, init, path):
        each.add_argument(
            "--config",
            metavar="PATH",
            default=argparse.SUPPRESS,
            help="the config file (default: the usual one; also OHTUI_CONFIG)",
        )


def build_command_parser() -> argparse.ArgumentParser:
    """The parser of ``ohtui [settings] COMMAND [options]`` (all but ``serve``)."""
    parser = argparse.ArgumentParser(
        prog="ohtui",
        description="Terminal UI for OpenHands-style agent services: commands.",
        epilog="ohtui --help describes the app itself; ohtui COMMAND --help each command.",
    )
    add_settings_options(parser)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    info = sub.add_parser(
        "info",
        help="paths, settings and where each came from; what the server is",
        description="Print every path ohtui uses, the active profile and where each setting "
        "came from, and, when a URL is set, what the server is (probed with a short timeout). "
        "Keys show only as set / not set.",
    )
    info.add_argument(
        "--no-probe", action="store_true", help="do not contact the server (settings only)"
    )
    add_settings_options(info, after_command=True)
    _add_export(sub)
    _add_insights(sub)
    _add_diff(sub)
    _add_download(sub)
    _add_search(sub)
    _add_index(sub)
    _add_config(sub)
    return parser


def _probe_parser() -> argparse.ArgumentParser:
    """Every option that takes a value, untyped: only to see where the command word is."""
    parser = argparse.ArgumentParser(add_help=False, exit_on_error=False)
    for names in (
        ("--config",),
        ("--profile", "-P"),
        ("--url",),
        ("--api-key",),
        ("--session-key",),
        ("--server-kind",),
        ("--theme",),
        ("--conversation",),
        ("--local",),
    ):
        parser.add_argument(*names)
    parser.add_argument("--readonly", action=argparse.BooleanOptionalAction)
    return parser


def command_word(argv: Sequence[str]) -> str | None:
    """The command named by ``argv``, or None for the app.

    The command is the first positional word, wherever the settings options put it; a
    word after ``--`` is always a PATH, and a bad option is left to the real parser.
    """
    head = list(argv[: argv.index("--")] if "--" in argv else argv)
    try:
        _, rest = _probe_parser().parse_known_args(head)
    except argparse.ArgumentError:
        return None
    words = [word for word in rest if not word.startswith("-")]
    return words[0] if words and words[0] in COMMANDS else None
