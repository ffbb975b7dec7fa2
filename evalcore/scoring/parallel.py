"""Batch work on Dask distributed: ``--scheduler none | local:N | tcp://HOST:PORT``.

Scoring and similarity tensors are sums / stacks over segments (methods §0-0.3: a corpus score
is computed from summed per-segment sufficient statistics, Papineni et al. 2002), so they split
into segment blocks that run anywhere and are put back together in segment order:

* :func:`score_table` – like :func:`evalcore.metrics.engine.score_table`; at segment level the
  block's sentence scores, at system level the block's per-segment statistics, concatenated in
  segment order before ``score_from_stats`` — the same arrays as in-process, so the same floats.
* :func:`similarity_tensors_many` – like the engine's, the blocks' tensors placed on the full
  (system, segment, reference) axes.

Corpus-wide preparation (NIST information weights) runs once, in this process, on the whole
dataset, and the prepared metric objects are shipped to the workers, which never prepare
again. Bring-your-own scores and syntactic metrics (which need this process's parses) are
computed in-process. ``none`` (the default) runs everything in-process, as before.

A :class:`Scheduler` is a context manager; ``local:N`` starts a ``distributed.LocalCluster``
(N worker processes, one thread each, no dashboard, loopback only) and stops it on exit;
``tcp://…`` connects to a running cluster (``dask scheduler`` / ``dask worker``; evalcore
must be importable on the workers). A task that raises on a worker stops the run with
:class:`SchedulerError` naming the task and the worker's exception.
"""
from __future__ import annotations

import functools
import math
import re
import sys
import time
from typing import TYPE_CHECKING, Callable, Sequence

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    from distributed import Client, LocalCluster

Progress = Callable[[int, int], None] | None

_LOCAL = re.compile(r"^local:(\d+)$")
_TCP = re.compile(r"^tcp://[^\s:/]+:\d+$")


#: how long ``tcp://`` waits for the scheduler
CONNECT_TIMEOUT = "10s"

#: Dask settings of the ``local:N`` clusters this module starts. Measured on 2,000 synthetic
#: segments, all 44 lexical metrics (BENCHMARKS.md, "Campaign scale"): with Dask's defaults a
#: worker spent ~25 % more CPU than the same tasks in-process, mostly its statistical profiler
#: (a thread that takes the GIL every 10 ms to walk the computing thread's stack) and the
#: event-loop / memory / system monitors (every 20-500 ms); these are diagnostics for Dask's
#: dashboard, which ``local:N`` does not start. A ``tcp://`` cluster keeps its own settings.
LOCAL_CLUSTER_CONFIG = {
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "1s",
    "distributed.worker.memory.monitor-interval": "1s",
    "distributed.admin.system-monitor.interval": "2s",
    "distributed.admin.system-monitor.gil.enabled": False,
}


class SchedulerError(RuntimeError):
    """A distributed task failed (or the cluster could not be reached)."""


def parse_scheduler(spec: str | None) -> tuple[str, int | str | None]:
    """``None``/"none" -> ("none", None); "local:N" -> ("local", N); "tcp://h:p" -> ("tcp", address)."""
    s = (spec or "none").strip()
    if s == "none":
        return "none", None
    m = _LOCAL.match(s)
    if m:
        n = int(m.group(1))
        if n < 1:
            raise ValueError(f"--scheduler {s}: need at least one worker")
        return "local", n
    if _TCP.match(s):
        return "tcp", s
    raise ValueError(f"--scheduler {s!r}: expected none, local:N (N workers on this machine) "
                     "or tcp://HOST:PORT (a running Dask scheduler)")


def add_scheduler_argument(p) -> None:
    p.add_argument("--scheduler", default="none", metavar="none|local:N|tcp://HOST:PORT",
                   help="where to compute: none (default, in this process), local:N (a Dask LocalCluster "
                        "of N worker processes started and stopped by the command) or tcp://HOST:PORT "
                        "(a running Dask cluster); results are identical")


