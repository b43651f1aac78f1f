"""Bytecode for the modules a launch loaded, written once where the installer left none.

pip compiles a wheel's modules when it installs them; uv (by default) does not, and a
machine with ``PYTHONDONTWRITEBYTECODE`` never writes any: every launch then compiles the
modules it imports (ohtui's and its libraries') from source again, in the app and in the
demo's server, before anything is on screen (``bench/NOTES.md`` has the pair). So once a
process is up (the app after its first screen and preload, a server once it serves) it
writes the bytecode of what it loaded that has none, in a daemon thread (quitting never
waits for it); later launches read it. A folder that cannot be written (a system install)
is left as it is. The probe (the process's own main module) is written last, so a launch
ended halfway writes the rest next time.
"""

from __future__ import annotations

import importlib.util
import os
import py_compile
import sys
import threading


def _cached(source: str) -> str:
    return importlib.util.cache_from_source(source)


def missing(probe: str) -> bool:
    """Is the bytecode of ``probe`` (a module's source file) missing?"""
    return not os.path.exists(_cached(probe))


def uncompiled() -> list[str]:
    """The source files of loaded modules whose bytecode is missing and could be written."""
    found = []
    for module in list(sys.modules.values()):
        spec = getattr(module, "__spec__", None)
        origin = getattr(spec, "origin", None)
        if not origin or not spec.has_location or not origin.endswith(".py") or not spec.cached:
            continue
        if not os.path.exists(spec.cached) and os.access(os.path.dirname(origin), os.W_OK):
            found.append(origin)
    return found


def compile_missing(probe: str, sources: list[str] | None = None) -> int:
    """Write the bytecode of ``sources`` (the loaded modules without it), ``probe`` last;
    how many were written. A file that cannot be compiled or written is passed over."""
    pending = [s for s in (uncompiled() if sources is None else sources) if s != probe]
    written = 0
    for source in [*pending, probe]:
        if os.path.exists(_cached(source)):
            continue
        try:
            py_compile.compile(source, doraise=True)
        except (OSError, py_compile.PyCompileError):
            continue
        written += 1
    return written


def compile_in_background(probe: str) -> threading.Thread | None:
    """:func:`compile_missing` in a daemon thread, if ``probe``'s bytecode is missing."""
    if not missing(probe):
        return None
    thread = threading.Thread(
        target=compile_missing, args=(probe,), name="ohtui-bytecode", daemon=True
    )
    thread.start()
    return thread
