"""Files meant for people and spreadsheets: CSV formula neutralisation and atomic writes.

CSV formula injection (OWASP, "CSV Injection"): a spreadsheet treats a cell that begins with
``=``, ``+``, ``-`` or ``@`` (and, in some programs, a leading tab or carriage return) as a
formula, so a system name like ``=HYPERLINK("http://evil.example","x")`` in an exported table
would run when the file is opened. Every CSV written for people (page downloads, the CLI's
``.csv`` outputs) goes through :func:`neutralise_frame`, which prefixes such *text* cells with
a ``'`` as OWASP recommends.

Decisions (documented in docs/formats.md, "Exports"):

* only text is neutralised: numbers (int, float, numpy numbers, booleans, missing values) are
  written as numbers, so ``-0.53`` stays a number;
* a text cell that is exactly a decimal number (``-1``, ``+2.5``, ``-3e-4``) is a number to a
  spreadsheet, not a formula, and is left as it is (seg ids like ``-1`` survive);
* column names are text too and are neutralised the same way;
* TSV files written for tools (``score``/``correlate``/... without a ``.csv`` suffix) stay exact.
"""
from __future__ import annotations

import csv
import os
import re
import secrets
import tempfile
from pathlib import Path
from typing import Any, Callable, Iterable

import pandas as pd

from ..core.problems import DataError, Report

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_PLAIN_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")


def neutralise_cell(value: Any) -> Any:
    """``value`` with a leading ``'`` when it is text a spreadsheet would run as a formula;
    anything else (numbers, missing values, harmless text) unchanged."""
    if not isinstance(value, str):
        return value
    if value.startswith(FORMULA_START) and not _PLAIN_NUMBER.fullmatch(value):
        return "'" + value
    return value


def neutralise_frame(df: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``df`` whose text cells and column names are neutralised
    (:func:`neutralise_cell`); numeric columns are untouched."""
    out = df.copy()
    for c in out.columns:
        col = out[c]
        if pd.api.types.is_numeric_dtype(col) or pd.api.types.is_bool_dtype(col):
            continue
        out[c] = col.map(neutralise_cell)
    out.columns = [neutralise_cell(c) if isinstance(c, str) else c for c in out.columns]
    return out


def to_safe_csv(df: pd.DataFrame, file: Any = None, **kw: Any) -> str | None:
    """``df`` as comma-separated text for spreadsheets (to ``file``, or returned), formulas
    neutralised and every text cell quoted: Python's minimal quoting leaves a carriage return
    unquoted, which a spreadsheet reads as the end of the row."""
    text: str | None = neutralise_frame(df).to_csv(file, index=False, quoting=csv.QUOTE_NONNUMERIC, **kw)
    return text


def _temporary_beside(path: Path) -> tuple[int, Path]:
    """A new, empty hidden file ``.NAME.<random>.tmp`` in the folder of ``path``, opened for
    writing. Created with mode 0o666 less the umask, as ``open()`` would create ``path``
    itself (``tempfile.mkstemp`` would make it 0o600: saved data and outputs readable by
    their owner only)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0) | getattr(os, "O_NOFOLLOW", 0)
    for _ in range(100):
        tmp = path.with_name(f".{path.name}.{os.getpid()}{secrets.token_hex(4)}.tmp")
        try:
            return os.open(tmp, flags, 0o666), tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"could not create a temporary file beside {path}")


def atomic_write(path: str | os.PathLike[str], write: Callable[..., Any], mode: str = "w", *, fsync: bool = True) -> None:
    """Write a file all at once — the project's one atomic writer (saved datasets, their
    metadata and parses, the similarity cache, learned models, every output table).

    ``write(fh)`` fills a temporary file ``.NAME.<random>.tmp`` in the same folder (text mode
    ``"w"``: UTF-8, newlines written as given; ``"wb"``: bytes), which then replaces ``path``
    (``os.replace``, atomic on POSIX and Windows). A failed or interrupted run leaves the old
    file (or none), never half a file; the temporary file is removed on failure (a killed
    process may leave it behind: hidden, and never read as data). ``fsync``
    (default): the data reach the disk before the rename, so a power cut cannot leave an empty
    file under the final name, and the folder is synced after it, so the rename itself is on
    disk when the call returns (POSIX; skipped where a folder cannot be opened, as on Windows);
    caches that are recomputed when unreadable may skip both. The
    new file gets the permissions ``open()`` would give it (0o666 less the umask)."""
    path = Path(path)
    fd, tmp = _temporary_beside(path)
    try:
        kw: dict[str, Any] = {"encoding": "utf-8", "newline": ""} if "b" not in mode else {}
        with os.fdopen(fd, mode, **kw) as fh:
            write(fh)
            if fsync:
                fh.flush()
                os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    if fsync:
        _fsync_folder(path.parent)


