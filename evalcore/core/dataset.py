"""The in-memory data model: one language pair of one test set.

A :class:`Dataset` holds

* ``segments``   – seg_id (str), doc_id (str, may be ""), source (str, may be "");
  the row order is the segment order everywhere else;
* ``references`` – seg_id, ref_id, text: a *variable* number of references per segment,
  each belonging to a named reference set (a segment may lack some sets);
* ``outputs``    – system, seg_id, text: any number of systems;
* ``judgements`` – system, seg_id, rater, judgement, score (float), in long form. ``system``
  may name an MT system *or* a reference set: human translations are judged like systems.
  A judged system or reference set need not have text (then it is usable wherever no text
  is needed, e.g. correlations with given metric scores);
* ``tags``       – system, seg_id, tag: optional phenomenon tags of outputs;
* ``extras``     – other tables a loader found (e.g. ``postedits``, ``mqm_errors``,
  ``metric_scores``), keyed by name;
* ``warnings``   – the validation warnings the loader reported.

Nothing here imports streamlit. A Dataset is treated as immutable once built: derived views
(ids, aligned texts, the content hash) are memoised.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any, Iterable, cast

import numpy as np
import pandas as pd

from ..core.problems import Problem

SEGMENT_COLUMNS = ["seg_id", "doc_id", "source"]
REFERENCE_COLUMNS = ["seg_id", "ref_id", "text"]
OUTPUT_COLUMNS = ["system", "seg_id", "text"]
JUDGEMENT_COLUMNS = ["system", "seg_id", "rater", "judgement", "score"]
TAG_COLUMNS = ["system", "seg_id", "tag"]


def _token_counts(texts: pd.Series) -> pd.Series:
    """Whitespace tokens per text (missing stays missing)."""
    # .str.len() counts the items of each split list at run time; pandas-stubs types it for str only
    return texts.str.split().str.len()  # type: ignore[misc]


def _first_seen(values: pd.Series) -> list[str]:
    """The distinct values in order of first appearance, as ``list(dict.fromkeys(values))``
    gives them, without a Python object per row (pandas' string columns are Arrow arrays)."""
    return list(pd.unique(values))


def _empty(columns: list[str]) -> pd.DataFrame:
    return pd.DataFrame({c: pd.Series(dtype="float64" if c == "score" else "object") for c in columns})


@dataclass
class Dataset:
    name: str
    lp: str
    segments: pd.DataFrame
    references: pd.DataFrame = field(default_factory=lambda: _empty(REFERENCE_COLUMNS))
    outputs: pd.DataFrame = field(default_factory=lambda: _empty(OUTPUT_COLUMNS))
    judgements: pd.DataFrame = field(default_factory=lambda: _empty(JUDGEMENT_COLUMNS))
    tags: pd.DataFrame = field(default_factory=lambda: _empty(TAG_COLUMNS))
    extras: dict[str, pd.DataFrame] = field(default_factory=dict)
    warnings: list[Problem] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.segments = self.segments.reset_index(drop=True)
        for col in SEGMENT_COLUMNS:
            if col not in self.segments:
                self.segments[col] = ""
        self.segments = self.segments[SEGMENT_COLUMNS].astype(str)
        self.judgements = self.judgements.astype({"score": "float64"})
        self._cache: dict[str, Any] = {}

    # ---- identities -------------------------------------------------------------------
    @property
    def seg_ids(self) -> list[str]:
        if "seg_ids" not in self._cache:
            self._cache["seg_ids"] = self.segments["seg_id"].tolist()
        return list(self._cache["seg_ids"])

    @property
    def n_segments(self) -> int:
        return len(self.segments)

    @property
    def ref_ids(self) -> list[str]:
        """Reference sets in order of first appearance."""
        if "ref_ids" not in self._cache:
            self._cache["ref_ids"] = _first_seen(self.references["ref_id"])
        return list(self._cache["ref_ids"])

    @property
    def systems(self) -> list[str]:
        """Systems with text, in order of first appearance."""
        if "systems" not in self._cache:
            self._cache["systems"] = _first_seen(self.outputs["system"])
        return list(self._cache["systems"])

    @property
    def judged(self) -> list[str]:
        """Every system or reference set that has at least one judgement."""
        return self._names("judged", "judgements", "system")

    @property
    def criteria(self) -> list[str]:
        return self._names("criteria", "judgements", "judgement")

    @property
    def raters(self) -> list[str]:
        return self._names("raters", "judgements", "rater")

    def _names(self, key: str, table: str, column: str) -> list[str]:
        """The distinct values of ``table[column]`` in order of first appearance, memoised (a
        copy of the list is returned)."""
        if key not in self._cache:
            self._cache[key] = _first_seen(getattr(self, table)[column])
        return list(self._cache[key])

    def names_known(self, **names: list[str]) -> "Dataset":
        """Take the distinct names a loader has at hand (``ref_ids``, ``systems``, ``judged``,
        ``criteria``, ``raters``: each the list its property would compute, in order of first
        appearance) instead of computing them again; returns self."""
        unknown = set(names) - {"ref_ids", "systems", "judged", "criteria", "raters"}
        if unknown:
            raise ValueError(f"not a list of names of a dataset: {', '.join(sorted(unknown))}")
        self._cache.update({k: list(v) for k, v in names.items()})
        return self

    def ref_segment_codes(self) -> tuple[np.ndarray, pd.Index]:
        """The references' seg_id factorised (``pandas.factorize``: a missing id is -1) and its
        distinct values; memoised (the per-segment counts of :meth:`refs_per_segment` and of
        :mod:`evalcore.core.capabilities` share it)."""
        if "ref_segment_codes" not in self._cache:
            self._cache["ref_segment_codes"] = pd.factorize(self.references["seg_id"])
        return cast(tuple[np.ndarray, pd.Index], self._cache["ref_segment_codes"])

    def per_segment(self, per_value: np.ndarray) -> np.ndarray:
        """``pd.Series(per_value, index=values).reindex(segments' seg_id, fill_value=0)`` as an
        int64 array, for ``values`` the distinct ids of :meth:`ref_segment_codes` (a count per
        distinct referenced id, laid out per segment, 0 where no reference names the segment).
        Where each segment's id sits among those values is looked up once per dataset
        (:meth:`_segment_lookup`), not once per count: four counts of a 100k-segment campaign
        hashed its ids four times (0.05 CPU-s each when the references are not in segment
        order)."""
        pos = self._segment_lookup()
        out = np.zeros(len(pos), dtype=np.int64)
        hit = pos >= 0
        out[hit] = np.asarray(per_value)[pos[hit]]
        return out

    def _segment_lookup(self) -> np.ndarray:
        """Per segment: the position of its id among :meth:`ref_segment_codes`' distinct values,
        or -1 (what ``Index.get_indexer`` gives); memoised. Both columns Arrow-backed strings:
        Arrow's ``index_in`` (a plain compute kernel: no thread pool), with the same answer (the
        values are distinct and hold no missing id; strings are equal when their bytes are);
        otherwise pandas' ``get_indexer``."""
        if "segment_lookup" not in self._cache:
            values = self.ref_segment_codes()[1]
            seg = self.segments["seg_id"]
            mine = getattr(seg.array, "_pa_array", None)
            theirs = getattr(values.array, "_pa_array", None)
            if mine is not None and theirs is not None and len(values) and len(seg) \
                    and mine.type == theirs.type and str(mine.type) in ("string", "large_string"):
                import pyarrow.compute as pc

                found = pc.index_in(mine, value_set=theirs.combine_chunks())
                pos = np.asarray(pc.fill_null(found, -1).to_numpy(), dtype=np.int64)
            else:
                pos = np.asarray(values.get_indexer(pd.Index(seg)), dtype=np.int64)
            self._cache["segment_lookup"] = pos
        return cast(np.ndarray, self._cache["segment_lookup"])

    def is_reference(self, name: str) -> bool:
        return name in set(self.references["ref_id"])

    # ---- aligned views ------------------------------------------------------------------
    def _aligned(self, frame: pd.DataFrame, key: str) -> dict[str, list[str | None]]:
        pos = {s: i for i, s in enumerate(self.seg_ids)}
        out: dict[str, list[str | None]] = {}
        for name, sub in frame.groupby(key, sort=False):
            col: list[str | None] = [None] * len(pos)
            for seg, text in zip(sub["seg_id"], sub["text"]):
                col[pos[seg]] = text
            out[cast(str, name)] = col  # the id columns hold str
        return out

    def ref_texts(self) -> dict[str, list[str | None]]:
        """ref_id -> texts aligned with :attr:`seg_ids` (None where the set lacks the segment)."""
        if "ref_texts" not in self._cache:
            self._cache["ref_texts"] = self._aligned(self.references, "ref_id")
        return cast(dict[str, list[str | None]], self._cache["ref_texts"])

    def sys_texts(self) -> dict[str, list[str | None]]:
        """system -> output texts aligned with :attr:`seg_ids` (None where missing)."""
        if "sys_texts" not in self._cache:
            self._cache["sys_texts"] = self._aligned(self.outputs, "system")
        return cast(dict[str, list[str | None]], self._cache["sys_texts"])

    def compact_texts(self) -> "Dataset":
        """Re-create the ``text`` columns' strings together, in place (the values, their order
        and the object dtype are unchanged); returns self. A loader parses a file row by row, so
        each text is allocated between that row's other fields, its line and its row list;
        when those are freed the texts keep their memory pages in use, mostly empty (measured:
        a 100k-segment × 10-system × 4-reference campaign loaded in 871 MB of resident memory;
        compacted, 574 MB). Here every text is copied into one Arrow buffer, the old strings
        are freed, and new ones are made from the buffer in one pass (0.5 s at that size).
        Called by the loaders once a data set is built, before any view of it is memoised."""
        import pyarrow as pa

        if self._cache.get("texts_compact"):
            return self
        for frame in (self.references, self.outputs):
            if "text" not in frame or not len(frame) or frame["text"].dtype != object:
                continue
            values = frame["text"].to_numpy()
            if not all(type(v) is str for v in values):
                continue  # missing texts (None / NaN) stay as they are
            buf = pa.array(values, type=pa.large_string())
            del values
            frame["text"] = None  # the old strings go before the new ones are made
            fresh = np.empty(len(buf), dtype=object)
            fresh[:] = buf.to_pylist()
            del buf
            frame["text"] = pd.Series(fresh, index=frame.index, dtype=object)
        self._cache.pop("ref_texts", None)
        self._cache.pop("sys_texts", None)
        return self

    def texts_are_compact(self) -> "Dataset":
        """Say that the texts were made together already (a loader that builds them from one
        Arrow buffer): :meth:`compact_texts` then leaves them as they are. Returns self."""
        self._cache["texts_compact"] = True
        return self

    def refs_per_segment(self) -> np.ndarray:
        """References per segment (in :attr:`seg_ids` order): ``groupby("seg_id").size()``
        reindexed by the segments, counted from the memoised codes."""
        codes, values = self.ref_segment_codes()
        return self.per_segment(np.bincount(codes[codes >= 0], minlength=len(values)))

    def with_references(self, ref_ids: list[str]) -> "Dataset":
        """A copy restricted to the given reference sets (in that order)."""
        unknown = [r for r in ref_ids if r not in self.ref_ids]
        if unknown:
            raise ValueError(f"unknown reference set(s) {unknown}; available: {self.ref_ids}")
        refs = self.references[self.references["ref_id"].isin(ref_ids)].copy()
        order = {r: i for i, r in enumerate(ref_ids)}
        refs = refs.sort_values("ref_id", key=lambda s: s.map(order), kind="stable")
        return Dataset(self.name, self.lp, self.segments, refs, self.outputs, self.judgements,
                       self.tags, dict(self.extras), list(self.warnings))

    def subset(self, seg_ids: Iterable[str] | None = None, systems: Iterable[str] | None = None) -> "Dataset":
        """A copy restricted to the segments ``seg_ids`` and/or the systems ``systems`` (None:
        all), in the dataset's own order; the one place a dataset is cut down.

        Segments: every table with a ``seg_id`` column (segments, references, outputs,
        judgements, tags and the extras) keeps only those segments; an extra keyed by document
        (a ``doc_id`` column and no ``seg_id``: the reading-comprehension answers) keeps only the
        documents that still have a segment, so the subset saves and loads back. Systems:
        outputs and tags keep only those systems; judgements and the extras with a ``system``
        column (comprehension answers, MQM error rows, stored scores) keep those systems and
        every reference set (human translations are judged like systems).
        Unknown segment ids or system names raise ``ValueError`` naming them."""
        seg_keep = sys_keep = None
        if seg_ids is not None:
            seg_keep = {str(s) for s in seg_ids}
            unknown = sorted(seg_keep - set(self.seg_ids))
            if unknown:
                raise ValueError(f"unknown segment id(s) {unknown[:10]}{' …' if len(unknown) > 10 else ''}")
        if systems is not None:
            sys_keep = {str(s) for s in systems}
            unknown = sorted(sys_keep - set(self.systems) - set(self.judged))
            if unknown:
                raise ValueError(f"unknown system(s) {unknown}; available: {self.systems}")
        refs = set(self.references["ref_id"])
        docs = None  # the documents left, for the tables keyed by document
        if seg_keep is not None and "doc_id" in self.segments:
            kept = self.segments["seg_id"].astype(str).isin(seg_keep)
            docs = set(self.segments.loc[kept, "doc_id"].astype(str))

        def cut(frame: Any, judgements: bool = False) -> Any:
            if not isinstance(frame, pd.DataFrame):
                return frame
            mask = np.ones(len(frame), dtype=bool)
            if seg_keep is not None and "seg_id" in frame:
                mask &= frame["seg_id"].astype(str).isin(seg_keep).to_numpy()
            elif docs is not None and "doc_id" in frame:
                mask &= frame["doc_id"].astype(str).isin(docs).to_numpy()
            if sys_keep is not None and "system" in frame:
                keep = sys_keep | refs if judgements else sys_keep
                mask &= frame["system"].astype(str).isin(keep).to_numpy()
            return frame[mask].reset_index(drop=True) if not mask.all() else frame.reset_index(drop=True)

        return Dataset(self.name, self.lp, cut(self.segments), cut(self.references), cut(self.outputs),
                       cut(self.judgements, judgements=True), cut(self.tags),
                       {k: cut(v, judgements=True) for k, v in self.extras.items()}, list(self.warnings))

    # ---- summaries ----------------------------------------------------------------------
    def overview(self) -> dict[str, Any]:
        rps = self.refs_per_segment()
        return {
            "language pair": self.lp or "-",
            "segments": self.n_segments,
            "reference sets": len(self.ref_ids),
            "references per segment (min-max)": f"{rps.min() if len(rps) else 0}-{rps.max() if len(rps) else 0}",
            "systems with text": len(self.systems),
            "judged systems/references": len(self.judged),
            "judgements": len(self.judgements),
            "criteria": ", ".join(self.criteria) or "-",
            "raters": len(self.raters),
        }

    def judgement_counts(self) -> pd.DataFrame:
        """Judgements per criterion and rater."""
        if self.judgements.empty:
            return pd.DataFrame(columns=["judgement", "rater", "n"])
        return (self.judgements.groupby(["judgement", "rater"], sort=False).size()
                .rename("n").reset_index())

    def wide_table(self) -> pd.DataFrame:
        """One row per segment: source, every reference and every output side by side."""
        wide = self.segments.copy()
        for ref, texts in self.ref_texts().items():
            wide[f"ref:{ref}"] = texts
        for sys_, texts in self.sys_texts().items():
            wide[f"sys:{sys_}"] = texts
        return wide

    def length_table(self) -> pd.DataFrame:
        """Whitespace token lengths of every text: kind (source/reference/output), name, seg_id, length."""
        parts = [pd.DataFrame({"kind": "source", "name": "source", "seg_id": self.segments["seg_id"],
                               "length": _token_counts(self.segments["source"])})]
        if len(self.references):
            parts.append(pd.DataFrame({"kind": "reference", "name": self.references["ref_id"],
                                       "seg_id": self.references["seg_id"],
                                       "length": _token_counts(self.references["text"])}))
        if len(self.outputs):
            parts.append(pd.DataFrame({"kind": "output", "name": self.outputs["system"],
                                       "seg_id": self.outputs["seg_id"],
                                       "length": _token_counts(self.outputs["text"])}))
        return pd.concat(parts, ignore_index=True)

    # ---- identity by content -------------------------------------------------------------
    def content_hash(self) -> str:
        """SHA-256 over a canonical serialisation of every table (used as a cache key)."""
        if "hash" not in self._cache:
            h = hashlib.sha256()
            h.update(f"{self.lp}\n".encode())
            tables = [("segments", self.segments), ("references", self.references),
                      ("outputs", self.outputs), ("judgements", self.judgements), ("tags", self.tags)]
            tables += sorted(self.extras.items())
            for tname, frame in tables:
                h.update(f"\x00{tname}\x00".encode())
                # the same bytes as the whole table's to_csv, 50,000 rows at a time (a 100k-segment
                # campaign's outputs are ~100 MB of text: no second copy of it at once)
                for a in range(0, max(len(frame), 1), 50_000):
                    h.update(frame.iloc[a:a + 50_000].to_csv(sep="\t", index=False, header=a == 0,
                                                             lineterminator="\n").encode())
            self._cache["hash"] = h.hexdigest()
        return cast(str, self._cache["hash"])
