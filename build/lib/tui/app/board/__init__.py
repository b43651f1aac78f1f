"""The live board of running agents: its data, kept up to date, with no Textual in it.

- ``options.py``: what the board shows and how it keeps up (``[board]`` of the config).
- ``row.py``: one row (a conversation, or a server that failed) and its rates.
- ``fold.py``: what a record, a page of recent events or a stream batch changes in a row.
- ``model.py``: the rows in the board's order (needing a human first), sort, filter, marks.
- ``sources.py``: the servers the board watches (the current one, or every profile).
- ``feed.py``: keeping the rows up to date: listings, polled details, websockets.
- ``steer.py``: the actions on rows (pause/run, interrupt, approve/reject, pause sandbox).

The screen (``screens/board.py``) and its list (``widgets/board_table.py``) draw it.
"""
