"""``ohtui config init``: a commented config file that is valid once uncommented."""

from __future__ import annotations

import os
from pathlib import Path

from tui.safe_output import Destination, OutputError, write_text

from .errors import ConfigError

TEMPLATE = """\
# ohtui configuration. `ohtui info` shows where this file is and where each setting came from.
# Precedence: this file < OHTUI_* environment variables < command-line flags.
# Keys never go in this file: a profile names an environment variable or a file holding one.

# default_profile = "local"
# theme = "ohtui-dark"              # ohtui-dark, ohtui-light or any Textual theme
# readonly = false                  # true disables pause, resume, start, delete, new conversation
# notify = ["finished", "error", "stuck", "waiting_for_confirmation"]  # agent statuses that notify
# notify_bell = true                # ring the terminal bell with them
# notify_desktop = false            # also notify-send, where there is one
# search_index_mb = 1024            # each server's search index at most (least used left out)

# [profiles.local]                  # a self-hosted server: `ohtui --profile local`
# url = "http://127.0.0.1:8000"
# session_key_env = "OHTUI_LOCAL_SESSION_KEY"   # the variable's name, not the key
# server_kind = "auto"              # auto (detect), app, agent (a bare agent server) or shared
# agent_settings_file = "agent.json"  # a bare agent server: the agent new conversations use
#                                   # (JSON; keys by reference: "api_key_env": "MY_LLM_KEY")

# [profiles.cloud]
# url = "https://app.all-hands.dev"
# api_key_file = "cloud.key"        # beside this file; keep it private: chmod 600 cloud.key

# [keymap]                          # binding id = comma-separated keys (see the README)
# "list.down" = "j,down,ctrl+n"
# "app.sandboxes" = "2,f2"

# [board]                           # the live board of running agents (key 3)
# statuses = ["running", "waiting_for_confirmation", "paused", "stuck", "error", "finished"]
# recent_minutes = 60               # ended statuses (error, stuck, finished) only while this recent
# sockets = 20                      # rows followed live over websockets; the rest are polled
# poll_seconds = 4                  # seconds between two looks at each server
# scan = 500                        # conversations looked at per server, newest first
# all_profiles = false              # every configured profile at once (also --all-profiles)
"""


def write_template(path: Path, *, force: bool = False) -> Destination:
    """Write :data:`TEMPLATE` to ``path`` with mode 600 and return where it went (a link
    named is written through, once); refuses to replace anything unless ``force``."""
    if os.path.lexists(path) and not force:
        raise ConfigError(f"{path} already exists (use --force to replace it)")
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    try:
        return write_text(path, TEMPLATE, exclusive=not force, mode=0o600)
    except OutputError as exc:
        raise ConfigError(str(exc)) from None
