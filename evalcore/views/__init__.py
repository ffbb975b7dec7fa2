"""The pages' view-models: one module per dashboard page, each function returning the DataFrame
(or dict of DataFrames) a page renders. Nothing here imports streamlit; the pages stay thin.

* :mod:`.systems`, :mod:`.judges`, :mod:`.human_likeness`, :mod:`.likeness_vs_acceptability`,
  :mod:`.queen_vs_human`, :mod:`.divergence`, :mod:`.learn`: one per page.

What every page shares lies in the scoring layer below: :mod:`evalcore.scoring.defaults`
(defaults, scope, tokenizer note, signatures) and :mod:`evalcore.scoring.scores` (the cached
score tables every page and command shares).

The Compare, Campaign, References and Experts pages call :mod:`evalcore.analysis.compare`,
:mod:`evalcore.analysis.campaign`, :mod:`evalcore.analysis.references` and
:mod:`evalcore.analysis.experts`, which are also the engines of the commands of the same names.
"""


def chosen(value: str | None, what: str) -> str:
    """``value``, a page option a view-model needs (a criterion, a system, a segment), or a
    ValueError saying what to choose when the query leaves it unset (None)."""
    if value is None:
        raise ValueError(f"choose {what} first")
    return value
