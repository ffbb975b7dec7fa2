"""Kernels shared by several metric families (the compiled and numpy workhorses behind them).

* :mod:`.dp` – Levenshtein, LCS and weighted-LCS dynamic programmes (WER, ROUGE-L/W), scalar,
  compiled over many pairs, and numpy block versions.
* :mod:`.ngram` – token, character and n-gram ids, and the per-order count layers whose products
  are clipped counts (BLEU, chrF, NIST, ROUGE-N, the BEER character n-grams).
* :mod:`.overlap` – clipped n-gram overlaps Σ_g min(count_c(g), count_r(g)) (Papineni et al.
  2002 §2.1): per pair, per block, per chunk plan and per chunk (compiled).
"""
