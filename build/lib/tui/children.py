"""How ``ohtui`` starts a child process that runs one of its own modules.

Two children do (the folder server, ``tui/server/folder_process.py``, and the index's
helper, ``tui/client/process_worker.py``), and both must import this same tree however it
was installed (a venv, a wheel, ``pip install --user``, pipx, or a checkout run with
``python -m tui``) and nothing else named ``tui``: the child is this interpreter with ``-P``
(the working directory is not put on its path, so a ``tui`` folder there is never imported),
and this tree's folder is appended last to its path (found if nothing installed it, never
ahead of the standard library or site-packages), then the module runs as ``__main__``.
"""

from __future__ import annotations

import os
import sys

#: The child's start: this tree's folder last on its path, then the module as __main__.
_BOOT = (
    "import runpy, sys; root, module = sys.argv[1:3]; del sys.argv[1:3]; "
    "sys.path.append(root) if root not in sys.path else None; "
    "runpy.run_module(module, run_name='__main__', alter_sys=True)"
)
#: The folder that holds the ``tui`` package.
_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def own_module_command(module: str, *args: str) -> list[str]:
    """The command line of a child running ``module`` of this tree with ``args`` (its
    ``sys.argv[1:]``)."""
    return [sys.executable, "-P", "-c", _BOOT, _ROOT, module, *args]
