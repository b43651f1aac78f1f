"""Secrets that command lines, headers and connection strings carry, for
:func:`tui.models.redact.redact_text` (the one secrets policy): each finder returns the spans
of ``text`` to mask.

* ``Cookie:``/``Set-Cookie:`` header values (and ``"cookie": "…"``, ``--cookie '…'``): the
  whole value to the end of the line or its quote, since one value holds many ``name=value``
  pairs and any may be the session.
* Passwords on command lines, only where the flag is the password form: ``-pPASS`` for the
  MySQL/MariaDB clients (``-p PASS`` with a space asks for the password and names a
  database, and ``-p`` is a port for ``psql``, ``ssh``, ``docker run``…), ``sshpass -p``,
  ``docker|podman|… login -p``, ``redis-cli -a``, ``openssl -pass pass:…``, and
  ``--password``/``--passwd``/``--pass``/``--passphrase`` followed by a value (where the
  MySQL clients take ``--password`` alone as "ask me", the word after it, a database, is
  masked too: hiding a name beats showing a password). A shell variable
  (``-p"$MYSQL_PWD"``) is not a secret and stays.
* ``sig=`` of an Azure shared access signature outside a URL (in a connection string).
* An AWS secret access key — 40 characters of base64 with capitals, small letters and a
  digit or ``/``/``+`` — when the text also names an AWS key id (``AKIA…``/``ASIA…``) or
  says "secret access key": such a key has no prefix of its own to be known by.

Every finder starts from a substring search, so text without its trigger costs one search.
"""

from __future__ import annotations

import re

#: A command-line value: quoted (the quote escaped or not: JSON inside JSON) or one word.
_ARG = r"""\\*'[^'\n]{0,512}?\\*'|\\*"[^"\n]{0,512}?\\*"|[^\s'"\\|;&<>()]{1,512}"""
_SHELL_VARIABLE = re.compile(r"""^\\*["']?\$\{?[A-Za-z_]\w*\}?\\*["']?$""")
#: Where one shell command ends (the flags of another belong to another program).
_COMMAND_END = re.compile(r"[\n;|&)`]")
_SEGMENT_CHARS = 4096

# programs whose password flag sits inside their command, and the flag's pattern there
_MYSQL = re.compile(r"(?<![\w.-])(?:mysql|mariadb)(?![\w-]*config)[\w-]*(?=[ \t])")
_MYSQL_FLAG = re.compile(rf"(?<=[ \t])-p({_ARG})")
_LOGIN = re.compile(
    r"(?<![\w.-])(?:docker|podman|buildah|skopeo|oras|nerdctl|crane|helm[ \t]+registry)"
    r"[ \t]+login(?=[ \t])"
)
_LOGIN_FLAG = re.compile(rf"(?<=[ \t])-p(?:[ \t]+(?!-)|(?=\S))({_ARG})")
_REDIS = re.compile(r"(?<![\w.-])redis-cli(?=[ \t])")
_REDIS_FLAG = re.compile(rf"(?<=[ \t])-a(?:[ \t]+(?!-)|(?=\S))({_ARG})")
_COMMANDS = (
    (("mysql", "mariadb"), _MYSQL, _MYSQL_FLAG),
    (("login",), _LOGIN, _LOGIN_FLAG),
    (("redis-cli",), _REDIS, _REDIS_FLAG),
)
# flags that carry the password wherever they stand
_FLAGS = (
    ("sshpass", re.compile(rf"(?<![\w.-])sshpass[ \t]+(?:-[ev][ \t]+)*-p[ \t]*({_ARG})")),
    ("--pass", re.compile(rf"(?<![\w-])--pass(?:word|wd|phrase)?[ \t]+(?!-)({_ARG})")),
    ("pass:", re.compile(rf"(?<=[ \t])-pass(?:in|out)?[ \t]+pass:({_ARG})")),
)

