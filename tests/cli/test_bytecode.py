"""Bytecode is written once, where no installer did, for the modules a launch loaded
(``tui/bytecode.py``): the probe last (a launch ended halfway writes the rest next time),
nothing where it is there already or the folder cannot be written."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from tui import bytecode


def _sources(tmp_path: Path) -> list[str]:
    folder = tmp_path / "pkg"
    folder.mkdir()
    sources = []
    for name in ("a.py", "b.py", "main.py"):
        (folder / name).write_text(f"NAME = {name!r}\n")
        sources.append(str(folder / name))
    return sources


def _compiled(source: str) -> bool:
    return Path(importlib.util.cache_from_source(source)).exists()


def test_missing_bytecode_is_written_once_the_probe_last(tmp_path):
    *rest, probe = _sources(tmp_path)
    assert bytecode.missing(probe)
    assert bytecode.compile_missing(probe, rest) == 3
    assert all(_compiled(s) for s in [*rest, probe]) and not bytecode.missing(probe)
    assert bytecode.compile_missing(probe, rest) == 0  # there already: nothing written
    assert bytecode.compile_in_background(probe) is None


def test_a_launch_ended_before_the_probe_writes_the_rest_next_time(tmp_path):
    *rest, probe = _sources(tmp_path)
    assert bytecode.compile_missing(rest[0], rest[:1]) == 1  # stopped after one module
    assert bytecode.missing(probe)
    assert bytecode.compile_missing(probe, rest) == 2
    assert all(_compiled(s) for s in [*rest, probe])


def test_what_cannot_be_compiled_is_passed_over(tmp_path):
    *rest, probe = _sources(tmp_path)
    Path(rest[0]).write_text("def broken(:\n")
    assert bytecode.compile_missing(probe, rest) == 2
    assert not _compiled(rest[0]) and _compiled(probe)


def test_the_loaded_modules_without_bytecode_are_found(tmp_path, monkeypatch):
    rest = _sources(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr("sys.dont_write_bytecode", True)  # as PYTHONDONTWRITEBYTECODE does
    monkeypatch.setattr(sys, "modules", dict(sys.modules))  # what is loaded here stays here
    import pkg.a  # noqa: F401 - loaded, as a launch loads its modules

    assert rest[0] in bytecode.uncompiled()
    monkeypatch.setattr(bytecode.os, "access", lambda path, mode: False)  # a system install
    assert rest[0] not in bytecode.uncompiled()
