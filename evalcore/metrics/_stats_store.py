"""The persistent, content-keyed store of per-segment sufficient statistics.

Every text metric whose corpus score is a sum of statistics (BLEU, chrF, TER, NIST, the word
metrics, …) computes one row of statistics per (output, references) item
(:meth:`~evalcore.metrics.base.Metric.segment_stats`); the corpus score, the bootstrap and the
segment scores all follow from those rows. The rows of one scoring pass are kept on disk here,
so that every page, command and session — and a server after a restart — that scores the same
items with the same metric reads them back instead of recomputing them (issue "cold pages":
44 % of a cold Systems request was recomputing them, and `correlate` after the Systems page
recomputed all of it).

**Key** (:func:`key`): SHA-256 of the items' texts themselves (every output and each of its
references, length-prefixed, in order) × the metric (class, id, :meth:`~Metric.signature` — the
tokenizer and every parameter sacreBLEU states —, its plain public parameters, the fitted
corpus state of :meth:`~Metric.shared_state` such as NIST's weights, and the long-segment cap
:data:`~evalcore.metrics.base.MAX_ALIGN_TOKENS`) × the code (:func:`evalcore.cache_version`:
package version and a hash of every source file). An entry is therefore invalidated by a change
of content (a text, the references, the metric's settings, the code) and by nothing else; the
grouping of items into segments does not enter (the rows do not depend on it). Metrics that fit
other corpus state in ``prepare`` without exposing it (syntax parses, neural models) are not
stored.

**Files**: ``<cache>/stats/<key>.npy`` (``np.save``, read with ``allow_pickle=False``: a cache
file cannot run code), written atomically (:func:`evalcore.core.export.atomic_write`: a
temporary file renamed into place, so concurrent writers of one key each leave a whole file and
readers never see half a file). A file that does not read back as a float array of the expected
number of rows is ignored and rewritten.

**Size bound and eviction**: at most :func:`limit_bytes` bytes (``$EVALCORE_STATS_CACHE_MB``,
default 1024). A read touches the file's modification time. Writes hold an exclusive lock on
``<cache>/stats/.lock`` (the workspace's lock helper) and keep the store's byte count in
``<cache>/stats/.size`` (re-counted from the folder every :data:`SCAN_EVERY` writes of a
process, or when it is missing); when a write takes the count past the bound, the entries used
least recently (oldest modification time) are deleted until the store is within it — so
the folder is not listed after every write, which made many small writes quadratic. An entry
larger than the bound alone is not stored. Writers and eviction run
one at a time under the lock; a reader whose file was just evicted recomputes.

**Off switch**: ``$EVALCORE_STATS_CACHE=0`` (or ``off``) disables the store for the process;
:func:`bypassed` disables it for a block of code (the ``--no-cache`` option of ``score`` and
``correlate``).
"""
from __future__ import annotations

import contextlib
import contextvars
import hashlib
import os
import threading
from pathlib import Path
from typing import Iterator, Sequence

import numpy as np

#: default bound of the store in MiB (``$EVALCORE_STATS_CACHE_MB`` overrides it)
DEFAULT_LIMIT_MB = 1024
_OFF = {"0", "off", "no", "false"}
_BYPASS: contextvars.ContextVar[bool] = contextvars.ContextVar("evalcore_stats_store_bypass", default=False)
#: a process lists the whole folder (re-counting the bytes in ``.size``) at least every this many writes
SCAN_EVERY = 64
_WRITES = [0]  # writes by this process since it last listed the folder
_WRITES_LOCK = threading.Lock()


def enabled() -> bool:
    """Whether the store is used here: not switched off by ``$EVALCORE_STATS_CACHE`` nor
    bypassed (:func:`bypassed`)."""
    return not _BYPASS.get() and os.environ.get("EVALCORE_STATS_CACHE", "1").strip().lower() not in _OFF


