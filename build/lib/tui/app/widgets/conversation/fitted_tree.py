"""A tree whose labels are cut at a word to the width of the pane.

Textual cuts a line at the pane's edge wherever it falls ("↳ newest branch, conti",
"13:45:44–"), and a narrow pane (a quarter of an 80-column screen) cuts most of them. Here
each label is cut where it is drawn, when the width is known (:func:`fit_label`), with "…":
never inside words marked to stay whole (``tree_nodes.whole``: "14 events", "branch 2 of
3", a time range), and at a space where one is near. The pane's width is still worked out
from the whole labels. Beside it, what → and ← do in a tree: open or step in,
close or step out.
"""

from __future__ import annotations

from rich.console import Console
from rich.style import NULL_STYLE, Style
from rich.text import Text
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

ELLIPSIS = "…"


def fit_label(label: Text, width: int, console: Console | None = None, *, keep: int = 0) -> Text:
    """``label`` cut to ``width`` cells, with "…".

    Words marked whole (style ``meta`` ``whole``: a count with its noun, a time range) are
    never cut: the label ends before them. Other words are cut at the last space that
    keeps two thirds of the room (a ``·`` left dangling goes too); where the last space is
    further back than that, a long word is cut where it must be, so a narrow pane still
    shows what it can. ``keep``: the first characters are not words (the ▶ before them).
    ``console``: the "…" takes the style of the letter before it (the cursor's colours)."""
    if width <= 0 or label.cell_len <= width:
        return label
    plain = label.plain
    room = max(0, width - len(ELLIPSIS))
    wholes = [
        (span.start, span.end)
        for span in label.spans
        if isinstance(span.style, Style) and span.style.meta.get("whole")
    ]

    def inside(at: int) -> int | None:
        """The start of the whole words ``at`` would cut into, if it would."""
        return next((start for start, end in wholes if start < at < end), None)

    space = plain.rfind(" ", keep + 1, room + 1)
    while space > 0 and (start := inside(space)) is not None:
        space = plain.rfind(" ", keep + 1, start)
    cut = room if space < 0 or space < room * 2 // 3 else space
    if (start := inside(cut)) is not None:
        cut = start if start > keep else cut
    cut = len(plain[:cut].rstrip(" ·"))
    head = label[:cut]
    style = label.get_style_at_offset(console, cut - 1) if console and cut else "dim"
    head.append(ELLIPSIS, style=style)
    if head.cell_len > width:  # wide characters: let rich cut by cells
        head.truncate(width, overflow="ellipsis")
    return head


class FittedTree(Tree, inherit_bindings=True):
    """A :class:`~textual.widgets.Tree` that draws each label cut at a word to its line,
    with the actions → and ← are bound to where it is used."""

    def render_label(self, node: TreeNode, base_style: Style, style: Style) -> Text:
        label = super().render_label(node, base_style, style)
        depth, parent = 0, node.parent
        while parent is not None and parent is not self.root:
            depth, parent = depth + 1, parent.parent
        width = self.scrollable_content_region.width - depth * self.guide_depth
        icon = len(self.ICON_NODE) if node.allow_expand else 0
        return fit_label(label, width, self.app.console, keep=icon)

    def get_label_width(self, node: TreeNode) -> int:
        """The whole label's width, uncut: what the pane's width is worked out from."""
        return super().render_label(node, NULL_STYLE, NULL_STYLE).cell_len

    def action_expand_or_down(self) -> None:
        """→: open the node under the cursor; on an open one, step to its first line."""
        node = self.cursor_node
        if node is None:
            return
        if node.allow_expand and not node.is_expanded:
            node.expand()
        elif node.is_expanded and node.children:
            self.move_cursor(node.children[0])

    def action_collapse_or_up(self) -> None:
        """←: close the node under the cursor; on a closed one or a leaf, step to its parent."""
        node = self.cursor_node
        if node is None:
            return
        if node.is_expanded and node.allow_expand:
            node.collapse()
        elif node.parent is not None and not node.parent.is_root:
            self.move_cursor(node.parent)
