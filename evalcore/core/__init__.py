"""The bottom layer: the data model (dataset: one language pair of one test set) and the
infrastructure every layer may use: problems (``Problem``, ``DataError``), paths (the
folders), export (atomic writes, CSV and LaTeX tables), progress (the progress callbacks and
stderr line), undefined (why a value is empty or degenerate), capabilities (what a dataset's
columns allow). Imports nothing from evalcore outside this package."""