def _fsync_folder(folder: Path) -> None:
    """Sync a folder's entries (a rename in it) to disk; a no-op where folders cannot be opened."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_table(df: pd.DataFrame, path: str | os.PathLike[str], **to_csv_kw: Any) -> None:
    """Write a table atomically: a ``.csv`` path gets comma-separated values with formulas
    neutralised (for spreadsheets); any other path gets exact tab-separated values (for tools)."""
    if str(path).lower().endswith(".csv"):
        atomic_write(path, lambda fh: to_safe_csv(df, fh, **to_csv_kw))
    else:
        atomic_write(path, lambda fh: df.to_csv(fh, sep="\t", index=False, **to_csv_kw))


# ---- checking output paths before any work (the CLI and commands that write folders) ----
class OutputError(DataError):
    """Output paths that cannot be written; raised before any work (exit code 2)."""

    def __init__(self, report: Report) -> None:
        super().__init__(report)
        n = len(report.errors)
        self.args = (f"{n} problem{'s' if n != 1 else ''} with the output path(s); nothing was computed:\n{report}",)


def check_outputs(paths: Iterable[str | os.PathLike[str]]) -> None:
    """Before any work: every output path must be a file we can create or replace. Raises
    :class:`DataError` listing every problem (missing folder, a folder given as the file, a
    read-only location), so a long run never ends in a traceback at the last step.
    Raises :class:`OutputError`."""
    report = Report()
    for p in paths:
        path = Path(p)
        parent = path.parent if str(path.parent) else Path(".")
        if path.is_dir():
            report.error(str(p), None, "is a folder; give a file name for the output")
        elif not parent.exists():
            report.error(str(p), None, f"the folder {str(parent)!r} does not exist; create it first "
                                       "or give another path")
        elif not parent.is_dir():
            report.error(str(p), None, f"{str(parent)!r} is not a folder")
        elif path.exists() and not os.access(path, os.W_OK):
            report.error(str(p), None, "the file exists and cannot be replaced (read-only); "
                                       "give another path")
        else:
            try:  # the honest test: create (and remove) a file there, as the final write will
                fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".check", dir=parent)
                os.close(fd)
                os.unlink(tmp)
            except OSError as exc:
                report.error(str(p), None, f"cannot write in the folder {str(parent)!r} "
                                           f"({exc.strerror or exc}); give another path")
    if report.errors:
        raise OutputError(report)


# ---- LaTeX tables for papers (every page's LaTeX download goes through latex_table) ----
#: characters pdflatex cannot typeset from UTF-8 input, as LaTeX (amssymb for the triangles)
LATEX_SYMBOLS = {
    "▲": r"$\blacktriangle$", "▼": r"$\blacktriangledown$", "≈": r"$\approx$", "±": r"$\pm$",
    "−": "-", "–": "--", "—": "---", "×": r"$\times$", "≥": r"$\geq$", "≤": r"$\leq$", "≠": r"$\neq$",
    "→": r"$\rightarrow$", "←": r"$\leftarrow$", "…": r"\ldots{}", "·": r"$\cdot$", "✓": "yes", "✗": "no",
    "ρ": r"$\rho$", "τ": r"$\tau$", "α": r"$\alpha$", "β": r"$\beta$", "κ": r"$\kappa$", "σ": r"$\sigma$",
    "μ": r"$\mu$", "Δ": r"$\Delta$", "δ": r"$\delta$", "χ": r"$\chi$", "²": r"$^2$", "°": r"$^\circ$",
    "\u00a0": "~", "\u2009": r"\,", "‘": "`", "’": "'", "“": "``", "”": "''",
}
_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                  "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
                  "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}"}
#: what a missing value (NaN, None, ``nan`` text) is written as
LATEX_MISSING = "--"
_NUMBER_TEXT = re.compile(r"[▲▼≈]?\s*[+\-−]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?\s*%?")
_MISSING_TEXT = {"nan", "NaN", "<NA>", "None", "NaT"}


def latex_escape(text: str) -> str:
    """``text`` as LaTeX source that prints it literally: the ten special characters escaped,
    the Unicode symbols of :data:`LATEX_SYMBOLS` as LaTeX commands, control characters and line
    breaks as spaces (a line break would end a ``%`` comment or a table row)."""
    out = []
    for ch in str(text):
        if ch in _LATEX_SPECIAL:
            out.append(_LATEX_SPECIAL[ch])
        elif ch in LATEX_SYMBOLS:
            out.append(LATEX_SYMBOLS[ch])
        elif ch in "\r\n\t\v\f" or ord(ch) < 32:
            out.append(" ")
        else:
            out.append(ch)
    return "".join(out)


def _is_missing(v: Any) -> bool:
    if v is None or v is pd.NA or v is pd.NaT:
        return True
    if isinstance(v, str):
        return v.strip() in _MISSING_TEXT
    try:
        return bool(pd.isna(v))
    except (TypeError, ValueError):
        return False


def _latex_cell(v: Any, digits: int) -> str:
    import numpy as np

    if _is_missing(v):
        return LATEX_MISSING
    if isinstance(v, (bool, np.bool_)):
        return "yes" if v else "no"
    if isinstance(v, (float, np.floating)):
        if not np.isfinite(v):
            return r"$\infty$" if v > 0 else r"$-\infty$"
        return f"{float(v):.{digits}f}"
    return latex_escape(v)


def _numeric_column(col: pd.Series) -> bool:
    """A column of numbers (or of numbers written as text, ``▲ 0.53`` marks included): right-aligned."""
    if pd.api.types.is_bool_dtype(col):
        return False
    if pd.api.types.is_numeric_dtype(col):
        return True
    vals = [v for v in col if not _is_missing(v)]
    if not vals:
        return False
    for v in vals:
        if isinstance(v, bool):
            return False
        if isinstance(v, (int, float)) or (hasattr(v, "dtype") and pd.api.types.is_number(v)):
            continue
        if not (isinstance(v, str) and _NUMBER_TEXT.fullmatch(v.strip())):
            return False
    return True


def latex_table(df: pd.DataFrame, comment: str | None = None, digits: int = 4) -> str:
    """``df`` as a booktabs ``tabular`` for papers (``\\usepackage{booktabs,amssymb}``), valid
    for pdflatex: every cell escaped (:func:`latex_escape`), numeric columns right-aligned and
    text columns left-aligned, floats with ``digits`` decimals (none in a float column of whole
    numbers, such as ranks), missing values as ``--``, the
    ▲/▼/≈ marks of the significance columns as ``$\\blacktriangle$``/``$\\blacktriangledown$``/
    ``$\\approx$``. ``comment`` (e.g. the metric signatures) goes on ``%`` lines above the table,
    its line breaks removed so no user text can leave the comment. The one LaTeX writer of the
    project (every page's LaTeX download)."""
    cols = "".join("r" if _numeric_column(df.iloc[:, i]) else "l" for i in range(df.shape[1]))
    # float columns of whole numbers (ranks, counts with missing values) without decimals
    col_digits = []
    for i in range(df.shape[1]):
        c = df.iloc[:, i]
        whole = False
        if pd.api.types.is_float_dtype(c):
            v = c.to_numpy(dtype=float)
            v = v[~pd.isna(v)]
            whole = len(v) > 0 and bool(((v == v.round()) & (abs(v) < 1e15)).all())
        col_digits.append(0 if whole else digits)
    lines = ["% requires \\usepackage{booktabs} and \\usepackage{amssymb}"]
    if comment:
        lines.append("% " + " ".join(str(comment).split()))
    lines += [f"\\begin{{tabular}}{{{cols}}}", "\\toprule",
              " & ".join(latex_escape(c) for c in df.columns) + r" \\", "\\midrule"]
    lines += [" & ".join(_latex_cell(v, d) for v, d in zip(row, col_digits)) + r" \\"
              for row in df.itertuples(index=False)]
    lines += ["\\bottomrule", "\\end{tabular}"]
    return "\n".join(lines) + "\n"