class Scheduler:
    """Runs a function over items in-process or on a Dask cluster (see the module docstring)."""

    def __init__(self, spec: str | None = None, progress_factory: Callable[[str], Progress] | None = None):
        self.spec = (spec or "none").strip()
        self.kind, self.arg = parse_scheduler(self.spec)
        self.client: Client | None = None
        self.cluster: LocalCluster | None = None
        self.progress_factory = progress_factory

    # ---- lifecycle ------------------------------------------------------------------------
    def __enter__(self) -> "Scheduler":
        if self.kind == "none":
            return self
        from distributed import Client

        try:
            if self.kind == "local":
                import dask
                from distributed import LocalCluster

                # no dashboard; the scheduler's and workers' small HTTP endpoints (health) and all
                # communication on loopback, random ports (never 8787: other users may hold it);
                # the nannies hand this configuration to the worker processes they spawn
                with dask.config.set(LOCAL_CLUSTER_CONFIG):
                    assert isinstance(self.arg, int)  # parse_scheduler: local:N
                    self.cluster = LocalCluster(n_workers=self.arg, processes=True, threads_per_worker=1,
                                                dashboard_address=None, host="127.0.0.1", silence_logs=40,
                                                worker_dashboard_address="127.0.0.1:0",
                                                scheduler_kwargs={"dashboard_address": "127.0.0.1:0"})
                self.client = Client(self.cluster)
            else:
                self.client = Client(str(self.arg), timeout=CONNECT_TIMEOUT)
        except OSError as exc:
            self.close()
            raise SchedulerError(f"could not reach the Dask scheduler {self.spec}: {exc}") from exc
        self.assign_slots()
        return self

    def assign_slots(self) -> None:
        """Tell every worker its place among the workers of its machine (0, 1, … by address):
        a neural metric with ``--device auto`` or ``cuda`` then runs worker i on GPU
        ``i mod k`` of the k its machine has (:func:`evalcore.neural.backend.resolve_device`).
        Workers that join later fall back to their name (a ``LocalCluster`` numbers them)."""
        from ..neural.backend import set_worker_slots

        assert self.client is not None, "assign_slots needs a started cluster"
        workers = self.client.scheduler_info().get("workers", {})
        by_host: dict[str, list[str]] = {}
        for addr in sorted(workers):
            by_host.setdefault(str(workers[addr].get("host", "")), []).append(addr)
        slots = {addr: i for addrs in by_host.values() for i, addr in enumerate(addrs)}
        if slots:
            self.client.run(set_worker_slots, slots)

    def release_models(self, metrics) -> None:
        """Free the models of these metrics (the neural ones) on every worker once their tasks
        are done: each worker loaded its own copy, once, and keeps it until told (a ``tcp://``
        cluster outlives the command). Other metrics' models, possibly in use by tasks
        already running, stay."""
        from ..neural import NeuralMetric

        models = [(m.kind, str(m.path())) for m in metrics if isinstance(m, NeuralMetric)]
        if models and self.client is not None:
            from ..neural.backend import release

            self.client.run(release, models)

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        if self.client is not None:
            self.client.close()
            self.client = None
        if self.cluster is not None:
            self.cluster.close()
            self.cluster = None

    @property
    def distributed(self) -> bool:
        return self.client is not None

    @property
    def n_workers(self) -> int:
        if self.client is None:
            return 1
        return max(1, len(self.client.scheduler_info().get("workers", {})))

    def describe(self) -> str:
        return "in-process" if self.kind == "none" else f"dask {self.spec} ({self.n_workers} workers)"

    # ---- work ---------------------------------------------------------------------------
    def scatter(self, items: Sequence, broadcast: bool = False) -> list:
        """The items sent to the cluster once (futures that tasks can take), or the items
        themselves in-process. ``broadcast``: a copy on every worker, sent from here (for what
        every task needs), instead of one copy that workers then pass on among themselves."""
        items = list(items)
        if self.client is None or not items:
            return items
        # hash=False: keys of this call only. Dask's default names scattered data by its content,
        # so two runs on the same data shared keys, and the first run's clean-up (its futures
        # released or cancelled) could cancel the second run's tasks ("task … was cancelled")
        return self.client.scatter(items, broadcast=broadcast, hash=False)

    def map(self, fn, items: Sequence, label: str = "tasks", progress: Progress = None) -> list:
        """``[fn(x) for x in items]``, on the cluster when there is one; results in item order.
        ``progress(done, total)`` as tasks finish."""
        items = list(items)
        total = len(items)
        if progress is None and self.progress_factory is not None:
            progress = self.progress_factory(label)
        if self.client is None:
            out = []
            for i, x in enumerate(items):
                out.append(fn(x))
                if progress:
                    progress(i + 1, total)
            return out
        return self.collect(self.submit_map(fn, items), label, progress)

    def submit_map(self, fn, items: Sequence) -> list:
        """Start ``fn`` on every item on the cluster without waiting (futures, for
        :meth:`collect`): work queued ahead keeps the workers busy while this process writes."""
        assert self.client is not None, "submit_map needs a started cluster"
        return self.client.map(fn, list(items), pure=False)

    def collect(self, futures: list, label: str = "tasks", progress: Progress = None) -> list:
        """The results of :meth:`submit_map`'s futures in item order; a failed task raises
        :class:`SchedulerError` naming it (the unfinished ones are cancelled)."""
        from distributed import as_completed

        if progress is None and self.progress_factory is not None:
            progress = self.progress_factory(label)
        total = len(futures)
        index = {f.key: i for i, f in enumerate(futures)}
        done = 0
        try:
            for fut in as_completed(futures):
                if fut.status == "error":
                    exc = fut.exception()
                    raise SchedulerError(f"{label}: task {index[fut.key] + 1} of {total} failed on a Dask worker "
                                         f"({self.spec}): {type(exc).__name__}: {exc}") from exc
                if fut.status == "cancelled":
                    raise SchedulerError(f"{label}: task {index[fut.key] + 1} of {total} was cancelled "
                                         f"(a worker died or the cluster went away: {self.spec})")
                done += 1
                if progress:
                    progress(done, total)
            assert self.client is not None
            return self.client.gather(futures)
        finally:
            self.cancel(futures)

    def cancel(self, futures: list) -> None:
        """Cancel the futures that have not finished (no-op in-process or once closed)."""
        if self.client is not None:
            self.client.cancel([f for f in futures if not f.done()])


