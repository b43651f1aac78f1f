"""User settings: a TOML file, ``OHTUI_*`` environment variables and command-line flags.

Precedence, lowest first: defaults < the config file < ``OHTUI_*`` environment < flags.
The merge is pydantic-settings' own (init kwargs = flags, then the env source, then the file
as the last source); :func:`load` adds what pydantic-settings does not know about: which
profile is active, key *references* resolved to keys, and where every value came from.

Keys are never stored in the config file. A profile names an environment variable
(``api_key_env``) or a file (``api_key_file``, expected to be mode 600) that holds the key.
Resolved keys are ``SecretStr``: ``repr`` of any object here shows ``**********``, error
messages name the variable or file, never the value.

Imported lazily by the CLI (pydantic-settings is not on the ``--version`` path).
"""

from __future__ import annotations

import os
import stat
import sys
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    SecretStr,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_settings import (
    BaseSettings,
    EnvSettingsSource,
    InitSettingsSource,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    SettingsError,
)

from .paths import CONFIG_ENV, ConfigLocation, all_paths, config_location

ENV_PREFIX = "OHTUI_"
#: Top-level keys the config file may hold.
FILE_KEYS = (
    "default_profile",
    "theme",
    "readonly",
    "keymap",
    "profiles",
    "notify",
    "notify_bell",
    "notify_desktop",
)
#: Settings that are secrets: accepted from flags and the environment only.
SECRET_FIELDS = ("api_key", "session_key")
#: Flag spelling of each setting, for messages and ``ohtui info``.
FLAGS = {
    "url": "--url",
    "api_key": "--api-key",
    "session_key": "--session-key",
    "theme": "--theme",
    "readonly": "--readonly",
    "profile": "--profile",
}
MAX_KEY_FILE_BYTES = 64 * 1024


class ConfigError(Exception):
    """A config problem the user must fix. The message never contains a key."""


# --- schema ---------------------------------------------------------------------------------


class Profile(BaseModel):
    """``[profiles.<name>]``: one service and where its keys are kept (never the keys)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    url: str | None = None
    """Base URL of the service."""
    api_key_env: str | None = None
    """Name of an environment variable holding the cloud API key (``Authorization: Bearer``)."""
    api_key_file: str | None = None
    """File holding the cloud API key; ``~`` is expanded, relative paths are beside the config."""
    session_key_env: str | None = None
    """Name of an environment variable holding the self-hosted ``X-Session-API-Key``."""
    session_key_file: str | None = None
    """File holding the session key."""

    @model_validator(mode="after")
    def _one_reference_per_key(self) -> Profile:
        for key in ("api_key", "session_key"):
            if getattr(self, f"{key}_env") and getattr(self, f"{key}_file"):
                raise ValueError(f"set {key}_env or {key}_file, not both")
        return self


def _keys_text(value: Any) -> Any:
    """Keymap values: ``"j,down"`` or ``["j", "down"]``, stored as Textual's comma string."""
    if isinstance(value, (list, tuple)):
        if not all(isinstance(k, str) for k in value):
            raise ValueError("keys must be strings")
        value = ",".join(value)
    if isinstance(value, str):
        keys = [k.strip() for k in value.split(",")]
        if not all(keys):
            raise ValueError("empty key in the list")
        return ",".join(keys)
    return value