@contextlib.contextmanager
def bypassed(active: bool = True, workers: bool = False) -> Iterator[None]:
    """Within the block (this thread or task), neither read nor write the store when ``active``.
    ``workers``: also set ``$EVALCORE_STATS_CACHE=0`` for the block, so that worker processes
    started in it (``--scheduler local:N``) bypass it too (a command's whole run; restored after)."""
    token = _BYPASS.set(bool(active) or _BYPASS.get())
    old = os.environ.get("EVALCORE_STATS_CACHE")
    if active and workers:
        os.environ["EVALCORE_STATS_CACHE"] = "0"
    try:
        yield
    finally:
        _BYPASS.reset(token)
        if active and workers:
            if old is None:
                os.environ.pop("EVALCORE_STATS_CACHE", None)
            else:
                os.environ["EVALCORE_STATS_CACHE"] = old


def limit_bytes() -> int:
    """The store's size bound in bytes: ``$EVALCORE_STATS_CACHE_MB`` MiB (default
    :data:`DEFAULT_LIMIT_MB`)."""
    raw = os.environ.get("EVALCORE_STATS_CACHE_MB", "").strip()
    try:
        mb = float(raw) if raw else float(DEFAULT_LIMIT_MB)
    except ValueError:
        raise ValueError(f"EVALCORE_STATS_CACHE_MB must be a number of MiB, not {raw!r}") from None
    return max(0, int(mb * 2 ** 20))


def folder(create: bool = True) -> Path:
    """``<cache>/stats`` (:func:`evalcore.core.paths.cache_dir`)."""
    from ..core import paths

    d = paths.cache_dir(create) / "stats"
    if create:
        d.mkdir(parents=True, exist_ok=True)
    return d


def storable(metric) -> bool:
    """Whether ``metric``'s statistics rows are a function of the texts and its key alone: a
    text metric whose ``prepare`` fits nothing, or whose fitted state is its ``shared_state``."""
    from .base import Metric

    if not metric.meta.needs_text:
        return False
    return type(metric).prepare is Metric.prepare or metric.shared_state is not None


def texts_digest(cands: Sequence[str], refs: Sequence[Sequence[str]]) -> bytes:
    """SHA-256 of the items: each output, then the number of its references and each reference,
    every text length-prefixed (no two different item lists share a digest)."""
    h = hashlib.sha256()
    up = h.update
    up(len(cands).to_bytes(8, "little"))
    for c, rs in zip(cands, refs, strict=True):
        b = c.encode("utf-8", "surrogatepass")
        up(len(b).to_bytes(8, "little"))
        up(b)
        up(len(rs).to_bytes(4, "little"))
        for r in rs:
            b = r.encode("utf-8", "surrogatepass")
            up(len(b).to_bytes(8, "little"))
            up(b)
    return h.digest()


def _plain(value) -> bool:
    if isinstance(value, (tuple, list)):
        return all(_plain(v) for v in value)
    return value is None or isinstance(value, (str, int, float, bool))


def metric_fingerprint(metric) -> str:
    """What, besides the texts, the statistics rows depend on (module docstring)."""
    from .. import cache_version
    from .base import MAX_ALIGN_TOKENS

    params = sorted((k, repr(v)) for k, v in vars(metric).items() if not k.startswith("_") and _plain(v))
    parts = [f"{type(metric).__module__}.{type(metric).__qualname__}", metric.id, str(metric.signature()),
             repr(params), f"align-cap:{MAX_ALIGN_TOKENS}", cache_version()]
    state = metric.shared_state
    if state is not None:
        h = hashlib.sha256()
        for name, arr in sorted(state.to_arrays().items()):
            a = np.ascontiguousarray(arr)
            h.update(f"{name}:{a.dtype.str}:{a.shape}".encode())
            h.update(a.tobytes())
        parts.append(h.hexdigest())
    return "\n".join(parts)


def key(metric, digest: bytes) -> str:
    """The entry's name: SHA-256 of the metric's fingerprint and the items' digest."""
    return hashlib.sha256(metric_fingerprint(metric).encode() + b"\n" + digest).hexdigest()


