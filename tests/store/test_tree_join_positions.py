"""The tree pane's run grown by the positions since (tree_outline.join_positions): the same
sorted union as before, however the new positions fall."""

from __future__ import annotations

import random

from tui.app.store.tree_outline import join_positions


def test_joining_a_run_with_more_positions_is_their_sorted_union():
    rng = random.Random(18)
    for _ in range(3000):
        run = tuple(sorted(rng.sample(range(60), rng.randint(0, 20))))
        more = sorted(rng.choices(range(80), k=rng.randint(0, 10)))
        assert join_positions(run, more) == tuple(sorted(set(run).union(more)))
    assert join_positions((1, 2, 5), [5, 6, 9]) == (1, 2, 5, 6, 9)  # the usual: the run goes on
    assert join_positions((1, 2, 5), [3, 6]) == (1, 2, 3, 5, 6)  # one position before its end