def in_process() -> Scheduler:
    return Scheduler("none")


def stderr_progress(label: str):
    from ..core.progress import StderrProgress

    return StderrProgress(label)


# ---- splitting into segment blocks -----------------------------------------------------------
#: smallest block (segments) handed to a worker; smaller data makes fewer blocks
MIN_BLOCK = 32
#: largest block (segments) handed to a worker when the caller does not choose: a task's
#: working memory (its texts' tokens, the family's statistics rows, their pickled copy on the
#: way back) grows with its block, so big data makes more blocks, not bigger ones (at 100k
#: segments, 12,500-segment blocks kept ~0.5 GB more per worker; BENCHMARKS.md, "Campaign scale")
MAX_BLOCK = 2000


def block_bounds(n: int, n_workers: int, block_size: int | None = None) -> list[tuple[int, int]]:
    """Half-open [start, end) blocks covering 0..n: ``block_size`` each when given, else about
    four blocks per worker, at least :data:`MIN_BLOCK` and at most :data:`MAX_BLOCK` segments
    per block."""
    if n <= 0:
        return []
    if block_size is None:
        block_size = min(MAX_BLOCK, max(MIN_BLOCK, math.ceil(n / (4 * max(1, n_workers)))))
    block_size = max(1, int(block_size))
    return [(a, min(n, a + block_size)) for a in range(0, n, block_size)]


def _split_metrics(metrics) -> tuple[list, list]:
    """(metrics computed on workers, metrics computed in-process)."""
    from ..syntax.metrics import is_syntactic

    remote: list = []
    local: list = []
    for m in metrics:
        (remote if m.meta.needs_text and not is_syntactic(m.id) else local).append(m)
    return remote, local


def _prepared(metrics, dataset) -> list:
    from ..metrics.engine import _prepare

    for m in metrics:
        _prepare(m, dataset)
    return metrics


# ---- scores --------------------------------------------------------------------------------
def _score_block(task):
    """Worker side: one block of every candidate, every metric (already prepared).
    Segment level -> per (metric, candidate) the sentence scores; system level -> the
    per-segment sufficient statistics."""
    metrics, level, chunks = task
    out: list[np.ndarray | None] = []
    for metric in metrics:
        for name, cands, refs in chunks:
            if not cands:
                out.append(None)
            elif level == "segment":
                out.append(np.asarray(metric.sentence_scores(cands, refs), dtype=float))
            else:
                out.append(np.asarray(metric.segment_stats(cands, refs), dtype=float))
    return out


def score_table(dataset, metric_ids: Sequence, level: str = "segment", ref_ids: Sequence[str] | None = None,
                include_references: bool = False, progress: Progress = None, segments=None,
                tokenize: str | None = None, scheduler: Scheduler | None = None,
                block_size: int | None = None) -> pd.DataFrame:
    """The table of :func:`score_result` (its notes and warnings not wanted)."""
    return score_result(dataset, metric_ids, level, ref_ids, include_references, progress, segments, tokenize,
                        scheduler, block_size).table


