"""Every key of the conversation screen, in the order the key bar and the help show them.

The order is the key bar's priority too: on a narrow terminal the last ones give way
first (help and quit always stay): approve and reject (while they apply), find and filter,
then steering a live agent.

Each binding's ``id`` is what a user's ``[keymap]`` targets (``conversation.find`` …); the
actions live in ``screen.py`` and the mixins beside it (``find.py``, ``exporting.py``,
``agent.py``). Keys that only apply sometimes are switched by ``ConversationScreen.check_action``
(pressed where they do not apply, ``ConversationScreen.why_not`` says why: ``refusals.py``).

Keys that move focus (tab, ``t`` ``l`` ``d`` ``/`` ``f`` ``esc``, enter on the list) are *priority*
bindings. Textual hands each key to the focused widget's queue as it arrives, and an
ordinary binding runs when that widget reaches it: ``t`` then ``j`` typed together were
both queued at the list, so the ``j`` moved the list after focus had gone to the tree.
A priority binding runs as the key arrives, so the next key already goes to the new pane.
While a text field has focus they stand aside (``check_action``) and the field gets them.
"""

from __future__ import annotations

from textual.binding import Binding

CONVERSATION_KEYS = [
    Binding("escape", "back", "Back", id="conversation.back", priority=True),
    Binding(
        "r",
        "retry_load",
        "Retry",
        id="conversation.retry",
        tooltip="Ask the server for the events again (shown when they could not be loaded)",
    ),
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
    Binding("slash,ctrl+f", "find", "Find", id="conversation.find", priority=True),
    Binding("f", "edit_filter", "Filter", id="conversation.filter", priority=True),
    Binding(
        "h",
        "toggle_plumbing",
        "Hide plumbing",
        show=False,
        id="conversation.plumbing",
        tooltip="Fold state updates, LLM logs, tokens and hooks that passed, or show them",
    ),
    Binding("space", "toggle_run", "Pause/run", id="conversation.run"),
    Binding("m", "message", "Message", id="conversation.message"),
    Binding("X", "interrupt", "Interrupt", id="conversation.interrupt"),
    Binding(
        "M",
        "policies",
        "Modes",
        show=False,
        id="conversation.policies",
        tooltip="Policies: confirmation mode on or off, the security analyzer",
    ),
    Binding(
        "s",
        "ask_aside",
        "Ask aside",
        show=False,
        id="conversation.ask-aside",
        tooltip="A side question to the agent, answered in a panel, not added to the run",
    ),
    Binding(
        "Y",
        "fork",
        "Fork here",
        show=False,
        id="conversation.fork",
        tooltip="A new conversation with the events up to the selected one",
    ),
    Binding(
        "P",
        "reprovision",
        "Provision runtime",
        show=False,
        id="conversation.reprovision",
        tooltip="Where the header says the runtime is missing and the server can resume it",
    ),
    Binding(
        "L",
        "llm_profiles",
        "LLM profiles",
        show=False,
        id="conversation.llm-profiles",
        tooltip="The server's LLM profiles; t switches this conversation to one (asks first)",
    ),
    Binding(
        "B",
        "navigate",
        "Make branch current",
        show=False,
        id="conversation.navigate",
        tooltip="The selected event's branch: where the next message continues",
    ),
    Binding("n", "find_next", "Next hit", show=False, id="conversation.find-next"),
    Binding(
        "ctrl+o", "find_toggle('only')", "Only matches", show=False, id="conversation.find-only"
    ),
    Binding("ctrl+r", "find_toggle('regex')", "Regex", show=False, id="conversation.find-regex"),
    Binding("ctrl+t", "find_toggle('case')", "Match case", show=False, id="conversation.find-case"),
    Binding("N", "find_previous", "Previous hit", show=False, id="conversation.find-previous"),
    Binding("e", "jump('error', 1)", "Next failure", show=False, id="conversation.next-error"),
    Binding(
        "E", "jump('error', -1)", "Previous failure", show=False, id="conversation.previous-error"
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
    Binding("i", "insights", "Insights", show=False, id="conversation.insights"),
    Binding(
        "w",
        "changes",
        "Changes",
        show=False,
        id="conversation.changes",
        tooltip="What the agent changed in its workspace",
    ),
    Binding(
        "W",
        "changes_here",
        "Changes at this file",
        show=False,
        id="conversation.changes-here",
        tooltip="On a file edit",
    ),
    Binding("F", "files", "Files", show=False, id="conversation.files"),
    Binding("c", "copy('text')", "Copy", show=False, id="conversation.copy"),
    Binding("C", "copy('json')", "Copy JSON", show=False, id="conversation.copy-json"),
    Binding("ctrl+s", "export('md', 'view')", "Export", show=False, id="conversation.export"),
    Binding("a", "show_all", "All events", id="conversation.all"),
    Binding(
        "v",
        "toggle_view",
        "Steps/events",
        id="conversation.view",
        tooltip="Steps (an action and its result on one row, plumbing folded) or every event",
    ),
    Binding(
        "right",
        "open_step",
        "Show folded",
        show=False,
        id="conversation.open-step",
        tooltip="The events folded under this step (+3), as rows under it",
    ),
    Binding("left", "close_step", "Fold back", show=False, id="conversation.close-step"),
    Binding(
        "V",
        "toggle_history",
        "Raw history",
        show=False,
        id="conversation.raw-history",
        tooltip="Show every streaming delta and state snapshot the server stored, or fold them",
    ),
    Binding(
        "o",
        "toggle_sort",
        "Order",
        id="conversation.order",
        tooltip="Newest or oldest first (as o on the lists)",
    ),
    Binding("z", "zoom", "Zoom pane", show=False, id="conversation.zoom"),
    Binding(
        "less_than_sign,ctrl+left",
        "tree_narrower",
        "Narrower tree (then hidden)",
        show=False,
        id="conversation.tree-narrower",
    ),
    Binding(
        "greater_than_sign,ctrl+right",
        "tree_wider",
        "Wider tree",
        show=False,
        id="conversation.tree-wider",
    ),
    Binding(
        "equals_sign",
        "tree_auto",
        "Tree width as needed",
        show=False,
        id="conversation.tree-auto",
    ),
    Binding(
        "t",
        "focus('event-tree')",
        "Tree",
        show=False,
        id="conversation.focus-tree",
        priority=True,
    ),
    Binding(
        "l",
        "focus('event-list')",
        "List",
        show=False,
        id="conversation.focus-list",
        priority=True,
    ),
    Binding(
        "d",
        "focus('event-detail')",
        "Detail",
        show=False,
        id="conversation.focus-detail",
        priority=True,
    ),
    Binding(
        "tab",
        "app.focus_next",
        "Next pane",
        show=False,
        id="conversation.next-pane",
        priority=True,
    ),
    Binding(
        "shift+tab",
        "app.focus_previous",
        "Previous pane",
        show=False,
        id="conversation.previous-pane",
        priority=True,
    ),
    Binding(
        "enter",
        "open_detail",
        "Details",
        id="conversation.open-detail",
        priority=True,
    ),
]
