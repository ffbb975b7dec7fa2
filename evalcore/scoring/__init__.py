"""Running the metrics over a dataset, between the engines (metrics, stats, qarla, syntax,
learned, neural) and the analyses: defaults (default metrics, scope, tokenizer note,
signatures), scores (the score tables every page and command shares, cached on disk),
settings (the frozen analysis settings), parallel (Dask scheduling of score tables)."""
