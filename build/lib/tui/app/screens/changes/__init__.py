"""The Changes view of a conversation: what its agent changed in the workspace."""

from .screen import ChangesPlace, ChangesScreen

__all__ = ["ChangesPlace", "ChangesScreen"]
