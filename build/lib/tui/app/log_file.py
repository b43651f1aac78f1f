"""The app's log file: what failed, with its traceback, where ``ohtui info`` says it is.

A failure the app survives is told in a notice that names this file (``guard.py``), so the
file must exist and hold the details. It is the platform's log folder's ``ohtui.log``
(``tui.paths.log_file``), written while the app runs (``ohtui``'s own run, not the
commands, which say their failures themselves), from the ``tui`` loggers at INFO and above:
the client's retries and give-ups, the guard's tracebacks.

Never a key: every record is masked with every key the process's clients were given
(``tui.client.known_secrets``) and the usual URL credentials, and control sequences are
made visible (``cat ohtui.log`` must not drive the terminal). Private (600, in a 700
folder) and bounded: :data:`MAX_BYTES` per file, :data:`BACKUPS` older ones.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from contextlib import contextmanager
from logging.handlers import RotatingFileHandler
from pathlib import Path

MAX_BYTES = 1024 * 1024
BACKUPS = 3
FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
LOGGER = "tui"

_handler: _PrivateRotatingFileHandler | None = None
_level_before = logging.NOTSET


class _PrivateRotatingFileHandler(RotatingFileHandler):
    """Each file it opens (the first, and each after a rotation) is made mode 600; a file
    that cannot be written is given up in silence (never a "Logging error" on the
    terminal the app draws on), and no notice promises it any more."""

    failed = False

    def _open(self):  # type: ignore[no-untyped-def]
        fd = os.open(self.baseFilename, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        return open(fd, "a", encoding=self.encoding, errors=self.errors)

    def handleError(self, record: logging.LogRecord) -> None:
        self.failed = True


class SafeFormatter(logging.Formatter):
    """A record (traceback included) with every known key masked, safe to ``cat``."""

    def format(self, record: logging.LogRecord) -> str:
        from tui.client.known_secrets import redact_known
        from tui.text import clean

        return clean(redact_known(super().format(record)))


def current() -> Path | None:
    """The log file being written, or None (not started, or it could not be made)."""
    if _handler is None or _handler.failed:
        return None
    return Path(_handler.baseFilename)


def start_log_file(path: Path | None = None) -> Path | None:
    """Write the ``tui`` loggers to ``path`` (default: :func:`tui.paths.log_file`) from now
    on; None when its folder cannot be made (then no notice promises a log)."""
    global _handler, _level_before
    from tui.paths import log_file

    stop_log_file()
    path = path if path is not None else log_file()
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        handler = _PrivateRotatingFileHandler(
            path, maxBytes=MAX_BYTES, backupCount=BACKUPS, encoding="utf-8", delay=True
        )
    except OSError:
        return None
    handler.setLevel(logging.INFO)
    handler.setFormatter(SafeFormatter(FORMAT))
    logger = logging.getLogger(LOGGER)
    _level_before = logger.level
    if logger.getEffectiveLevel() > logging.INFO:
        logger.setLevel(logging.INFO)
    logger.addHandler(handler)
    _handler = handler
    return path


def stop_log_file() -> None:
    """Stop writing the log (the app has ended); a no-op when it was not started."""
    global _handler
    if _handler is None:
        return
    logger = logging.getLogger(LOGGER)
    logger.removeHandler(_handler)
    logger.setLevel(_level_before)
    _handler.close()
    _handler = None


@contextmanager
def writing_log() -> Iterator[Path | None]:
    """The log file written for the duration of the block (the app's run)."""
    path = start_log_file()
    try:
        yield path
    finally:
        stop_log_file()
