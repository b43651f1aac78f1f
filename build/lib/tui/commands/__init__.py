"""The ``ohtui`` subcommands and their parsers; :mod:`tui.cli` dispatches to them.

``options``: the parsers (settings options before or after the command word);
``connect``: settings → client; ``info``, ``export``, ``config_file``: one command each.
"""
