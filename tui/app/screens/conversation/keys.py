"""Every key of the conversation screen, in the order the key bar and the help show them.

Each binding's ``id`` is what a user's ``[keymap]`` targets (``conversation.find`` …); the
actions live in ``screen.py`` and the mixins beside it (``find.py``, ``exporting.py``,
``agent.py``). Keys that only apply sometimes are switched by ``ConversationScreen.check_action``.
"""

from __future__ import annotations

from textual.binding import Binding

CONVERSATION_KEYS = [
    Binding("escape", "back", "Back", id="conversation.back"),
    Binding("o", "toggle_sort", "Sort", id="conversation.sort"),
    Binding("slash,ctrl+f", "find", "Find", id="conversation.find"),
    Binding("f", "focus_filter", "Filter", id="conversation.filter"),
    Binding("n", "find_next", "Next hit", show=False, id="conversation.find-next"),
    Binding(
        "ctrl+o", "find_toggle('only')", "Only matches", show=False, id="conversation.find-only"
    ),
    Binding("ctrl+r", "find_toggle('regex')", "Regex", show=False, id="conversation.find-regex"),
    Binding("ctrl+t", "find_toggle('case')", "Match case", show=False, id="conversation.find-case"),
    Binding("N", "find_previous", "Previous hit", show=False, id="conversation.find-previous"),
    Binding("e", "jump('error', 1)", "Next error", show=False, id="conversation.next-error"),
    Binding(
        "E", "jump('error', -1)", "Previous error", show=False, id="conversation.previous-error"
    ),
    Binding("u", "jump('user', 1)", "Next user message", show=False, id="conversation.next-user"),
    Binding(
        "U",
        "jump('user', -1)",
        "Previous user message",
        show=False,
        id="conversation.previous-user",
    ),
    Binding(
        "right_square_bracket",
        "jump('fork', 1)",
        "Next branch point",
        show=False,
        id="conversation.next-fork",
    ),
    Binding(
        "left_square_bracket",
        "jump('fork', -1)",
        "Previous branch point",
        show=False,
        id="conversation.previous-fork",
    ),
    Binding("c", "copy('text')", "Copy", show=False, id="conversation.copy"),
    Binding("C", "copy('json')", "Copy JSON", show=False, id="conversation.copy-json"),
    Binding("ctrl+s", "export('md', 'view')", "Export", show=False, id="conversation.export"),
    Binding("a", "show_all", "All events", id="conversation.all"),
    Binding(
        "v",
        "toggle_history",
        "Raw history",
        show=False,
        id="conversation.raw-history",
        tooltip="Show every streaming delta and state snapshot the server stored, or fold them",
    ),
    Binding("space", "toggle_run", "Pause/run", id="conversation.run"),
    Binding("m", "message", "Message", id="conversation.message"),
    Binding("X", "interrupt", "Interrupt", id="conversation.interrupt"),
    Binding(
        "A",
        "approve",
        "Approve",
        id="conversation.approve",
        tooltip="Run the action the agent waits to run",
    ),
    Binding(
        "R",
        "reject",
        "Reject",
        id="conversation.reject",
        tooltip="Refuse the waiting action, with a reason for the agent",
    ),
    Binding("z", "zoom", "Zoom pane", show=False, id="conversation.zoom"),
    Binding("t", "focus('event-tree')", "Tree", show=False, id="conversation.focus-tree"),
    Binding("l", "focus('event-list')", "List", show=False, id="conversation.focus-list"),
    Binding("d", "focus('event-detail')", "Detail", show=False, id="conversation.focus-detail"),
]
