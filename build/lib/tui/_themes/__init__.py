"""ohtui's bundled colour themes, one JSON file each (copy one to start your own).

Installed as the package ``tui._themes`` (setup.py, pyproject.toml's package-dir), so an
installed ohtui finds them with ``importlib.resources``; your own go in the ``themes``
folder of ohtui's config directory (``ohtui info`` prints it).
"""
