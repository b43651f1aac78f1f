"""The settings schema: every setting, the ``[profiles.<name>]`` table, and the order in
which pydantic-settings merges its sources (flags, then ``OHTUI_*``, then the config file).

The config file is pydantic-settings' own TOML source (:class:`~.config_file.ConfigFileSource`):
:func:`settings_from` hands the one built for this run to ``settings_customise_sources``
through a context variable, so there is one ``Settings`` class whatever file is read.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from .board import BoardSettings
from .urls import check_url

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
    "board",
    "agent_settings_file",
    "search_index_mb",
)
#: Settings that are secrets: accepted from flags and the environment only.
SECRET_FIELDS = ("api_key", "session_key")
#: What ``--server-kind`` / ``OHTUI_SERVER_KIND`` / a profile's ``server_kind`` accept.
SERVER_KINDS = ("auto", "app", "agent", "shared")
ServerKindName = Literal["auto", "app", "agent", "shared"]
#: Flag spelling of each setting, for messages and ``ohtui info``.
FLAGS = {
    "url": "--url",
    "api_key": "--api-key",
    "session_key": "--session-key",
    "theme": "--theme",
    "readonly": "--readonly",
    "profile": "--profile",
    "server_kind": "--server-kind",
}


def _url(value: Any) -> Any:
    return check_url(value) if isinstance(value, str) else value


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
    server_kind: ServerKindName | None = None
    """What the server is (``app``, ``agent``, ``shared``), when detection should be skipped."""
    agent_settings_file: str | None = None
    """JSON file with the agent a bare agent server starts new conversations with
    (``agent_settings.py``: keys by reference only); relative paths are beside the config."""

    @field_validator("url")
    @classmethod
    def _check_url(cls, value: Any) -> Any:
        return _url(value)

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


#: The config file's source for the ``Settings`` being built now (see :func:`settings_from`).
_file_source: ContextVar[PydanticBaseSettingsSource | None] = ContextVar(
    "ohtui_config_file_source", default=None
)


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
    server_kind: ServerKindName | None = None
    """``--server-kind``, ``OHTUI_SERVER_KIND``: overrides the profile's; unset means detect."""
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
    agent_settings_file: str | None = None
    """JSON agent settings for new conversations on a bare agent server (any URL without a
    profile of its own; a profile's ``agent_settings_file`` wins for its URL)."""
    search_index_mb: int = Field(default=1024, ge=16, le=1_048_576)
    """The bound of each server's search index in the cache folder (MB): least recently
    used conversations are left out first."""
    profiles: dict[str, Profile] = {}
    """Named services."""
    board: BoardSettings = BoardSettings()
    """``[board]``: the live board of running agents (``config/board.py``)."""

    @field_validator("url")
    @classmethod
    def _check_url(cls, value: Any) -> Any:
        return _url(value)

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
        # Highest first: flags (init kwargs), the environment, then the config file when one
        # is being read. No .env, no secrets dir.
        file = _file_source.get()
        return (
            (init_settings, env_settings) if file is None else (init_settings, env_settings, file)
        )


@contextmanager
def _reading(source: PydanticBaseSettingsSource | None) -> Iterator[None]:
    token = _file_source.set(source)
    try:
        yield
    finally:
        _file_source.reset(token)


def settings_from(file: PydanticBaseSettingsSource | None, flags: Mapping[str, Any]) -> Settings:
    """``Settings`` from ``flags`` (init kwargs), the environment and ``file`` (lowest)."""
    with _reading(file):
        return Settings(**flags)
