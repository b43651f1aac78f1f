"""The import picture of ``tui/``: floors with no arrow upward, and no cycle.

    cli · commands                       the command line: wires everything together
    app                                  the Textual UI
    client · export · config · server    beside each other: client, export and config
    · insights · search_index            above models; the server on models only; insights
                                         (pure figures over events) on models and client
    models                               pydantic data, no I/O
    text · lazy · paths · loopback · lru the bottom: neutral helpers, the package's version
    · children · safe_output · untrusted_files · tui       (safe_output, the one writer of
    · memory · bytecode                  output files, cleans the paths it names with text;
                                         memory, the collector's and the heap's tuning, is
                                         called from the command line to the servers;
                                         bytecode, written where no installer did)

Every import counts: at module level, inside functions (the lazy ones), under
``TYPE_CHECKING`` (a type is a dependency too), and ``importlib.import_module("tui…")``
with a literal name. Cycles are looked for among the imports that run (``TYPE_CHECKING``
left out), between single modules, so a cycle hidden inside one package fails too.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TUI = ROOT / "tui"

BOTTOM = frozenset(
    {
        "tui",
        "text",
        "lazy",
        "paths",
        "loopback",
        "failures",
        "lru",
        "children",
        "safe_output",
        "untrusted_files",
        "memory",
        "bytecode",
    }
)
#: area (the first name under ``tui``) → the areas it may import (its own is always allowed)
MAY_IMPORT: dict[str, frozenset[str]] = {
    "tui": frozenset(),
    "text": frozenset(),
    "lazy": frozenset(),
    "paths": frozenset(),
    "loopback": frozenset(),
    "failures": frozenset(),
    "lru": frozenset(),
    "children": frozenset(),
    "safe_output": frozenset({"text"}),
    "untrusted_files": frozenset(),
    "memory": frozenset(),
    "bytecode": frozenset(),
    "models": BOTTOM,
    "client": BOTTOM | {"models"},
    "export": BOTTOM | {"models", "client"},
    "config": BOTTOM | {"models"},
    "server": BOTTOM | {"models"},
    "insights": BOTTOM | {"models", "client"},
    "search_index": BOTTOM | {"models", "client"},
    "app": BOTTOM | {"models", "client", "export", "config", "insights", "search_index"},
    "cli": BOTTOM
    | {"models", "client", "export", "config", "server", "app", "commands", "insights"}
    | {"search_index"},
    "commands": BOTTOM
    | {"models", "client", "export", "config", "server", "app", "cli", "insights"}
    | {"search_index"},
    "__main__": frozenset({"cli"}),
}
#: Cycles that exist today and are their owners' to remove. Any other cycle fails the test.
KNOWN_CYCLES: list[frozenset[str]] = []


def modules() -> dict[str, Path]:
    found = {}
    for path in TUI.rglob("*.py"):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def imports(name: str, path: Path, known: dict[str, Path]) -> list[tuple[str, int, bool]]:
    """``(module imported, line, runs)`` for each ``tui`` import in one module; ``runs`` is
    False under ``if TYPE_CHECKING``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    typing_only = {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
        for inner in ast.walk(node)
    }
    found = []
    for node in ast.walk(tree):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join([*base, *([node.module] if node.module else [])])
            else:
                module = node.module or ""
            for alias in node.names:  # a submodule by name is an import of that submodule
                sub = f"{module}.{alias.name}"
                targets.append(sub if sub in known else module)
        elif (
            isinstance(node, ast.Call)
            and ast.unparse(node.func) in ("importlib.import_module", "import_module")
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            targets = [node.args[0].value]
        for target in targets:
            while target not in known and "." in target:
                target = target.rpartition(".")[0]
            if target in known and target != name:
                found.append((target, node.lineno, id(node) not in typing_only))
    return found


def area(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def graph() -> dict[str, list[tuple[str, int, bool]]]:
    known = modules()
    return {name: imports(name, path, known) for name, path in known.items()}


def test_every_area_has_a_floor():
    """A new top-level module or package under tui/ must be given its place above."""
    assert sorted({area(name) for name in modules()} - set(MAY_IMPORT)) == []


def test_no_module_imports_upward():
    wrong = []
    for name, found in graph().items():
        allowed = MAY_IMPORT.get(area(name), frozenset()) | {area(name)}
        for target, line, _runs in found:
            if area(target) not in allowed:
                wrong.append(f"{name}:{line} imports {target}")
    assert wrong == [], "imports across the floors, upward or sideways:\n" + "\n".join(wrong)


def test_no_import_cycles():
    edges: dict[str, set[str]] = defaultdict(set)
    for name, found in graph().items():
        edges[name].update(target for target, _line, runs in found if runs)
    cycles = [cycle for cycle in strongly_connected(edges) if cycle not in KNOWN_CYCLES]
    assert cycles == [], "import cycles:\n" + "\n".join(" ↔ ".join(sorted(c)) for c in cycles)


def strongly_connected(edges: dict[str, set[str]]) -> list[frozenset[str]]:
    """The groups of two or more modules that import each other (iterative Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[frozenset[str]] = []
    for start in list(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                group = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.add(member)
                    if member == node:
                        break
                if len(group) > 1:
                    groups.append(frozenset(group))
    return groups


def test_the_checker_sees_lazy_typing_and_string_imports(tmp_path):
    """The rules above are only as good as the import finder: it must see every kind."""
    package = tmp_path / "tui" / "client"
    package.mkdir(parents=True)
    (tmp_path / "tui" / "__init__.py").write_text("")
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text(
        "from typing import TYPE_CHECKING\n"
        "import importlib\n"
        "if TYPE_CHECKING:\n    from tui.app import screens\n"
        "def later():\n    from . import b\n    importlib.import_module('tui.app.x')\n"
    )
    (package / "b.py").write_text("from .a import later\n")
    known = {"tui": Path(), "tui.client": Path(), "tui.client.a": Path(), "tui.client.b": Path()}
    known |= {"tui.app": Path(), "tui.app.screens": Path(), "tui.app.x": Path()}
    found = imports("tui.client.a", package / "a.py", known)
    assert ("tui.app.screens", 4, False) in found  # under TYPE_CHECKING
    assert ("tui.client.b", 6, True) in found  # lazy, inside a function
    assert ("tui.app.x", 7, True) in found  # by name
    assert strongly_connected({"a": {"b"}, "b": {"a"}, "c": {"a"}}) == [frozenset({"a", "b"})]


#: The app's folders that hold no widgets: data the screens show, kept apart from Textual so
#: they stay testable without an app and usable from a helper process.
NO_TEXTUAL = ("store", "tables", "workspace", "helper", "board")


def _imports_textual(path: Path) -> list[int]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level:
            names = [node.module or ""]
        else:
            continue
        if any(n == "textual" or n.startswith("textual.") for n in names):
            lines.append(node.lineno)
    return lines


def test_the_apps_data_folders_import_no_textual():
    """``tui/app/store`` (a conversation's events and rows), ``tables``, ``workspace``,
    ``helper`` and ``board`` hold data, not widgets: no Textual (Rich text for cells is fine), not even lazily,
    and nothing from the app's screens or widgets."""
    wrong = []
    for folder in NO_TEXTUAL:
        for path in sorted((TUI / "app" / folder).rglob("*.py")):
            wrong += [f"{path.relative_to(ROOT)}:{line}" for line in _imports_textual(path)]
    known = modules()
    for name, found in graph().items():
        if name.split(".")[2:3] and name.split(".")[2] in NO_TEXTUAL:
            for target, line, _runs in found:
                if target.startswith(("tui.app.screens", "tui.app.widgets", "tui.app.app")):
                    wrong.append(f"{known[name].relative_to(ROOT)}:{line} imports {target}")
    assert wrong == [], "widgets' business in the app's data folders:\n" + "\n".join(wrong)
