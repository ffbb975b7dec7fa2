"""The pages' view-models: one module per dashboard page, each function returning the DataFrame
(or dict of DataFrames) a page renders. Nothing here imports streamlit; the pages stay thin.

* :mod:`.common`: defaults, scope, tokenizer note, signatures (shared by every page).
* :mod:`.scores`: the cached score tables every page and command shares.
* :mod:`.systems`, :mod:`.judges`, :mod:`.human_likeness`, :mod:`.likeness_vs_acceptability`,
  :mod:`.queen_vs_human`, :mod:`.divergence`, :mod:`.learn`: one per page.

The Compare, Campaign, References and Experts pages call :mod:`evalcore.analysis.compare`,
:mod:`evalcore.analysis.campaign`, :mod:`evalcore.analysis.references` and :mod:`evalcore.analysis.experts`, which are also
the engines of the commands of the same names.
"""