class Settings(BaseSettings):
    """Every setting, merged from flags, ``OHTUI_*`` variables and the config file."""

    model_config = SettingsConfigDict(env_prefix=ENV_PREFIX, extra="forbid", env_ignore_empty=True)

    default_profile: str | None = None
    """Profile used when neither ``--profile`` nor ``OHTUI_PROFILE`` picks one."""
    profile: str | None = None
    """Profile picked for this run (``--profile``, ``OHTUI_PROFILE``)."""
    theme: str | None = None
    """``ohtui-dark``, ``ohtui-light`` or any Textual theme."""
    readonly: bool = False
    """Disable every mutating action."""
    url: str | None = None
    """Service URL (``--url``, ``OHTUI_URL``); overrides the profile's."""
    api_key: SecretStr | None = None
    """Cloud API key (``--api-key``, ``OHTUI_API_KEY``); never from the file."""
    session_key: SecretStr | None = None
    """Self-hosted session key (``--session-key``, ``OHTUI_SESSION_KEY``); never from the file."""
    keymap: dict[str, str] = {}
    """Binding id → comma-separated keys, applied with ``App.set_keymap``."""
    notify: list[str] = ["finished", "error", "stuck", "waiting_for_confirmation"]
    """Agent statuses that raise a notification when a watched conversation reaches them."""
    notify_bell: bool = True
    """Ring the terminal bell with those notifications."""
    notify_desktop: bool = False
    """Also send a desktop notification (``notify-send``) where one is available."""
    profiles: dict[str, Profile] = {}
    """Named services."""

    @field_validator("keymap", mode="before")
    @classmethod
    def _keymap(cls, value: Any) -> Any:
        if isinstance(value, Mapping):
            return {k: _keys_text(v) for k, v in value.items()}
        return value

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        # Highest first: flags (init kwargs), then the environment. No .env, no secrets dir.
        return (init_settings, env_settings)


def _settings_class(file_data: dict[str, Any]) -> type[Settings]:
    """``Settings`` with the config file's data as the lowest-priority source."""

    class _FileSettings(Settings):
        @classmethod
        def settings_customise_sources(
            cls,
            settings_cls: type[BaseSettings],
            init_settings: PydanticBaseSettingsSource,
            env_settings: PydanticBaseSettingsSource,
            dotenv_settings: PydanticBaseSettingsSource,
            file_secret_settings: PydanticBaseSettingsSource,
        ) -> tuple[PydanticBaseSettingsSource, ...]:
            return (
                init_settings,
                env_settings,
                InitSettingsSource(settings_cls, init_kwargs=file_data),
            )

    _FileSettings.__name__ = _FileSettings.__qualname__ = "Settings"
    return _FileSettings


# --- the config file ------------------------------------------------------------------------


def read_config_file(path: Path) -> dict[str, Any]:
    """Parse the TOML file and check its top-level keys (values are checked by the model)."""
    try:
        raw = path.read_bytes()
    except IsADirectoryError:
        raise ConfigError(f"{path}: is a directory, not a config file") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read ({exc.strerror})") from None
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    for key in data:
        if key in SECRET_FIELDS or key.endswith("_key"):
            raise ConfigError(
                f"{path}: '{key}' does not belong in the config file; keys are given by reference, "
                f'e.g. api_key_env = "VAR" or api_key_file = "PATH" in a [profiles.<name>] table'
            )
        if key not in FILE_KEYS:
            raise ConfigError(f"{path}: unknown setting '{key}' (known: {', '.join(FILE_KEYS)})")
    return data


# --- resolution -----------------------------------------------------------------------------


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
    keymap: dict[str, str] = field(default_factory=dict)
    #: setting name → where its value came from ("flag --url", "env OHTUI_URL", "file", …)
    origins: dict[str, str] = field(default_factory=dict)
    #: things to tell the user that do not stop ohtui (loose key-file modes, unused keys)
    warnings: list[str] = field(default_factory=list)
    #: problems that stop ohtui from connecting (a referenced key that is missing)
    errors: list[str] = field(default_factory=list)

    @property
    def config_path(self) -> Path:
        return self.location.path

    def secrets(self) -> list[str]:
        """Every key value known to this run (flags, env, profile references)."""
        values = [self.api_key, self.session_key, self.settings.api_key, self.settings.session_key]
        return [v.get_secret_value() for v in values if v is not None and v.get_secret_value()]

    def scrub(self, text: str) -> str:
        """``text`` with every known key value replaced by ``‹redacted›`` (for error output)."""
        for secret in sorted(set(self.secrets()), key=len, reverse=True):
            text = text.replace(secret, "‹redacted›")
        return text

    def key(self, name: str) -> str | None:
        """The plain value of ``api_key`` or ``session_key``, for the HTTP client only."""
        value = getattr(self, name)
        return value.get_secret_value() if value is not None else None


