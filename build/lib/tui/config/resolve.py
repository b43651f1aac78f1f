"""One run's settings: the merged ``Settings``, the active profile, keys resolved from
their references, and where every value came from (for messages and ``ohtui info``).

Keys are never stored in the config file. A profile names an environment variable
(``api_key_env``) or a file (``api_key_file``, expected to be mode 600) that holds the key.
Resolved keys are ``SecretStr``: ``repr`` of any object here shows ``**********``, error
messages name the variable or file, never the value.
"""

from __future__ import annotations

import json
import os
import stat
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import SecretStr, ValidationError
from pydantic_settings import EnvSettingsSource, SettingsError

from tui.paths import ConfigLocation, config_location
from tui.text import say
from tui.untrusted_files import FileRefused, read_text

from .config_file import TOO_DEEP, ConfigFileSource, where
from .errors import ConfigError
from .settings import ENV_PREFIX, FLAGS, Profile, Settings, settings_from

MAX_KEY_FILE_BYTES = 64 * 1024


@dataclass
class Resolved:
    """The settings for one run, with where each came from. ``repr`` masks the keys."""

    location: ConfigLocation
    config_exists: bool
    settings: Settings
    profile: str | None = None
    url: str | None = None
    api_key: SecretStr | None = None
    session_key: SecretStr | None = None
    theme: str | None = None
    readonly: bool = False
    #: "auto" (detect), "app", "agent" or "shared"
    server_kind: str = "auto"
    keymap: dict[str, str] = field(default_factory=dict)
    #: the agent settings a bare agent server starts conversations with (keys resolved), or None
    agent_settings: dict[str, Any] | None = field(default=None, repr=False)
    #: setting name → where its value came from ("flag --url", "env OHTUI_URL", "file", …)
    origins: dict[str, str] = field(default_factory=dict)
    #: things to tell the user that do not stop ohtui (loose key-file modes, unused keys)
    warnings: list[str] = field(default_factory=list)
    #: problems that stop ohtui from connecting (a referenced key that is missing)
    errors: list[str] = field(default_factory=list)

    def secrets(self) -> list[str]:
        """Every key value known to this run (flags, env, profile references)."""
        values = [self.api_key, self.session_key, self.settings.api_key, self.settings.session_key]
        found = [v.get_secret_value() for v in values if v is not None and v.get_secret_value()]
        if self.agent_settings:
            from .agent_settings import secret_strings

            found += secret_strings(self.agent_settings)
        return found

    def scrub(self, text: str) -> str:
        """``text`` with every known key value replaced by ``‹redacted›`` (for error output)."""
        for secret in sorted(set(self.secrets()), key=len, reverse=True):
            text = text.replace(secret, "‹redacted›")
        return text

    def key(self, name: str) -> str | None:
        """The plain value of ``api_key`` or ``session_key``, for the HTTP client only."""
        value = getattr(self, name)
        return value.get_secret_value() if value is not None else None


def _validation_message(
    exc: ValidationError, origins: Mapping[str, str], file: ConfigFileSource | None
) -> str:
    lines = []
    for err in exc.errors(include_url=False, include_input=False, include_context=False):
        loc = tuple(str(p) for p in err["loc"])
        head = loc[0] if loc else "?"
        source = origins.get(head, "file")
        if source == "file" and file is not None:
            source = f"file {where(file.path, file.text, loc)}"
        message = err["msg"].removeprefix("Value error, ")
        if err["type"] == "extra_forbidden":
            message = "unknown setting"
        lines.append(f"{'.'.join(loc) or '(settings)'} ({source}): {message}")
    return "invalid settings:\n  " + "\n  ".join(lines)


def _too_deep(value: str) -> bool:
    try:
        json.loads(value)
    except RecursionError:
        return True
    except ValueError:
        pass
    return False


def _env_values() -> dict[str, Any]:
    try:
        return EnvSettingsSource(Settings)()
    except SettingsError as exc:
        # The message names the field and the source, not the value.
        raise ConfigError(f"environment: {exc}") from None
    except RecursionError:  # a JSON value (OHTUI_KEYMAP, …) nested past the parser's depth
        names = [
            name
            for name, value in os.environ.items()
            if name.upper().startswith(ENV_PREFIX) and _too_deep(value)
        ]
        raise ConfigError(
            f"environment: {', '.join(names) or ENV_PREFIX + '*'}: {TOO_DEEP}"
        ) from None


def _origin(
    name: str, flags: Mapping[str, Any], env: Mapping[str, Any], file: Mapping[str, Any]
) -> str:
    if name in flags:
        return f"flag {FLAGS.get(name, '--' + name.replace('_', '-'))}"
    if name in env:
        return f"env {ENV_PREFIX}{name.upper()}"
    if name in file:
        return "file"
    return "default"


def _key_file(
    path_text: str, base: Path, profile: str, what: str, resolved: Resolved
) -> SecretStr | None:
    path = Path(path_text).expanduser()
    if not path.is_absolute():
        path = base / path
    where = f"profile '{profile}': {what}_file {path}"
    try:
        text, mode = read_text(path, MAX_KEY_FILE_BYTES)
    except FileRefused as exc:
        resolved.errors.append(f"{where} {exc}")
        return None
    text = text.strip()
    if os.name == "posix" and mode & 0o077:
        resolved.warnings.append(
            f"{where} is readable by others (mode {stat.S_IMODE(mode):03o}); run: chmod 600 {path}"
        )
    if not text:
        resolved.errors.append(f"{where} is empty")
        return None
    return SecretStr(text)