def score_result(dataset, metric_ids: Sequence, level: str = "segment", ref_ids: Sequence[str] | None = None,
                 include_references: bool = False, progress: Progress = None, segments=None,
                 tokenize: str | None = None, scheduler: Scheduler | None = None,
                 block_size: int | None = None):
    """:func:`evalcore.metrics.engine.score_result` on ``scheduler`` (in-process when None or
    ``none``): same columns, rows, order, values, signatures, notes and warnings."""
    from ..metrics import engine
    from ..core.results import Result

    if scheduler is None or not scheduler.distributed:
        return engine.score_result(dataset, metric_ids, level=level, ref_ids=ref_ids,
                                   include_references=include_references, progress=progress, segments=segments,
                                   tokenize=tokenize)
    if level not in ("segment", "system"):
        raise ValueError(f"level must be 'segment' or 'system', not {level!r}")
    ds = dataset
    metrics = [engine._resolve_metric(m, tokenize) for m in metric_ids]
    remote, local = _split_metrics(metrics)
    cands_all, notes = engine.scoring_plan(ds, ref_ids, include_references, segments)
    results: dict[str, pd.DataFrame] = {}
    if local:
        t = engine.score_table(ds, local, level=level, ref_ids=ref_ids, include_references=include_references,
                               segments=segments)
        for mid, sub in t.groupby("metric", sort=False):
            results[str(mid)] = sub
    if remote:
        _prepared(remote, ds.with_references(list(ref_ids)) if ref_ids else ds)  # as in-process
        cands = []  # (name, keep, cands, refs) in the engine's candidate order
        for name, texts, use_refs in cands_all:
            keep, c, r = engine.scorable(ds, texts, use_refs)
            cands.append((name, keep, c, r))
        nrefs = {len(r) for _, _, _, refs in cands for r in refs}
        n_refs = (next(iter(nrefs)) if len(nrefs) == 1 else "var") if nrefs else None
        n = max((len(k) for _, k, _, _ in cands), default=0)
        bounds = block_bounds(n, scheduler.n_workers, block_size)
        tasks = [(remote, level, [(name, c[a:b], r[a:b]) for name, _, c, r in cands]) for a, b in bounds]
        parts = scheduler.map(_score_block, tasks, label="scoring (segment blocks)", progress=progress)
        scheduler.release_models(remote)
        k = 0
        for metric in remote:
            rows = []
            for ci, (name, keep, c, _) in enumerate(cands):
                pieces = [p[k + ci] for p in parts if p[k + ci] is not None]
                if level == "segment":
                    vals = np.concatenate(pieces) if pieces else np.zeros(0)
                    rows += [(metric.id, name, seg, float(v), 1) for seg, v in zip(keep, vals)]
                elif c:
                    stats = np.concatenate(pieces, axis=0)
                    rows.append((metric.id, name, "", float(metric.score_from_stats(stats)), len(keep)))
            k += len(cands)
            sub = pd.DataFrame(rows, columns=["metric", "system", "seg_id", "score", "n_segments"])
            sub["signature"] = metric.output_signature(n_refs, level)
            results[metric.id] = sub
    frames = [results[m.id] for m in metrics if m.id in results]
    cols = ["metric", "system", "seg_id", "score", "n_segments", "signature"]
    table = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=cols)
    table = table[cols].astype({"metric": str, "system": str, "seg_id": str, "score": float, "n_segments": "Int64",
                                "signature": str})
    return Result(table, notes=notes, warnings=tuple(engine.long_segment_warnings(ds, metrics)))  # as in-process


# ---- both levels, one metric at a time (score --level both) ---------------------------------
def _levels_block(task):
    """Worker side: the metrics of one family (already prepared) on one block of segments: each
    metric's statistics rows of the block's items (one family pass, a segment's outputs
    together) and, when asked, their sentence scores."""
    from ..metrics.levels import family_stats

    packed, want_segment, block = task
    metrics = packed.unpack()
    cands, refs, positions = block.unpack()
    if not cands:
        return [(None, None) for _ in metrics]
    out = []
    for m, st in zip(metrics, family_stats(metrics, cands, refs, positions)):
        out.append((st, np.asarray(m.sentence_scores_of(st, refs), dtype=float) if want_segment else None))
    release_memory()  # the block's working arrays are gone: give their pages back
    return out


