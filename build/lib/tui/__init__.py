"""ohtui: a terminal UI for OpenHands-style agent services."""

__version__ = "0.1.0"
