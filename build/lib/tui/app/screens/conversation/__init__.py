"""The conversation screen, one concern per module: ``screen.py`` (panes, loading, the list's
window), ``find.py``, ``exporting.py``, ``following.py`` (the live stream), ``agent.py``."""

from .screen import FOLLOW_DETAIL_S, ConversationScreen

__all__ = ["FOLLOW_DETAIL_S", "ConversationScreen"]