def get(metric, digest: bytes, n_rows: int) -> np.ndarray | None:
    """The stored statistics (``n_rows`` rows) of the items with ``digest``, or None (not
    stored, store off, unreadable). A hit becomes the most recently used entry."""
    if not enabled() or not storable(metric):
        return None
    path = folder() / f"{key(metric, digest)}.npy"
    try:
        arr = np.load(path, allow_pickle=False)
    except (OSError, ValueError, EOFError):  # absent, evicted meanwhile, torn or tampered
        return None
    if arr.ndim != 2 or arr.shape[0] != n_rows or arr.dtype.kind != "f":
        return None
    try:
        os.utime(path)  # the least recently used entries go first
    except OSError:
        pass
    return arr


def put(metric, digest: bytes, stats: np.ndarray) -> bool:
    """Store ``stats`` for the items with ``digest`` (atomically), then evict down to the
    bound; returns whether it was stored. A full disk or a read-only cache never stops a
    computation."""
    if not enabled() or not storable(metric):
        return False
    from ..core.export import atomic_write

    arr = np.ascontiguousarray(stats, dtype=float)
    if arr.nbytes + 128 > limit_bytes():
        return False
    from ..io.workspace import _lock

    try:
        d = folder()
        path = d / f"{key(metric, digest)}.npy"
        with _lock(d / ".lock"):  # one writer at a time: the byte count stays exact
            try:
                old = path.stat().st_size
            except FileNotFoundError:
                old = 0
            atomic_write(path, lambda fh: np.save(fh, arr, allow_pickle=False), mode="wb", fsync=False)
            total = _read_total(d)
            with _WRITES_LOCK:
                _WRITES[0] += 1
                rescan = total is None or _WRITES[0] >= SCAN_EVERY
                if rescan:
                    _WRITES[0] = 0
            if rescan:  # (also corrects a count left wrong by files removed by hand)
                total = sum(size for _, size, _ in entries(d))
            else:
                assert total is not None  # rescan when the total is unknown
                total += path.stat().st_size - old
            if total > limit_bytes():
                total = _evict_locked(d, limit_bytes())
            _write_total(d, total)
    except OSError:
        return False
    return True


def _read_total(d: Path) -> int | None:
    """The store's bytes as counted in ``<stats>/.size`` (None: absent or unreadable)."""
    try:
        return int((d / ".size").read_text().strip())
    except (OSError, ValueError):
        return None


def _write_total(d: Path, total: int) -> None:
    from ..core.export import atomic_write

    atomic_write(d / ".size", lambda fh: fh.write(f"{int(total)}\n"), fsync=False)


def entries(d: Path | None = None) -> list[tuple[float, int, Path]]:
    """(modification time, bytes, path) of every entry, least recently used first."""
    d = folder() if d is None else d
    out = []
    for p in d.glob("*.npy"):
        try:
            st = p.stat()
        except OSError:  # removed meanwhile
            continue
        out.append((st.st_mtime, st.st_size, p))
    return sorted(out, key=lambda e: (e[0], e[2].name))


def evict(d: Path | None = None, limit: int | None = None) -> int:
    """Delete the least recently used entries until the store holds at most ``limit`` bytes
    (default :func:`limit_bytes`), under the store's lock; returns the bytes left."""
    from ..io.workspace import _lock

    d = folder() if d is None else d
    with _lock(d / ".lock"):
        total = _evict_locked(d, limit_bytes() if limit is None else limit)
        _write_total(d, total)
    return total


def _evict_locked(d: Path, limit: int) -> int:
    """:func:`evict` for a caller holding the lock: lists the folder; returns the bytes left."""
    found = entries(d)
    total = sum(size for _, size, _ in found)
    for _, size, p in found:
        if total <= limit:
            break
        try:
            p.unlink()
        except FileNotFoundError:
            pass
        total -= size
    return total


def cached_stats(metric, cands: Sequence[str], refs: Sequence[Sequence[str]], compute,
                 digest: bytes | None = None, on_hit=None) -> np.ndarray:
    """``compute()`` (the statistics rows of the items), read from or written to the store;
    ``on_hit()`` is called when they were read (e.g. to report the work as done)."""
    if not enabled() or not storable(metric) or not len(cands):
        return compute()
    digest = texts_digest(cands, refs) if digest is None else digest
    hit = get(metric, digest, len(cands))
    if hit is not None:
        if on_hit is not None:
            on_hit()
        return hit
    stats = compute()
    put(metric, digest, stats)
    return stats
