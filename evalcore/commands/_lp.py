"""One mechanism for ``--lp all`` and the ``lp`` column of every command's tables.

Commands get their dataset through :func:`dataset` and write every table through :func:`emit`,
which puts an ``lp`` column first (single language pair too, so the schema is stable).
A command opts in with ``LP_ALL = True`` (others refuse ``--lp all`` with a message, so no
file is written once per pair over itself). ``evalcore.cli`` calls :func:`run_all` when
``--lp all`` is given: the collection is loaded
once, the command runs once per language pair, and the tables of all pairs are concatenated
per destination (``--out`` file or stdout, per section) and written at the end. A language pair
the command cannot handle (e.g. QARLA with one reference set) is reported on stderr and left
out; the exit code is 2 only when no language pair succeeded.
"""
from __future__ import annotations

import copy
import sys
from typing import Callable, Sequence

import pandas as pd

ALL = "all"


def dataset(args):
    """The Dataset of ``args`` (``args.path``, ``args.lp``); from the collection loaded once by
    :func:`run_all` under ``--lp all``."""
    coll = getattr(args, "_collection", None)
    if coll is not None:
        ds = coll[args.lp]
    else:
        from ..io import load_dataset

        ds = load_dataset(args.path, lp=args.lp)
    args._lp_value = ds.lp
    from ..io import split_key

    # a root of several test sets: keys "<test set>/<lp>"; tables get a test_set column
    args._test_set = split_key(args.lp or "")[0]
    from ..metrics.byo import register_stored

    register_stored(ds)  # its stored metric scores as ``stored:NAME`` ids
    return ds


def with_lp(df: pd.DataFrame, lp: str, test_set: str = "") -> pd.DataFrame:
    """``df`` with the ``lp`` column first (kept when present), and before it a ``test_set``
    column when the data is one test set of a root of several (``test_set`` given)."""
    out = df
    if "lp" not in df.columns:
        out = df.copy()
        out.insert(0, "lp", lp or "")
    if test_set and "test_set" not in out.columns:
        out = out.copy() if out is df else out
        out.insert(0, "test_set", test_set)
    return out


class Sink:
    """Tables collected per (destination, section) while every language pair runs."""

    def __init__(self):
        self.parts: dict[tuple, list] = {}
        self.fmt: dict[tuple, str | None] = {}
        self.notes: dict[tuple, list[str]] = {}
        # (destination, section) -> f(concatenated table) -> table with rows pooled over the
        # language pairs (correlate --method accuracy: the global pairwise accuracy row)
        self.pool: dict[tuple, Callable[[pd.DataFrame], pd.DataFrame]] = {}

    def add(self, dest, section, df, float_format, note=None, lp="", notes=()):
        key = (dest, section)
        self.parts.setdefault(key, []).append(df)
        self.fmt[key] = float_format
        for n in ([note] if note else []) + list(notes):
            self.notes.setdefault(key, []).append(f"{lp or '-'}: {n}")

    def flush(self) -> None:
        first_stdout = True
        for (dest, section), frames in self.parts.items():
            frames = [f for f in frames if len(f.columns)]
            table = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
            if (dest, section) in self.pool:
                table = self.pool[(dest, section)](table)
            _write(table, dest, section, self.fmt[(dest, section)], first=first_stdout,
                   notes=self.notes.get((dest, section), []))
            if dest is None:
                first_stdout = False


def _write(df: pd.DataFrame, dest, section, float_format, first: bool = True, notes=()) -> None:
    """A file (atomically; ``.csv``: for spreadsheets, see :func:`evalcore.core.export.write_table`)
    or stdout; ``notes`` follow the table as ``#`` lines on stdout, on stderr for a file."""
    if dest:
        from ..core.export import write_table

        write_table(df, dest, float_format=float_format)
        print(f"wrote {len(df)} rows to {dest}", file=sys.stderr)
        for n in notes:
            print(n, file=sys.stderr)
        return
    if section:
        sys.stdout.write(("" if first else "\n") + f"# {section}\n")
    df.to_csv(sys.stdout, sep="\t", index=False, float_format=float_format)
    for n in notes:
        sys.stdout.write(f"# {n}\n")


def emit(df: pd.DataFrame, dest: str | None, args, section: str | None = None,
         float_format: str | None = None, first: bool = True, note: str | None = None,
         notes: Sequence[str] = ()) -> None:
    """Write ``df`` (with the ``lp`` column) to ``dest`` (None: stdout, under ``# section``
    when given; ``note``, then ``notes``: comment lines after it), or keep it for the end of an
    ``--lp all`` run (notes then name their language pair)."""
    lp = getattr(args, "_lp_value", None) or getattr(args, "lp", None) or ""
    df = with_lp(df, lp, getattr(args, "_test_set", "") or "")
    sink = getattr(args, "_sink", None)
    if sink is not None:
        sink.add(dest, section, df, float_format, note, lp, notes=notes)
    else:
        _write(df, dest, section, float_format, first=first, notes=([note] if note else []) + list(notes))


def emit_result(res, dest: str | None, args, section: str | None = None, float_format: str | None = None,
                first: bool = True, note: str | None = None) -> None:
    """Write a :class:`~evalcore.core.results.Result`: its warnings at once on stderr
    (``warning: ...``), its table through :func:`emit` with ``note`` and then its notes as the
    comment lines after it (on stderr when written to a file)."""
    for w in res.warnings:
        print(f"warning: {w}", file=sys.stderr)
    emit(res.table, dest, args, section=section, float_format=float_format, first=first, note=note, notes=res.notes)


def run_all(args) -> int:
    """Run ``args._run`` once per language pair of ``args.path`` (see the module docstring)."""
    from ..io import load_collection

    coll = load_collection(args.path, fmt=getattr(args, "fmt", None))
    sink = Sink()
    failed, ok = [], 0
    text_output = getattr(args, "_text_output", False)
    for lp in coll:
        a = copy.copy(args)
        a.lp, a._collection, a._sink, a._lp_value = lp, coll, sink, lp
        print(f"== {lp or '-'}", file=sys.stderr)
        if text_output:
            print(f"# == language pair {lp or '-'} ==")
        try:
            rc = int(a._run(a) or 0)
        except (KeyError, ValueError) as exc:
            msg = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
            failed.append((lp, str(msg)))
            continue
        if rc:
            failed.append((lp, f"exit code {rc}"))
        else:
            ok += 1
    sink.flush()
    for lp, msg in failed:
        print(f"{lp or '-'}: left out: {msg}", file=sys.stderr)
    print(f"--lp all: {ok} of {len(coll)} language pair(s) done"
          + (f", {len(failed)} left out (see above)" if failed else ""), file=sys.stderr)
    return 0 if ok else 2
