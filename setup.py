"""The package list for setuptools; everything else is in pyproject.toml.

Every ``tui`` package, plus ``tui._themes``: the top-level ``themes/`` folder (mapped by
pyproject.toml's ``package-dir``), so the bundled themes install inside the package and
load with ``importlib.resources`` from an editable checkout, a wheel, ``pip install
--user`` or pipx alike. pyproject's own package finder cannot add a folder from outside
``tui/``, hence this file.
"""

from setuptools import find_packages, setup

setup(packages=[*find_packages(include=["tui", "tui.*"]), "tui._themes"])