def _profile_key(
    profile_name: str, profile: Profile, what: str, base: Path, resolved: Resolved
) -> tuple[SecretStr | None, str | None]:
    env_name = getattr(profile, f"{what}_env")
    file_name = getattr(profile, f"{what}_file")
    if env_name:
        value = os.environ.get(env_name)
        if not value:
            resolved.errors.append(
                f"profile '{profile_name}': {what}_env names {env_name}, which is not set"
            )
            return None, None
        return SecretStr(value), f"profile {profile_name}: env {env_name}"
    if file_name:
        secret = _key_file(file_name, base, profile_name, what, resolved)
        return secret, (f"profile {profile_name}: file {file_name}" if secret else None)
    return None, None


def load(
    flags: Mapping[str, Any] | None = None, *, config: str | os.PathLike[str] | None = None
) -> Resolved:
    """Resolve the settings of one run.

    ``flags`` are the command-line values (``url``, ``api_key``, ``session_key``, ``theme``,
    ``readonly``, ``profile``, ``server_kind``); ``None`` means "not given". ``config`` is ``--config``.
    Raises :class:`ConfigError` for a broken file or an unknown profile; a missing key
    reference ends up in ``errors`` so ``ohtui info`` can still show everything else.
    """
    given = {k: v for k, v in (flags or {}).items() if v is not None}
    location = config_location(config)
    file: ConfigFileSource | None = None
    try:
        file = ConfigFileSource(Settings, location.path)
    except FileNotFoundError:
        if location.explicit:
            raise ConfigError(
                f"config file not found: {location.path} (from {location.source})"
            ) from None
    exists = file is not None
    file_data = file.data if file is not None else {}
    env = _env_values()
    origins = {name: _origin(name, given, env, file_data) for name in Settings.model_fields}
    try:
        settings = settings_from(file, given)
    except ValidationError as exc:
        raise ConfigError(_validation_message(exc, origins, file)) from None

    resolved = Resolved(location=location, config_exists=exists, settings=settings)

    # Profile: --profile / OHTUI_PROFILE, else default_profile (file or OHTUI_DEFAULT_PROFILE).
    name, name_origin = settings.profile, origins["profile"]
    if not name:
        name, name_origin = settings.default_profile, origins["default_profile"]
        if name_origin == "file":
            name_origin = "file default_profile"
    profile: Profile | None = None
    if name:
        profile = settings.profiles.get(name)
        if profile is None:
            known = ", ".join(sorted(settings.profiles)) or "none defined"
            raise ConfigError(f"no profile '{name}' (from {name_origin}); profiles: {known}")
        resolved.profile = name
        resolved.origins["profile"] = name_origin

    # URL: flag/env beat the profile's.
    if settings.url:
        resolved.url, resolved.origins["url"] = settings.url, origins["url"]
    elif profile is not None and profile.url:
        resolved.url, resolved.origins["url"] = profile.url, f"profile {name}"
    else:
        resolved.origins["url"] = "default"

    # Keys: flag/env beat the profile's references. A profile's keys go only to that
    # profile's URL, never to a URL given by --url/OHTUI_URL.
    same_server = profile is not None and profile.url and resolved.url == profile.url
    base = location.path.parent
    for what in ("api_key", "session_key"):
        direct = getattr(settings, what)
        if direct is not None and direct.get_secret_value():
            setattr(resolved, what, direct)
            resolved.origins[what] = origins[what]
            continue
        resolved.origins[what] = "default"
        if profile is None or not (
            getattr(profile, f"{what}_env") or getattr(profile, f"{what}_file")
        ):
            continue
        if not same_server:
            resolved.warnings.append(
                f"profile '{name}': {what} not used, because the URL "
                + (
                    f"comes from {resolved.origins['url']}"
                    if profile.url
                    else "is not set in the profile"
                )
            )
            continue
        secret, origin = _profile_key(name, profile, what, base, resolved)
        if secret is not None:
            setattr(resolved, what, secret)
            resolved.origins[what] = origin or "profile"

    # Server kind: flag/env beat the profile's, which (like its keys) is about its own URL.
    if settings.server_kind:
        resolved.server_kind = settings.server_kind
        resolved.origins["server_kind"] = origins["server_kind"]
    elif same_server and profile.server_kind:
        resolved.server_kind, resolved.origins["server_kind"] = (
            profile.server_kind,
            f"profile {name}",
        )
    else:
        resolved.origins["server_kind"] = "default"

    # Agent settings (a bare agent server's new conversations): the profile's for its URL,
    # else the top-level setting.
    settings_file, settings_origin = settings.agent_settings_file, origins["agent_settings_file"]
    if same_server and profile.agent_settings_file:
        settings_file, settings_origin = profile.agent_settings_file, f"profile {name}"
    resolved.origins["agent_settings_file"] = settings_origin if settings_file else "default"
    if settings_file:
        from .agent_settings import AgentSettingsError, load_agent_settings

        try:
            resolved.agent_settings = load_agent_settings(settings_file, base)
        except AgentSettingsError as exc:
            resolved.errors.append(f"agent_settings_file ({settings_origin}): {exc}")

    resolved.theme, resolved.origins["theme"] = settings.theme, origins["theme"]
    resolved.readonly, resolved.origins["readonly"] = settings.readonly, origins["readonly"]
    resolved.keymap, resolved.origins["keymap"] = dict(settings.keymap), origins["keymap"]
    return resolved


def print_warnings(resolved: Resolved, stream: Any = None) -> None:
    for warning in resolved.warnings:
        say(f"ohtui: warning: {resolved.scrub(warning)}", file=stream or sys.stderr)