class TextBlock:
    """One segment block's texts as a worker keeps them for the whole run: the candidates and
    the distinct reference lists as Arrow string arrays (one buffer of UTF-8 each, not a Python
    string object per text), each item's reference list by number, and the items' segment
    positions. :meth:`unpack` gives back ``(cands, refs, positions)`` equal to what was packed
    (items with equal reference lists share one list object), made afresh for each task and
    dropped after it. At 100k segments × 10 systems × 4 references each worker held ~300 MB of
    Python strings for its half of the blocks."""

    def __init__(self, cands: Sequence[str], refs: Sequence[Sequence[str]], positions: Sequence[int] | np.ndarray):
        import pyarrow as pa

        number: dict[tuple, int] = {}
        lists: list = []
        ref_of = np.empty(len(refs), dtype=np.int64)
        for i, r in enumerate(refs):
            key = tuple(r)
            k = number.get(key)
            if k is None:
                k = number[key] = len(lists)
                lists.append(list(r))
            ref_of[i] = k
        self.cands = pa.array(list(cands), type=pa.large_string())
        self.refs = pa.array(lists, type=pa.list_(pa.large_string()))
        self.ref_of = ref_of
        self.positions = np.asarray(positions, dtype=np.int64)

    def __sizeof__(self) -> int:  # what Dask counts for the block (sys.getsizeof)
        return object.__sizeof__(self) + self.cands.nbytes + self.refs.nbytes + self.ref_of.nbytes \
            + self.positions.nbytes

    def unpack(self) -> tuple[list, list, list]:
        lists = self.refs.to_pylist()
        return self.cands.to_pylist(), [lists[k] for k in self.ref_of.tolist()], self.positions.tolist()


