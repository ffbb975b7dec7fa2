"""Kernels shared by several metric families (the compiled and numpy workhorses behind them).

* :mod:`.dp` – Levenshtein, LCS and weighted-LCS dynamic programmes (WER, ROUGE-L/W), scalar,
  compiled over many pairs, and numpy block versions.
"""
