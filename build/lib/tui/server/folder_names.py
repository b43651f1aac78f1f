"""What a conversation folder is called in the list: words people can tell apart.

The agent server keeps a title in ``meta.json``; the CLI keeps none, so the first line of the
first user message stands in, and a folder without either yet goes by its own name. A
folder someone named ("fail-<id>", "confirmation_mode") says that name first: runs collected
side by side were told apart by nothing else (five folders of one capture all titled "Demo
conversation", three CLI runs all "hi"). The agent names folders by the conversation's id
alone, which says nothing the id does not, so such a name adds nothing.
"""

from __future__ import annotations

import re
from typing import Any

from tui.text import cut_at_word

from .folder_files import clean_text

TITLE_CHARS = 100  # a first message is cut to about this, at a word
LABEL_CHARS = 60
#: a conversation id as folder names carry it: 32 hex digits, with or without a UUID's dashes
_ID_TEXT = re.compile(
    r"[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}"
)
_SEPARATORS = " -_.·:~"


def first_line(text: str, limit: int = TITLE_CHARS) -> str | None:
    """The first non-blank line of a message, its spaces collapsed, cut at a word; None if
    blank. Served as it is (the app cleans what it shows), lone surrogates made encodable."""
    head = text.lstrip()[: 10 * limit]  # a message of megabytes is not split whole
    line = " ".join(head.splitlines()[0].split()) if head else ""
    return clean_text(cut_at_word(line, limit)) if line else None


def user_text(event: Any) -> str | None:
    """What a user's message says (its text parts joined), or None for any other event."""
    if not isinstance(event, dict) or event.get("kind") != "MessageEvent":
        return None
    if event.get("source") != "user":
        return None
    message = event.get("llm_message")
    content = message.get("content") if isinstance(message, dict) else None
    texts = [
        part["text"]
        for part in (content if isinstance(content, list) else [])
        if isinstance(part, dict)
        and part.get("type") == "text"
        and isinstance(part.get("text"), str)
    ]
    return first_line(" ".join(t for t in texts if t.strip()))


def folder_label(name: str) -> str | None:
    """What a person called the folder: its name less any conversation id in it; None when
    nothing with a letter in it is left (the agent's own naming)."""
    rest = " ".join(_ID_TEXT.sub(" ", name).split()).strip(_SEPARATORS)
    if not any(char.isalpha() for char in rest):
        return None
    return clean_text(cut_at_word(rest, LABEL_CHARS))


def folder_title(folder_name: str, title: str | None) -> str:
    """The title the list shows: ``label · title``, the title alone for a folder the agent
    named, and the folder's name while there is no title at all."""
    if not title:
        return clean_text(folder_name[:500]) or "?"
    label = folder_label(folder_name)
    return f"{label} · {title}" if label and label != title else title
