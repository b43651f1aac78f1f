"""LLM profiles as the agent server 1.58.2 lists and checks them (``/api/profiles``).

Closed, with the real server's fields (``ProfileInfo``, ``ProfileListResponse``,
``ValidateProfileResponse`` of its OpenAPI): a profile's key is never in them, only whether
one is set (``api_key_set``). ``max_profiles`` is the one field the real server does not send
(it says its limit only in the error at the limit): the reference server sends it.
"""

from __future__ import annotations

import re

from pydantic import Field

from .base import ClosedModel

#: a profile's name as the real server accepts it (path and ``new_name`` pattern)
PROFILE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
#: the real server's words at its limit: ``Profile limit reached (50). Delete a profile …``
LIMIT_WORDS = re.compile(r"Profile limit reached \((\d+)\)")


class LLMProfile(ClosedModel):
    name: str
    model: str | None = None
    base_url: str | None = None
    provider_connection_id: str | None = None
    provider_connection_broken: bool = False
    api_key_set: bool = False


class LLMProfileList(ClosedModel):
    profiles: list[LLMProfile] = Field(default_factory=list)
    active_profile: str | None = None
    #: how many the server keeps at most, where it says so (the reference server)
    max_profiles: int | None = None


class ProfileCheckError(ClosedModel):
    type: str
    message: str


class ProfileCheck(ClosedModel):
    """The pre-flight's answer: ``valid``, and why not (the server's words, key-free)."""

    valid: bool
    error: ProfileCheckError | None = None


def limit_from_words(text: str) -> int | None:
    """The limit the real server names in its refusal at the limit, if it does."""
    found = LIMIT_WORDS.search(text or "")
    return int(found.group(1)) if found else None


def valid_profile_name(name: str) -> bool:
    return bool(PROFILE_NAME.match(name or ""))


__all__ = [
    "LLMProfile",
    "LLMProfileList",
    "ProfileCheck",
    "ProfileCheckError",
    "limit_from_words",
    "valid_profile_name",
]