class Packed:
    """Metrics sent to every worker once and rebuilt there once per worker process (the last
    set kept). A metric's corpus-wide state (``shared_state``: NIST's weight table, shared by
    nist-1..5) travels as one byte string of raw arrays with a plain layout list (name, dtype,
    shape, offset: no pickle, no object dtypes); on arrival the arrays are views of that
    buffer (``np.frombuffer``), so a worker holds the table once. The metrics
    themselves go without it. Dask's own transfer of the prepared objects left ~5× the table's
    size live on each worker (measured at 100k segments: +1.24 GB for a 246 MB table, 1.9 GB at
    the peak); a byte string read back as copies, +0.25 GB plus the table; views, the table
    alone."""

    _last: tuple = (None, None)  # per process: (token, metrics)
    ALIGN = 64

    def __reduce_ex__(self, protocol):
        # the buffer as a PickleBuffer: with protocol 5 and a buffer callback (Dask's transfer)
        # it travels out of band, as its own frame, not copied into the pickle stream (at 100k
        # segments that copy was +250 MB in the driver while the table was sent)
        import pickle

        payload = pickle.PickleBuffer(self.payload) if protocol >= 5 else bytes(self.payload)
        return _packed_from, (self.token, self.metrics, self.state_of, self.layout, payload)

    def __init__(self, metrics):
        import uuid

        self.token = uuid.uuid4().hex
        self.metrics, self.state_of = [], []  # per metric: its state's number, or -1
        arrays: dict = {}
        numbers: dict = {}
        for m in metrics:
            state = m.shared_state
            if state is None:
                self.metrics.append(m)
                self.state_of.append(-1)
                continue
            if id(state) not in numbers:
                numbers[id(state)] = k = len(numbers)
                arrays.update({f"s{k}_{name}": a for name, a in state.to_arrays().items()})
            self.metrics.append(m.with_shared_state(None))
            self.state_of.append(numbers[id(state)])
        self.layout, self.payload = self.pack_arrays(arrays)

    @classmethod
    def pack_arrays(cls, arrays: dict) -> tuple[list, bytearray]:
        """``{name: array}`` -> (layout: ``[(name, dtype str, shape, offset)]``, one buffer with
        every array's bytes, each at an offset aligned to :attr:`ALIGN` bytes; a ``bytearray``,
        so building it does not need a second copy)."""
        layout, parts, at = [], [], 0
        for name, a in arrays.items():
            a = np.ascontiguousarray(a)
            if a.dtype.hasobject or a.dtype.fields is not None:
                raise TypeError(f"{name}: only plain numeric arrays travel packed, not {a.dtype}")
            layout.append((name, a.dtype.str, tuple(int(x) for x in a.shape), at))
            parts.append(a)
            at += -(-a.nbytes // cls.ALIGN) * cls.ALIGN
        buf = bytearray(at)
        view = np.frombuffer(buf, dtype=np.uint8)
        for (_, _, _, off), a in zip(layout, parts):
            view[off:off + a.nbytes] = a.reshape(-1).view(np.uint8)
        del view
        return layout, buf

    @classmethod
    def aligned(cls, payload):
        """``payload``, or an aligned copy of it when it starts at an address that is not a
        multiple of :attr:`ALIGN`. Dask hands a large buffer over as a view into the frame it
        came in, at any address (measured: 41 bytes past a 64-byte boundary), and arrays on it
        are then unaligned, which the compiled kernels read through separately compiled,
        slower code (at 100k segments NIST's phase took 52 s instead of 22 s). The copy
        replaces the view, so the frame itself is let go."""
        if not len(payload) or np.frombuffer(payload, np.uint8).ctypes.data % cls.ALIGN == 0:
            return payload
        raw = np.empty(len(payload) + cls.ALIGN, dtype=np.uint8)
        start = (-raw.ctypes.data) % cls.ALIGN
        out = raw[start:start + len(payload)]
        out[:] = np.frombuffer(payload, np.uint8)
        return out

    @staticmethod
    def unpack_arrays(layout: list, payload) -> dict:
        """The arrays of :meth:`pack_arrays` as views of ``payload`` (no copy)."""
        # (np.frombuffer itself refuses object dtypes.) Writable when the buffer is: the compiled
        # kernels then see the same array types as in-process and need no second compilation
        return {name: np.frombuffer(payload, dtype=np.dtype(dt), count=int(np.prod(shape, dtype=np.int64)),
                                    offset=off).reshape(shape)
                for name, dt, shape, off in layout}

    def unpack(self) -> list:
        token, metrics = Packed._last
        if token == self.token:
            return metrics
        Packed._last = (None, None)  # the previous family's state goes first
        self.payload = self.aligned(self.payload)
        arrays = self.unpack_arrays(self.layout, self.payload)
        states: dict[int, object] = {}
        out = []
        for m, k in zip(self.metrics, self.state_of):
            if k < 0:
                out.append(m)
                continue
            if k not in states:
                prefix = f"s{k}_"
                states[k] = m.state_from_arrays({n[len(prefix):]: a for n, a in arrays.items()
                                                 if n.startswith(prefix)})
            out.append(m.with_shared_state(states[k]))
        Packed._last = (self.token, out)
        return out


def _packed_from(token, metrics, state_of, layout, payload) -> Packed:
    """A :class:`Packed` as pickled (``payload``: the buffer, or a view of the frame it came in)."""
    p = Packed.__new__(Packed)
    p.token, p.metrics, p.state_of, p.layout, p.payload = token, metrics, state_of, layout, payload
    return p


def release_memory() -> None:
    """Hand freed heap memory back to the operating system (glibc's ``malloc_trim``; nothing
    elsewhere). A long run frees and allocates large arrays and tables over and over; glibc keeps
    the freed pages for reuse, so a process's resident memory drifts up to many times what it
    holds (measured at 30k segments: the driver 1.3 GB resident while holding 0.8 GB). Called
    once per block task on a worker and once per metric written in the driver; costs
    milliseconds."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


@functools.cache
def _malloc_trim():
    """glibc's ``malloc_trim``, or None (not Linux, or not glibc: musl, …)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        return ctypes.CDLL("libc.so.6").malloc_trim
    except (OSError, AttributeError):
        return None


def use_system_allocator() -> None:
    """Arrow's buffers (pandas' ``str`` columns) come from the C library's ``malloc`` from now
    on, not from Arrow's own pool (mimalloc), which keeps what is freed where
    :func:`release_memory` cannot return it. Measured on a 1M-row segment table built, written
    and dropped three times: 195 MB kept for good with Arrow's pool, 15 MB with ``malloc``.
    Called by the command line, whose batch runs build and drop one such table per metric."""
    try:
        import pyarrow as pa
    except ImportError:  # pandas without pyarrow: nothing to switch
        return
    pa.set_memory_pool(pa.system_memory_pool())


def iter_score_levels(dataset, metric_ids: Sequence, level: str = "both", ref_ids: Sequence[str] | None = None,
                      include_references: bool = False, progress: Progress = None, segments=None,
                      tokenize: str | None = None, scheduler: Scheduler | None = None,
                      block_size: int | None = None):
    """:func:`evalcore.metrics.levels.iter_score_levels` on ``scheduler``: yields ``(metric,
    {level: table})`` one metric at a time, each table identical to the in-process one. The
    texts of each segment block are sent to the cluster once (``scatter``); per metric family,
    every block's statistics (and sentence scores) are computed on the workers from one family
    pass and put back in the engine's item order; system scores come from the concatenated
    statistics here. Metrics the workers cannot compute run in-process, in their turn."""
    from ..metrics import engine, levels as lv

    if scheduler is None or not scheduler.distributed:
        yield from lv.iter_score_levels(dataset, metric_ids, level=level, ref_ids=ref_ids,
                                        include_references=include_references, progress=progress,
                                        segments=segments, tokenize=tokenize)
        return
    want = lv.levels_of(level)
    ds = dataset
    metrics = [engine._resolve_metric(m, tokenize) for m in metric_ids]
    remote_ok = [lv.streamable(m) and bool(_split_metrics([m])[0]) for m in metrics]
    group_of = {i: g for g in lv.families([m if ok else _NotStreamable for m, ok in zip(metrics, remote_ok)])
                for i in g}
    # corpus-wide preparation (NIST's weight table) first, while this process holds little
    # else: its working memory then adds to the data set alone, not to the item lists and a
    # family's gathered statistics (at 100k segments the driver's peak was there)
    _prepared([metrics[i] for i in group_of], ds.with_references(list(ref_ids)) if ref_ids else ds)
    cands_all, _ = engine.scoring_plan(ds, ref_ids, include_references, segments)
    items, positions = lv.plan_items(ds, cands_all)
    pos = np.asarray(positions, dtype=np.int64)
    all_c = [c for _, _, cs, _ in items for c in cs]
    all_r = [r for _, _, _, rs in items for r in rs]
    bounds = block_bounds(ds.n_segments, scheduler.n_workers, block_size)
    sel = [np.flatnonzero((pos >= a) & (pos < b)) for a, b in bounds]
    sel = [ix for ix in sel if len(ix)]
    data = scheduler.scatter([TextBlock([all_c[i] for i in ix], [all_r[i] for i in ix], pos[ix]) for ix in sel]) \
        if group_of else []
    want_segment = "segment" in want
    # the remote families in order of their first metric; each family's tasks are submitted one
    # family ahead of the one being written, so the workers compute while this process builds
    # tables and writes them (and prepares the next family: NIST's corpus-wide weights)
    queue = []
    for i in range(len(metrics)):
        if i in group_of and group_of[i][0] == i:
            queue.append(group_of[i])
    launched: dict[int, list] = {}  # first metric index -> futures of the family's blocks

    def launch_next() -> None:
        if not queue:
            return
        group = queue.pop(0)
        ms = [metrics[j] for j in group]  # prepared above
        # the prepared metrics (NIST: its information table) go to every worker once, as one
        # byte string (Packed), not pickled into every task
        ms_ref = scheduler.scatter([Packed(ms)], broadcast=True)[0]
        launched[group[0]] = scheduler.submit_map(_levels_block, [(ms_ref, want_segment, d) for d in data])

    # per metric of the family being written: its system table (built as soon as the family's
    # statistics arrive, so the statistics rows are dropped at once) and its sentence scores
    pending: dict[int, tuple] = {}
    try:
        for i, metric in enumerate(metrics):
            if i not in group_of:
                yield from lv.iter_score_levels(ds, [metric], level=level, ref_ids=ref_ids,
                                                include_references=include_references, segments=segments)
            else:
                if i not in pending:
                    group = group_of[i]
                    while i not in launched:
                        launch_next()
                    launch_next()  # one family ahead
                    parts = scheduler.collect(launched.pop(i), label=f"{metric.meta.family} (segment blocks)")
                    scheduler.release_models([metrics[j] for j in group])  # the family's tasks are done
                    for k, j in enumerate(group):
                        pending[j] = _assemble(metrics[j], items, sel, parts, k, len(all_c), want)
                    del parts
                system, seg_all = pending.pop(i)
                out = {}
                if "system" in want:
                    out["system"] = system
                if want_segment:
                    out.update(lv.level_frames(metric, items, [None] * len(items), ("segment",),
                                               lv.split_rows(items, seg_all)))
                yield metric, {lv_: out[lv_] for lv_ in want}
                del out
                release_memory()  # this metric's tables are written and dropped
            if progress:
                progress(i + 1, len(metrics))
    finally:
        for futures in launched.values():
            scheduler.cancel(futures)


def _assemble(metric, items, sel, parts, k: int, n_items: int, want) -> tuple:
    """Metric ``k`` of a family's block results -> (its system table or None, its sentence
    scores of every item or None). The statistics rows are put in the engine's item order and
    the system scores computed from them here (the same arrays as in-process, so the same
    floats), then dropped; each block's rows are released as soon as they are copied."""
    from ..metrics import levels as lv

    stats_all = seg_all = None
    if parts:
        width = parts[0][k][0].shape[1]
        stats_all = np.zeros((n_items, width))
        seg_all = np.zeros(n_items) if "segment" in want else None
        for ix, part in zip(sel, parts):
            st, sc = part[k]
            stats_all[ix] = st
            if seg_all is not None:
                seg_all[ix] = sc
            part[k] = None
    system = None
    if "system" in want:
        system = lv.level_frames(metric, items, lv.split_rows(items, stats_all), ("system",))["system"]
    return system, seg_all


class _NotStreamableMeta:
    needs_text = False
    family = ""


class _NotStreamable:
    """Stands for a metric computed in-process when grouping the remote ones by family."""

    meta = _NotStreamableMeta()


# ---- similarity tensors -----------------------------------------------------------------------
def _tensor_block(task):
    """Worker side: the similarity tensors of one block of segments (metrics already prepared)."""
    from ..metrics.engine import similarity_tensors_many

    block, packed = task
    res = similarity_tensors_many(block, packed.unpack(), cache_dir=False, prepare=False)
    return {mid: (t.systems, t.ref_ids, t.sys_ref, t.ref_ref, t.loo_sys, t.loo_ref) for mid, t in res.items()}


def similarity_tensors_many(dataset, metric_ids: Sequence, progress: Progress = None,
                            scheduler: Scheduler | None = None, cache_dir=None,
                            block_size: int | None = None, tokenize: str | None = None) -> dict:
    """:func:`evalcore.metrics.engine.similarity_tensors_many` on ``scheduler``: the tensors of
    segment blocks computed on the workers and placed on the dataset's full axes. Disk-cache
    hits are used and new tensors are stored, as in-process."""
    from ..metrics import engine
    from ..metrics.base import SimTensors

    if scheduler is None or not scheduler.distributed:
        return engine.similarity_tensors_many(dataset, metric_ids, progress=progress, cache_dir=cache_dir,
                                              tokenize=tokenize)
    metrics = [engine._resolve_metric(m, tokenize) for m in metric_ids]
    remote, local = _split_metrics(metrics)
    out = {}
    if local:
        out.update(engine.similarity_tensors_many(dataset, local, cache_dir=cache_dir))
    ax = engine._axes(dataset)
    seg_ids, systems, ref_ids = ax["seg_ids"], ax["systems"], ax["ref_ids"]
    S, A, J = len(seg_ids), len(systems), len(ref_ids)
    todo: list = []
    for m in remote:
        path = engine._cache_path(dataset, m, cache_dir)
        hit = engine._cached(path, ax)
        if hit is not None:
            out[m.id] = hit
        elif all(m.id != t.id for t, _ in todo):
            todo.append((m, path))
    if todo:
        ms = _prepared([m for m, _ in todo], dataset)
        bounds = block_bounds(S, scheduler.n_workers, block_size)
        ms_ref = scheduler.scatter([Packed(ms)], broadcast=True)[0]  # once per worker, not per task
        tasks = [(dataset.subset(seg_ids=seg_ids[a:b]), ms_ref) for a, b in bounds]
        parts = scheduler.map(_tensor_block, tasks, label="similarities (segment blocks)", progress=progress)
        scheduler.release_models([m for m, _ in todo])
        sys_pos = {s: i for i, s in enumerate(systems)}
        ref_pos = {r: i for i, r in enumerate(ref_ids)}
        for m, path in todo:
            sys_ref, ref_ref = np.full((A, S, J), np.nan), np.full((S, J, J), np.nan)
            loo_sys, loo_ref = np.full((A, S, J), np.nan), np.full((S, J), np.nan)
            for (a, b), part in zip(bounds, parts):
                bs, br, sr, rr, ls, lr = part[m.id]
                ai = [sys_pos[s] for s in bs]
                ji = [ref_pos[r] for r in br]
                seg = list(range(a, b))
                sys_ref[np.ix_(ai, seg, ji)] = sr
                loo_sys[np.ix_(ai, seg, ji)] = ls
                ref_ref[np.ix_(seg, ji, ji)] = rr
                loo_ref[np.ix_(seg, ji)] = lr
            t = SimTensors(metric_id=m.id, seg_ids=seg_ids, systems=systems, ref_ids=ref_ids, sys_ref=sys_ref,
                           ref_ref=ref_ref, loo_sys=loo_sys, loo_ref=loo_ref, signature=m.signature(),
                           meta={"cached": False, "scheduler": scheduler.spec})
            if path is not None:
                try:
                    engine._save_npz(path, t)
                except OSError as exc:  # a read-only cache must not lose the result
                    print(f"warning: could not cache similarities in {path.parent}: {exc}", file=sys.stderr)
            out[m.id] = t
    elif progress:
        progress(S, S)
    return {m.id: out[m.id] for m in metrics}


def timed(fn, *a, **kw):
    """(result, seconds) — used by the benchmarks."""
    t0 = time.perf_counter()
    r = fn(*a, **kw)
    return r, time.perf_counter() - t0