def _validation_message(exc: ValidationError, where: dict[str, str]) -> str:
    lines = []
    for err in exc.errors(include_url=False, include_input=False, include_context=False):
        loc = [str(p) for p in err["loc"]]
        head = loc[0] if loc else "?"
        source = where.get(head, "config file")
        lines.append(f"{'.'.join(loc) or '(settings)'} ({source}): {err['msg']}")
    return "invalid settings:\n  " + "\n  ".join(lines)


def _env_values() -> dict[str, Any]:
    try:
        return EnvSettingsSource(Settings)()
    except SettingsError as exc:
        # The message names the field and the source, not the value.
        raise ConfigError(f"environment: {exc}") from None


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
        info = path.stat()
        if not stat.S_ISREG(info.st_mode):
            resolved.errors.append(f"{where} is not a regular file")
            return None
        if info.st_size > MAX_KEY_FILE_BYTES:
            resolved.errors.append(f"{where} is too large to be a key file")
            return None
        text = path.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        resolved.errors.append(f"{where} does not exist")
        return None
    except (OSError, UnicodeDecodeError) as exc:
        reason = getattr(exc, "strerror", None) or "not UTF-8 text"
        resolved.errors.append(f"{where} cannot be read ({reason})")
        return None
    if os.name == "posix" and info.st_mode & 0o077:
        resolved.warnings.append(
            f"{where} is readable by others (mode {stat.S_IMODE(info.st_mode):03o}); "
            f"run: chmod 600 {path}"
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
    ``readonly``, ``profile``); ``None`` means "not given". ``config`` is ``--config``.
    Raises :class:`ConfigError` for a broken file or an unknown profile; a missing key
    reference ends up in ``errors`` so ``ohtui info`` can still show everything else.
    """
    given = {k: v for k, v in (flags or {}).items() if v is not None}
    location = config_location(config)
    exists = location.path.exists()
    if exists:
        file_data = read_config_file(location.path)
    elif location.explicit:
        raise ConfigError(f"config file not found: {location.path} (from {location.source})")
    else:
        file_data = {}
    env = _env_values()
    fields = list(Settings.model_fields)
    origins = {name: _origin(name, given, env, file_data) for name in fields}
    where = {
        name: f"file {location.path}" if origin == "file" else origin
        for name, origin in origins.items()
    }
    try:
        settings = _settings_class(file_data)(**given)
    except ValidationError as exc:
        raise ConfigError(_validation_message(exc, where)) from None

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

    resolved.theme, resolved.origins["theme"] = settings.theme, origins["theme"]
    resolved.readonly, resolved.origins["readonly"] = settings.readonly, origins["readonly"]
    resolved.keymap, resolved.origins["keymap"] = dict(settings.keymap), origins["keymap"]
    return resolved


# --- ohtui info -----------------------------------------------------------------------------


def _mask_url(url: str) -> str:
    """A URL fit to print: password and token query parameters hidden."""
    from urllib.parse import urlsplit, urlunsplit

    try:
        parts = urlsplit(url)
        if parts.password:
            host = parts.hostname or ""
            if parts.port:
                host = f"{host}:{parts.port}"
            parts = parts._replace(netloc=f"{parts.username or ''}:****@{host}")
        url = urlunsplit(parts)
    except ValueError:
        pass
    from tui.models.redact import mask_url

    return mask_url(url)


def _dir_line(label: str, path: Path) -> str:
    state = "" if path.exists() else "  (not created yet)"
    return f"  {label:<13}{path}{state}"


def describe(resolved: Resolved | None, location: ConfigLocation, error: str | None = None) -> str:
    """The text of ``ohtui info``: every path, the active profile and each setting's origin.

    Keys appear only as ``set``/``not set``.
    """
    from tui import __version__

    lines = [f"ohtui {__version__}", "", "paths"]
    exists = location.path.exists()
    suffix = "" if exists else "  (not found)"
    lines.append(f"  {'config file':<13}{location.path}{suffix}  [{location.source}]")
    for label, path in all_paths().items():
        lines.append(_dir_line(label, path))
    if error is not None:
        lines += ["", "config error", *(f"  {line}" for line in error.splitlines())]
        return "\n".join(lines) + "\n"
    assert resolved is not None
    s = resolved.settings
    origins = resolved.origins
    lines += ["", "connection"]
    profile = resolved.profile or "none"
    lines.append(
        f"  {'profile':<13}{profile}" + (f"  [{origins['profile']}]" if resolved.profile else "")
    )
    url = _mask_url(resolved.url) if resolved.url else "bundled demo server"
    lines.append(f"  {'url':<13}{url}  [{origins['url']}]")
    for what, label in (("api_key", "api key"), ("session_key", "session key")):
        state = "set" if getattr(resolved, what) is not None else "not set"
        origin = origins.get(what, "default")
        lines.append(f"  {label:<13}{state}" + (f"  [{origin}]" if state == "set" else ""))
    lines += ["", "interface"]
    lines.append(f"  {'theme':<13}{resolved.theme or 'ohtui-dark'}  [{origins['theme']}]")
    lines.append(
        f"  {'readonly':<13}{'yes' if resolved.readonly else 'no'}  [{origins['readonly']}]"
    )
    if resolved.keymap:
        lines.append(f"  {'keymap':<13}{len(resolved.keymap)} binding(s)  [{origins['keymap']}]")
        for binding_id, keys in sorted(resolved.keymap.items()):
            lines.append(f"    {binding_id} = {keys}")
    else:
        lines.append(f"  {'keymap':<13}defaults")
    if s.profiles:
        lines += ["", "profiles"]
        for pname, p in sorted(s.profiles.items()):
            refs = []
            for what in ("api_key", "session_key"):
                if getattr(p, f"{what}_env"):
                    refs.append(f"{what} from env {getattr(p, f'{what}_env')}")
                elif getattr(p, f"{what}_file"):
                    refs.append(f"{what} from file {getattr(p, f'{what}_file')}")
            mark = "*" if pname == resolved.profile else " "
            where = _mask_url(p.url) if p.url else "(no url)"
            lines.append(f" {mark}{pname:<13}{where}" + (f"  ({'; '.join(refs)})" if refs else ""))
    if resolved.warnings or resolved.errors:
        lines += ["", "problems"]
        lines += [f"  warning: {w}" for w in resolved.warnings]
        lines += [f"  error: {e}" for e in resolved.errors]
    lines += [
        "",
        f"precedence: config file < {ENV_PREFIX}* environment < flags  ({CONFIG_ENV} or --config moves the file)",
    ]
    return resolved.scrub("\n".join(lines) + "\n")


# --- ohtui config init ----------------------------------------------------------------------

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

# [profiles.local]                  # a self-hosted server: `ohtui --profile local`
# url = "http://127.0.0.1:8000"
# session_key_env = "OHTUI_LOCAL_SESSION_KEY"   # the variable's name, not the key

# [profiles.cloud]
# url = "https://app.all-hands.dev"
# api_key_file = "cloud.key"        # beside this file; keep it private: chmod 600 cloud.key

# [keymap]                          # binding id = comma-separated keys (see the README)
# "list.down" = "j,down,ctrl+n"
# "app.sandboxes" = "2,f2"
"""


def write_template(path: Path, *, force: bool = False) -> Path:
    """Write :data:`TEMPLATE` to ``path`` with mode 600; refuses to overwrite unless ``force``."""
    if path.exists() and not force:
        raise ConfigError(f"{path} already exists (use --force to replace it)")
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            if hasattr(os, "fchmod"):
                os.fchmod(out.fileno(), 0o600)
            out.write(TEMPLATE)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return path


def print_warnings(resolved: Resolved, stream: Any = None) -> None:
    for warning in resolved.warnings:
        print(f"ohtui: warning: {resolved.scrub(warning)}", file=stream or sys.stderr)
