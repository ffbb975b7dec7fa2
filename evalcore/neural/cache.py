"""The neural score cache: one score per (model, settings, source, candidate, reference), so a
second command never runs the model again for texts it has scored.

Each row's key is the SHA-256 (first 16 bytes) of the model key — the model's content hash,
the versions of torch / transformers / unbabel-comet / sentence-transformers, the tokenizer
files (part of the model folder's hash), the device type, the precision and the maximum input
length — and of the source, candidate and reference texts. Rows live as Parquet files (columns
``key`` binary(16), ``score`` float64, and for xCOMET ``spans``: the row's error spans as a
JSON list of unbabel-comet's dicts, null where not kept; never pickle) under
``<cache>/neural/<model key>/``
(:func:`evalcore.core.paths.cache_dir`). Every run that computed something adds one file, written
atomically with a unique name, so concurrent processes (Dask workers) never clash; when a
folder holds more than :data:`COMPACT_AT` files they are merged into one.
"""
from __future__ import annotations

import hashlib
import json
import os
import uuid
from pathlib import Path
from typing import Sequence

import numpy as np

COMPACT_AT = 32


def row_keys(model_key: str, srcs: Sequence[str], cands: Sequence[str], refs: Sequence[str]) -> list[bytes]:
    prefix = model_key.encode() + b"\x00"
    out = []
    for s, c, r in zip(srcs, cands, refs):
        h = hashlib.sha256(prefix)
        for t in (s, c, r):
            b = t.encode("utf-8", "surrogatepass")
            h.update(len(b).to_bytes(8, "little"))
            h.update(b)
        out.append(h.digest()[:16])
    return out


def enabled() -> bool:
    return os.environ.get("EVALCORE_NEURAL_CACHE", "1").strip() not in {"0", "off", "no", "false"}


class ScoreCache:
    """The cached scores of one model key (read lazily, once per object; new rows added)."""

    def __init__(self, model_key: str, root: Path | None = None):
        from ..core import paths

        self.model_key = model_key
        self.folder = (root or paths.cache_dir(create=False) / "neural") / hashlib.sha256(model_key.encode()).hexdigest()[:32]
        self._rows: dict[bytes, float] | None = None
        self._spans: dict[bytes, str] = {}  # key -> JSON of the row's error spans (xCOMET)
        self._seen: set[str] = set()

    def _read(self) -> dict[bytes, float]:
        if self._rows is None:
            self._rows = {}
        if not self.folder.is_dir():
            return self._rows
        import pyarrow.parquet as pq

        for f in sorted(self.folder.glob("*.parquet")):
            if f.name in self._seen:
                continue
            try:
                t = pq.read_table(f)
                keys = t.column("key").to_pylist()
                scores = t.column("score").to_numpy(zero_copy_only=False)
            except Exception:  # torn or foreign file: ignored (its rows are recomputed)
                continue
            self._seen.add(f.name)
            self._rows.update(zip(keys, scores))
            if "spans" in t.column_names:
                self._spans.update((k, v) for k, v in zip(keys, t.column("spans").to_pylist()) if v is not None)
        return self._rows

    def get(self, keys: Sequence[bytes]) -> np.ndarray:
        """Scores of ``keys`` (NaN where not cached)."""
        rows = self._read()
        return np.array([rows.get(k, np.nan) for k in keys], dtype=float)

    def get_spans(self, keys: Sequence[bytes]) -> list[list | None]:
        """Error spans of ``keys`` as stored (None where a row has none cached)."""
        self._read()
        return [None if (v := self._spans.get(k)) is None else json.loads(v) for k in keys]

    def put(self, keys: Sequence[bytes], scores: Sequence[float] | np.ndarray, spans: Sequence[list] | None = None) -> None:
        """Add rows; ``spans`` (one list of span dicts per row) are kept beside the scores."""
        if not len(keys):
            return
        import pyarrow as pa
        import pyarrow.parquet as pq

        from ..core.export import atomic_write

        self.folder.mkdir(parents=True, exist_ok=True)
        cols = {"key": pa.array(list(keys), pa.binary(16)), "score": pa.array(np.asarray(scores, float))}
        texts = None
        if spans is not None:
            if len(spans) != len(keys):
                raise ValueError(f"{len(keys)} rows but {len(spans)} span lists")
            texts = [json.dumps(list(sp), ensure_ascii=False, sort_keys=True) for sp in spans]
            cols["spans"] = pa.array(texts, pa.string())
        table = pa.table(cols)
        name = f"part-{uuid.uuid4().hex}.parquet"
        atomic_write(self.folder / name, lambda fh: pq.write_table(table, fh), mode="wb", fsync=False)
        rows = self._read()
        rows.update(zip(keys, map(float, scores)))
        if texts is not None:
            self._spans.update(zip(keys, texts))
        self._compact()

    def _compact(self) -> None:
        parts = sorted(self.folder.glob("part-*.parquet"))
        if len(parts) <= COMPACT_AT:
            return
        import pyarrow as pa
        import pyarrow.parquet as pq

        from ..core.export import atomic_write

        rows = self._read()
        cols = {"key": pa.array(list(rows), pa.binary(16)),
                "score": pa.array(np.fromiter(rows.values(), float, len(rows)))}
        if self._spans:
            cols["spans"] = pa.array([self._spans.get(k) for k in rows], pa.string())
        table = pa.table(cols)
        name = f"part-{uuid.uuid4().hex}.parquet"
        atomic_write(self.folder / name, lambda fh: pq.write_table(table, fh), mode="wb", fsync=False)
        self._seen.add(name)
        for p in parts:  # rows all in the merged file; a reader missing one just recomputes
            try:
                p.unlink()
            except OSError:
                pass
