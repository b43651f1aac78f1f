"""User settings: a TOML file, ``OHTUI_*`` environment variables and command-line flags.

Precedence, lowest first: defaults < the config file < ``OHTUI_*`` environment < flags.
The merge is pydantic-settings' own (init kwargs = flags, then the env source, then its TOML
source for the file); :func:`load` adds what pydantic-settings does not know about: which
profile is active, key *references* resolved to keys, and where every value came from.

- ``settings.py``: the schema (``Settings``, ``Profile``) and the order of the sources.
- ``config_file.py``: the TOML source, with file-and-line messages (keys refused there).
- ``resolve.py``: one run's settings (``load``, ``Resolved``): profile, keys, origins.
- ``info.py``: the text of ``ohtui info``; ``template.py``: ``ohtui config init``.
- ``urls.py``, ``errors.py``: standard library only, for the CLI's fast paths.

Names load their module on first use: pydantic-settings is not on the ``--version`` path.
"""

from typing import TYPE_CHECKING

from tui.lazy import lazy_getattr

from .errors import ConfigError

_LAZY = {
    "ENV_PREFIX": ".settings",
    "FILE_KEYS": ".settings",
    "FLAGS": ".settings",
    "SECRET_FIELDS": ".settings",
    "SERVER_KINDS": ".settings",
    "Profile": ".settings",
    "Settings": ".settings",
    "ConfigFileSource": ".config_file",
    "Resolved": ".resolve",
    "load": ".resolve",
    "print_warnings": ".resolve",
    "describe": ".info",
    "TEMPLATE": ".template",
    "write_template": ".template",
    "check_url": ".urls",
    "url_problem": ".urls",
    "printable_url": ".urls",
}

if TYPE_CHECKING:
    from .config_file import ConfigFileSource
    from .info import describe
    from .resolve import Resolved, load, print_warnings
    from .settings import (
        ENV_PREFIX,
        FILE_KEYS,
        FLAGS,
        SECRET_FIELDS,
        SERVER_KINDS,
        Profile,
        Settings,
    )
    from .template import TEMPLATE, write_template
    from .urls import check_url, printable_url, url_problem

__getattr__ = lazy_getattr(__name__, _LAZY, globals())

__all__ = [
    "ENV_PREFIX",
    "FILE_KEYS",
    "FLAGS",
    "SECRET_FIELDS",
    "SERVER_KINDS",
    "TEMPLATE",
    "ConfigError",
    "ConfigFileSource",
    "Profile",
    "Resolved",
    "Settings",
    "check_url",
    "describe",
    "load",
    "print_warnings",
    "printable_url",
    "url_problem",
    "write_template",
]
