"""Whether a statistics pass over a dataset is running family by family in segment chunks
(:func:`evalcore.metrics.levels.family_stats`): then the metrics' per-block memos (BLEU's n-gram
layers, chrF's character statistics) are worth filling in ``segment_stats``, because the other
metrics of the family ask for the same blocks right after. Outside such a pass a whole-dataset
``segment_stats`` call would only churn the memos, so it leaves them alone."""
from __future__ import annotations

from contextlib import contextmanager

SHARED = False


@contextmanager
def shared_blocks():
    """Within: ``segment_stats`` of BLEU and chrF fill and read their block memos."""
    global SHARED
    old, SHARED = SHARED, True
    try:
        yield
    finally:
        SHARED = old