_COOKIE = re.compile(
    r"""(?<![a-z])(?:set-)?cookie(?:\\*["'])?[ \t]*[:=][ \t]*(?:\\*["'])?"""
    r"""|--cookie[ \t]+(?:\\*["'])?""",
    re.IGNORECASE,
)
_COOKIE_VALUE = re.compile(r"""[^\r\n"'\\]{1,4096}""")
_SAS_SIG = re.compile(r"(?<=[&;?])sig=([^\s&;\"'\\#]{4,512})")
_AWS_SECRET = re.compile(r"(?<![A-Za-z0-9/+])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])")
_AWS_NAMES = re.compile(r"secret[ _-]?access[ _-]?key")
_AWS_KEY_ID = re.compile(r"(?<![A-Za-z0-9])A[KS]IA[A-Z0-9]{16}(?![A-Za-z0-9])")
#: What :data:`tui.models.redact._GATE` adds for these finders (patterns, lower case;
#: its ``pass`` covers ``sshpass``, ``--pass`` and ``pass:``).
TRIGGERS = ("mysql", "mariadb", "login", "redis-cli", "cookie", "sig=")


def line_spans(text: str, low: str) -> list[tuple[int, int]]:
    """Spans of the secrets this module knows in ``text`` (``low``: its lower-case twin,
    offsets equal). Unsorted; they may overlap each other and the caller's."""
    spans: list[tuple[int, int]] = []
    for literals, command, flag in _COMMANDS:
        if any(literal in low for literal in literals):
            spans += _command_spans(text, command, flag)
    for literal, pattern in _FLAGS:
        if literal in low:
            spans += [m.span(1) for m in pattern.finditer(text) if _kept(m.group(1))]
    if "cookie" in low:
        spans += _cookie_spans(text)
    if "sig=" in low:
        spans += [m.span(1) for m in _SAS_SIG.finditer(text)]
    return spans


def _kept(value: str) -> bool:
    """A value worth masking: not a shell variable standing in for the password."""
    return _SHELL_VARIABLE.match(value) is None and not _trivial(value)


def _trivial(value: str) -> bool:
    """Blank, a number (``cookie: 3`` counts them) or masked already."""
    shown = value.strip()
    return not shown or shown.replace(".", "", 1).isdigit() or shown.startswith(("‹", "****"))


def _command_spans(text: str, command: re.Pattern[str], flag: re.Pattern[str]) -> list:
    """The flag's values within each of the program's commands (to the command's end).
    The next program name is looked for after the command: each character is read once."""
    spans = []
    found = command.search(text)
    while found is not None:
        end = _COMMAND_END.search(text, found.end(), found.end() + _SEGMENT_CHARS)
        stop = end.start() if end else min(len(text), found.end() + _SEGMENT_CHARS)
        for match in flag.finditer(text, found.end(), stop):
            if _kept(match.group(1)):
                spans.append(match.span(1))
        found = command.search(text, max(stop, found.end()))
    return spans


def _cookie_spans(text: str) -> list[tuple[int, int]]:
    spans = []
    found = _COOKIE.search(text)
    while found is not None:
        value = _COOKIE_VALUE.match(text, found.end())
        if value is not None and not _trivial(value.group()):
            spans.append(value.span())
        found = _COOKIE.search(text, value.end() if value is not None else found.end())
    return spans


def aws_secret_spans(text: str, low: str) -> list[tuple[int, int]]:
    """40-character AWS secret keys, looked for only where the text names AWS keys."""
    named = "access" in low and _AWS_NAMES.search(low) is not None
    if not named and ("AKIA" not in text and "ASIA" not in text or not _AWS_KEY_ID.search(text)):
        return []
    return [m.span() for m in _AWS_SECRET.finditer(text) if _looks_random(m.group())]


def _looks_random(word: str) -> bool:
    """Capitals, small letters and a digit or ``/``/``+``: a key, not a hex hash or a word."""
    return (
        any(c.isupper() for c in word)
        and any(c.islower() for c in word)
        and any(c.isdigit() or c in "/+" for c in word)
    )
