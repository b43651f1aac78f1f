"""The one secrets policy: what is masked on screen, in copies, in exports and in logs.

Two entry points, both linear in their input and safe on any depth:

* :func:`redact` — JSON-like structures. A value is masked when its key names a secret
  (:func:`is_secret_key`: token, secret, password, passwd, passphrase, api_key/apikey,
  authorization, credential, private_key, session_key, encrypted_content, cookie, Azure's
  account/access keys and signatures; any case, ``-``/``_``/no separator), when it is the ``value`` of a ``{"key"|"name": <secret name>, "value": …}``
  pair (state updates, env lists), and every string is also run through :func:`redact_text`.
  Thinking blocks' opaque blobs (a ``thinking`` block's ``signature``, a
  ``redacted_thinking`` block's ``data``) become their size: ``‹signature: 324 bytes›``.
* :func:`redact_text` — free text: ``Authorization:``/``X-…-Key:`` headers and
  ``name=value``/``"name": "value"`` assignments whose name is a secret (Azure's
  ``AccountKey=``/``SharedAccessKey=``/``SharedAccessSignature=`` too), ``Bearer …``,
  passwords and secret query parameters in URLs, the secret part of Slack and Discord
  webhook URLs, ``-----BEGIN … PRIVATE KEY-----`` blocks, well-known token shapes
  (``sk-…``, ``ghp_…``/``gho_…``…, ``github_pat_…``, ``xox?-…``/``xapp-…``, Stripe's
  ``sk_live_…``/``rk_live_…``/``whsec_…``, ``AKIA…``/``ASIA…``, JWTs), and what
  :mod:`.redact_lines` finds: ``Cookie:`` values, passwords on command lines
  (``mysql -pPASS``, ``sshpass -p``, ``--password PASS``…), SAS ``sig=`` and AWS secret keys
  beside a key id.

Numbers, booleans, null and empty strings are never masked: under these names they are
counts and flags (``prompt_tokens``, ``api_key_set``), not secrets. Names that only describe
a secret (``secret_name``, ``token_usage``, ``tokenizer``, ``api_key_env_var``,
``cookie_name``, ``SharedAccessKeyName``…) are not secret. In URLs the mask is ``****`` (the
URL stays readable); elsewhere :data:`MASK`.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from tui.text import MASK_MARGIN

from .redact_lines import TRIGGERS as LINES_TRIGGERS
from .redact_lines import aws_secret_spans, line_spans

MASK = "‹redacted›"
URL_MASK = "****"

_WORDS = (
    "token",
    "secret",
    "password",
    "passwd",
    "apikey",
    "authorization",
    "authorisation",
    "credential",
    "privatekey",
    "sessionkey",
    "encryptedcontent",
    "passphrase",
    "cookie",
    "accountkey",
    "accesskey",
    "accesssignature",
)
#: What may follow a secret word in a name that only describes the secret.
_ABOUT = frozenset(
    {
        "usage",
        "usages",
        "id",
        "ids",
        "details",
        "name",
        "names",
        "envvar",
        "set",
        "isset",
        "expiresat",
        "expiry",
        "izer",
        "izername",
        "count",
        "limit",
        "url",
        "type",
        "source",
        "sources",
        "ref",
        "refs",
    }
)
#: Query parameters that carry a credential although no secret word is in their name.
_URL_PARAMS = frozenset({"tkn", "key", "sig", "signature", "code", "auth"})
_SEPARATORS = str.maketrans("", "", "-_ .")


def _secret_name(normalised: str) -> bool:
    for word in _WORDS:
        at = normalised.find(word)
        while at >= 0:
            if normalised[at + len(word) :] not in _ABOUT:
                return True
            at = normalised.find(word, at + 1)
    return False


@lru_cache(maxsize=8192)
def _is_secret_name(name: str) -> bool:
    return _secret_name(name.lower().translate(_SEPARATORS))


def is_secret_key(name: str) -> bool:
    """Does a key, header or variable called ``name`` hold a secret?"""
    if type(name) is not str or not name:
        return False
    return _is_secret_name(name[:200])


# --- free text --------------------------------------------------------------------------------

#: Where a secret's name starts, as found in the lower-cased text (C-speed ``str.find``).
_WORD_LITERALS = (
    "token",
    "secret",
    "passw",
    "api_key",
    "api-key",
    "apikey",
    "authori",
    "credential",
    "private_key",
    "private-key",
    "privatekey",
    "session_key",
    "session-key",
    "sessionkey",
    "encrypted_content",
    "encrypted-content",
    "encryptedcontent",
    "passphrase",
    "accountkey",
    "accesskey",
    "access_key",
    "access-key",
    "accesssignature",
)
# Token shapes, one expression each so that each starts with a literal (the regex engine
# then skips to it at C speed); the look-behind after the literal keeps ``task-…`` or
# ``xsk-…`` from matching. Group 1 is the prefix that stays visible.
_SHAPES = tuple(
    (literal, re.compile(pattern))
    for literal, pattern in (
        ("sk-", r"(sk-)(?<![\w-]sk-)(?=[\w-]{0,200}\d)[A-Za-z0-9_-]{16,}"),
        ("gh", r"(gh[pousr]_)(?<![\w-]gh._)[A-Za-z0-9]{20,}"),
        ("github_pat_", r"(github_pat_)(?<![\w-]github_pat_)[A-Za-z0-9_]{20,}"),
        ("xox", r"(xox[abposre]-)(?<![\w-]xox.-)[A-Za-z0-9-]{10,}"),
        ("xapp-", r"(xapp-)(?<![\w-]xapp-)[A-Za-z0-9-]{10,}"),
        # Stripe secret and restricted keys (``pk_…`` keys are publishable: not secret)
        ("sk_", r"(sk_(?:live|test)_)(?<![\w-]sk_(?:live|test)_)[A-Za-z0-9]{10,}"),
        ("rk_", r"(rk_(?:live|test)_)(?<![\w-]rk_(?:live|test)_)[A-Za-z0-9]{10,}"),
        ("whsec_", r"(whsec_)(?<![\w-]whsec_)[A-Za-z0-9+/=]{16,}"),
        ("AKIA", r"(AKIA)(?<![A-Za-z0-9]AKIA)[A-Z0-9]{16}(?![A-Za-z0-9])"),
        ("ASIA", r"(ASIA)(?<![A-Za-z0-9]ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])"),
        ("eyJ", r"(eyJ)(?<![\w-]eyJ)[\w-]{8,}\.eyJ[\w-]{8,}\.[\w-]{8,}"),
    )
)
#: Every trigger of the rules below (lower case), for a one-search answer on short strings.
_TRIGGERS = (
    *("token", "secret", "pass", "api.?key", "authori", "credential", "private", "bearer"),
    *("session.?key", "encrypted", "account.?key", "access.?key", "accesssig", "akia", "asia"),
    *("sk-", "gh[pousr]_", "github_pat_", "xox", "xapp-", "sk_", "rk_", "whsec_", "eyj", "://"),
    *LINES_TRIGGERS,
)


def _by_first_character(patterns: tuple[str, ...]) -> str:
    """``a(?:pi.?key|kia)|b(?:earer)…``: one alternative per first character. The regex
    engine then tries one small group where a flat alternation tries every word (each search
    of an ordinary line was twice as slow)."""
    groups: dict[str, list[str]] = {}
    for pattern in patterns:
        groups.setdefault(pattern[0], []).append(pattern[1:])
    return "|".join(f"{re.escape(first)}(?:{'|'.join(rest)})" for first, rest in groups.items())


_GATE = re.compile(_by_first_character(_TRIGGERS))
_BEARER = re.compile(r"bearer[ \t]+([A-Za-z0-9._~+/=-]{12,})", re.IGNORECASE)
_KEY_REST = re.compile(r"[\w.-]{0,60}")
# a quote may be escaped, once or more (JSON inside a JSON string: \"name\": \"value\")
_ASSIGN = re.compile(r"""(?:\\*["'])?[ \t]*[:=][ \t]*(\\*["']?)""")
_VALUE = re.compile(r"""[^\s"'\\,;&<>{}\[\]()]{1,4096}""")
_BLANKS = re.compile(r"[ \t]+")
_SCHEMES = frozenset({"bearer", "basic", "token", "digest", "negotiate"})
_NOT_SECRET = frozenset({"null", "none", "true", "false", "undefined"})
_MASKED = (MASK, URL_MASK)
_URL = re.compile(r"""://[^\s"'<>`\\]{1,8192}""")
_URL_PASSWORD = re.compile(r"^(://[^/?#@:\s]{0,256}:)([^/?#@\s]{1,256})(@)")
_URL_PARAM = re.compile(r"([?&;])([^=&#;]{1,80})=([^&#;]*)")
_PEM = re.compile(r"-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY-----")
#: Webhook URLs whose last path segment is the secret (Slack, Discord); the ids before it stay.
_WEBHOOK = re.compile(
    r"^(://(?:hooks\.slack\.com/(?:services|workflows|triggers)"
    r"|(?:[\w-]+\.)?discord(?:app)?\.com/api/webhooks)(?:/[^/?#\s]+)*?/)"
    r"([^/?#\s]+)(?=/?(?:[?#]|$))",
    re.IGNORECASE,
)


def _shape(match: re.Match[str]) -> str:
    return match.group(1) + MASK


def _url(match: re.Match[str]) -> str:
    url = _URL_PASSWORD.sub(lambda m: m.group(1) + URL_MASK + m.group(3), match.group())
    if "hooks" in url.lower():
        url = _WEBHOOK.sub(lambda m: m.group(1) + URL_MASK, url)
    if "=" not in url:
        return url

    def param(m: re.Match[str]) -> str:
        name = m.group(2)
        if m.group(3) and (is_secret_key(name) or name.lower() in _URL_PARAMS):
            return f"{m.group(1)}{name}={URL_MASK}"
        return m.group()

    return _URL_PARAM.sub(param, url)


def _value_span(text: str, name_end: int) -> tuple[int, int] | None:
    """The value of ``<name>: value`` / ``<name>=value`` whose name ends at ``name_end``."""
    assign = _ASSIGN.match(text, name_end)
    if assign is None:
        return None
    value = _VALUE.match(text, assign.end())
    if value is None:
        return None
    shown = value.group()
    if shown.lower() in _SCHEMES and not assign.group(1):  # "Authorization: Bearer abc"
        blanks = _BLANKS.match(text, value.end())
        after = _VALUE.match(text, blanks.end()) if blanks else None
        if after is not None:
            value, shown = after, after.group()
    if shown.lower() in _NOT_SECRET or _is_number(shown) or shown.startswith(_MASKED):
        return None
    return value.span()


def _assignments(text: str, low: str) -> list[tuple[int, int]]:
    """Spans of the values in ``name: value`` / ``name=value`` whose name is a secret
    (unsorted). Each search resumes after the name it found, so repeats cost linear time."""
    spans: list[tuple[int, int]] = []
    for word in _WORD_LITERALS:
        at = low.find(word)
        while at >= 0:
            end = _KEY_REST.match(text, at + len(word)).end()
            span = _value_span(text, end) if is_secret_key(text[at:end]) else None
            if span is not None:
                spans.append(span)
                end = span[1]
            at = low.find(word, end)
    at = low.find("bearer")
    while at >= 0:
        match = _BEARER.match(text, at)
        if match is not None:
            spans.append(match.span(1))
        at = low.find("bearer", match.end() if match is not None else at + 6)
    return spans


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    spans.sort()
    out: list[tuple[int, int]] = []
    for start, end in spans:
        if out and start < out[-1][1]:
            if end > out[-1][1]:
                out[-1] = (out[-1][0], end)
            continue
        out.append((start, end))
    return out


def _is_number(text: str) -> bool:
    return text.replace(".", "", 1).lstrip("-+").isdigit()


def _pem_spans(text: str) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    for match in _PEM.finditer(text):
        if spans and match.start() < spans[-1][1]:
            continue
        end = text.find("-----END", match.end(), match.end() + 65_536)
        spans.append((match.end(), end if end >= 0 else min(len(text), match.end() + 65_536)))
    return spans


def redact_text(text: str) -> str:
    """``text`` with every secret the policy recognises masked (see the module's docstring).
    Linear: a fixed number of C-speed substring searches, then work only where they hit."""
    if type(text) is not str or len(text) < 8:
        return text
    if len(text) < 4096 and _GATE.search(text.lower()) is None:  # most strings: one search
        return text
    if "PRIVATE KEY-----" in text:
        text = _cut_spans(text, _pem_spans(text))
    if "://" in text:
        text = _URL.sub(_url, text)
    low = text.lower()
    if len(low) != len(text):  # a few characters lower-case to two: keep offsets exact
        low = text.translate(_ASCII_LOWER)
    spans = _assignments(text, low) + line_spans(text, low) + aws_secret_spans(text, low)
    text = _cut_spans(text, _merged(spans))
    for literal, pattern in _SHAPES:
        if literal in text:
            text = pattern.sub(_shape, text)
    return text


_ASCII_LOWER = {c: c + 32 for c in range(ord("A"), ord("Z") + 1)}


def _cut_spans(text: str, spans: list[tuple[int, int]]) -> str:
    if not spans:
        return text
    out, pos = [], 0
    for start, end in spans:
        out.append(text[pos:start])
        out.append(MASK)
        pos = end
    out.append(text[pos:])
    return "".join(out)


def mask_url(url: str) -> str:
    """Hide credentials carried in a URL (password, secret query parameters)."""
    return redact_text(url)


# --- structures -------------------------------------------------------------------------------


def _pair_value_is_secret(obj: dict) -> bool:
    """``{"key": "api_key", "value": …}`` / ``{"name": "GITHUB_TOKEN", "value": …}``."""
    if "value" not in obj:
        return False
    for field in ("key", "name"):
        named = obj.get(field)
        if isinstance(named, str) and is_secret_key(named):
            return True
    return False


def _copy(value: Any, secret: bool, stack: list, cut: tuple[int, int] | None = None) -> Any:
    kind = type(value)
    if kind is str:
        if secret:
            return MASK if value else value
        if cut is not None and len(value) > cut[0]:
            return cut_masked(value, cut[1])
        return redact_text(value)
    if kind is dict:
        out: Any = {}
        stack.append((value, out, secret))
        return out
    if kind is list or kind is tuple:
        out = []
        stack.append((value, out, secret))
        return out
    return value  # numbers, booleans, None, JsonNumber, enums: never secret


def cut_masked(text: str, head: int) -> str:
    """The first ``head`` characters of ``text``, secrets masked (looked for a margin past
    the cut, so a secret the cut runs through is masked whole), and how many more there are."""
    shown = redact_text(text[: head + MASK_MARGIN])[:head]
    return f"{shown}… ({len(text) - head:,} more characters)"


_OPAQUE = {
    "thinking": ("signature", "signature"),
    "redacted_thinking": ("data", "redacted thinking"),
}


def opaque(what: str, blob: str | None) -> str:
    """``redacted thinking: 1,021 bytes``: what an opaque blob is, and its size, never it."""
    size = len(blob.encode("utf-8", "surrogatepass")) if type(blob) is str else 0
    return f"{what}: {size:,} bytes"


def redact(value: Any, *, cut: tuple[int, int] | None = None) -> Any:
    """A copy of JSON-like data with every secret masked (iterative: any depth is fine).

    ``cut`` (``(over, head)``): a string longer than ``over`` characters comes back as its
    first ``head`` and how many more there are (:func:`cut_masked`), for a view that shows
    a line of each: masking all of a 20 MB output to show one line of it took most of a
    second. An opaque blob's size is still that of the whole blob."""
    stack: list[tuple[Any, Any, bool]] = []
    root = _copy(value, False, stack, cut)
    while stack:
        source, target, secret = stack.pop()
        if type(source) is dict:
            pair = not secret and _pair_value_is_secret(source)
            kind = source.get("type")
            blob = _OPAQUE.get(kind) if type(kind) is str else None
            for key, item in source.items():
                name = redact_text(key) if type(key) is str else key
                blob_field = blob is not None and key == blob[0]
                if blob_field and type(item) is str:
                    target[name] = f"‹{opaque(blob[1], item)}›"
                    continue
                hidden = secret or blob_field or (pair and key == "value") or is_secret_key(key)
                target[name] = _copy(item, hidden, stack, cut)
        else:
            target.extend(_copy(item, secret, stack, cut) for item in source)
    return root
