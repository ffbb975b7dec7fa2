"""Saved learned metrics: the model object, the workspace folder, and metric registration.

A trained model is two files in the models folder (``<home>/models``, :mod:`evalcore.core.paths`:
``$EVALCORE_HOME/models`` when the variable is set, ``%APPDATA%\\evalcore\\models`` on Windows,
else ``~/.local/share/evalcore/models``):

* ``NAME.npz`` – the numeric parameters (weights, scaler, support vectors, ...), read with
  ``allow_pickle=False`` so loading a model never executes code;
* ``NAME.json`` – metadata: kind, feature list, parameters, the training data's content hash,
  the training segments' hash, the evaluation scores, creation time and the evalcore version.

Both are written atomically (temporary file in the same folder + ``os.replace``); the JSON
is written last, so a model is visible only once complete. A saved model is a metric with
id ``learned:NAME``: :func:`ensure_registered` (called by ``get_metric`` for ids that start
with ``learned:``) registers it on first use, so it works wherever a metric id does.
"""
from __future__ import annotations

import datetime as _dt
import hashlib
import importlib
import io
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from .. import __version__
from ..core import paths
from ..metrics._caches import bounded_cache
from ..metrics.base import Metric, MetricMeta, Signature, make_signature, register, register_provider, unregister

PREFIX = "learned:"
_NAME_RE = re.compile(r"^[a-z0-9][a-z0-9_.\-]{0,99}$")


def models_dir() -> Path:
    """The models folder, :func:`evalcore.core.paths.models_dir` (created on demand by
    :func:`save_model`)."""
    return paths.models_dir(create=False)


def check_name(name: str) -> str:
    key = name.strip().lower()
    if key.startswith(PREFIX):
        key = key[len(PREFIX):]
    if not _NAME_RE.match(key) or ".." in key:
        raise ValueError(f"invalid model name {name!r}: use lower-case letters, digits, '-', '_' and '.' "
                         "(at most 100 characters, starting with a letter or digit)")
    return key


def split_model_path(spec: str) -> tuple[str, Path | None]:
    """``NAME`` or a file path (``DIR/NAME.json`` / ``DIR/NAME.npz`` / ``DIR/NAME``, ``learned:``
    prefix accepted) -> (checked name, folder or None for the models folder)."""
    raw = spec.strip()
    if raw.lower().startswith(PREFIX):
        raw = raw[len(PREFIX):]
    if "/" not in raw and os.sep not in raw and not raw.endswith((".json", ".npz")):
        return check_name(raw), None
    path = Path(raw).expanduser()
    stem = path.name[:-5] if path.name.endswith(".json") else path.name[:-4] if path.name.endswith(".npz") else path.name
    return check_name(stem), path.parent


def hash_strings(items: Sequence[str]) -> str:
    h = hashlib.sha256()
    for s in items:
        h.update(s.encode())
        h.update(b"\x00")
    return h.hexdigest()


#: kind -> (module, function) scoring a saved model of that kind, named not imported: the
#: trainers (beer.py, humanlike.py) import this module for LearnedModel
SCORERS: dict[str, tuple[str, str]] = {"beer": (".beer", "beer_scores"),
                                       "humanlike": (".humanlike", "humanlike_scores")}


@dataclass
class LearnedModel:
    """A trained metric. ``kind`` is ``beer`` or ``humanlike``; ``arrays`` hold the numbers."""

    name: str
    kind: str
    features: list[str]
    params: dict
    arrays: dict[str, np.ndarray]
    data_hash: str = ""
    train_hash: str = ""
    scores: dict = field(default_factory=dict)
    created: str = ""
    version: str = __version__

    def score(self, cand: str, refs: Sequence[str]) -> float:
        """Sentence score of ``cand`` against ``refs`` (higher = better)."""
        return float(self.score_many([cand], [refs])[0])

    def score_many(self, cands: Sequence[str], refs: Sequence[Sequence[str]]) -> np.ndarray:
        if self.kind not in SCORERS:
            raise ValueError(f"unknown learned-model kind {self.kind!r}")
        module, function = SCORERS[self.kind]
        return getattr(importlib.import_module(module, __package__), function)(self, cands, refs)

    def metadata(self) -> dict:
        return {"name": self.name, "kind": self.kind, "features": list(self.features),
                "params": self.params, "data_hash": self.data_hash, "train_hash": self.train_hash,
                "scores": self.scores, "created": self.created, "version": self.version,
                "arrays": sorted(self.arrays)}


def _atomic_write(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (temporary file in the same folder, then rename)."""
    from ..core.export import atomic_write

    atomic_write(path, lambda fh: fh.write(data), mode="wb")


def _jsonable(obj):
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return _jsonable(obj.tolist())
    if isinstance(obj, (np.floating, float)):
        v = float(obj)
        return v if np.isfinite(v) else None
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.bool_):
        return bool(obj)
    return obj


def save_model(model: LearnedModel, folder: str | os.PathLike | None = None, register_it: bool = True) -> Path:
    """Write ``NAME.npz`` then ``NAME.json`` atomically; return the JSON path."""
    name = check_name(model.name)
    model.name = name
    if not model.created:
        model.created = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    root = Path(folder) if folder is not None else models_dir()
    root.mkdir(parents=True, exist_ok=True)
    buf = io.BytesIO()
    arrays: dict[str, Any] = {k: np.asarray(v) for k, v in model.arrays.items()}
    np.savez(buf, **arrays)
    _atomic_write(root / f"{name}.npz", buf.getvalue())
    meta = json.dumps(_jsonable(model.metadata()), indent=1, ensure_ascii=False, allow_nan=False)
    _atomic_write(root / f"{name}.json", meta.encode())
    if register_it:
        register_model(name, root)
    return root / f"{name}.json"


def load_model(name: str, folder: str | os.PathLike | None = None) -> LearnedModel:
    """Load a saved model by name (``learned:`` prefix accepted)."""
    key = check_name(name)
    root = Path(folder) if folder is not None else models_dir()
    jpath, npath = root / f"{key}.json", root / f"{key}.npz"
    if not jpath.exists() or not npath.exists():
        known = ", ".join(list_models(root)) or "none"
        raise KeyError(f"no saved learned model {key!r} in {root} (saved models: {known})")
    meta = json.loads(jpath.read_text(encoding="utf-8"))
    with np.load(npath, allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    return LearnedModel(name=meta["name"], kind=meta["kind"], features=list(meta["features"]),
                        params=meta.get("params", {}), arrays=arrays, data_hash=meta.get("data_hash", ""),
                        train_hash=meta.get("train_hash", ""), scores=meta.get("scores", {}),
                        created=meta.get("created", ""), version=meta.get("version", ""))


def list_models(folder: str | os.PathLike | None = None) -> list[str]:
    root = Path(folder) if folder is not None else models_dir()
    if not root.is_dir():
        return []
    return sorted(p.stem for p in root.glob("*.json") if (root / f"{p.stem}.npz").exists())


def delete_model(name: str, folder: str | os.PathLike | None = None) -> None:
    key = check_name(name)
    root = Path(folder) if folder is not None else models_dir()
    for suffix in (".json", ".npz"):
        try:
            (root / f"{key}{suffix}").unlink()
        except FileNotFoundError:
            pass
    unregister(PREFIX + key)
    _ROOTS.pop(PREFIX + key, None)


# ---- the metric -------------------------------------------------------------------------------
class LearnedMetric(Metric):
    """A saved learned model seen through the :class:`Metric` interface."""

    def __init__(self, model: LearnedModel):
        self.model = model
        cite = {"beer": "Stanojević & Sima'an 2015 (BEER 1.1, Stanojević & Sima'an 2015); methods §6.1",
                "humanlike": "Kulesza 2004 (human-vs-machine SVM, Kulesza 2004 §3)"}.get(model.kind, "")
        self.meta = MetricMeta(
            id=PREFIX + model.name, family="learned",
            description=f"learned {model.kind} metric {model.name!r} ({len(model.features)} features)",
            citation=cite, higher_is_better=True)

    def sentence_score(self, cand: str, refs: Sequence[str]) -> float:
        return self.model.score(cand, refs)

    def sentence_scores(self, cands, refs) -> np.ndarray:
        return self.model.score_many(cands, refs)

    def segment_stats(self, cands, refs) -> np.ndarray:
        return self.model.score_many(cands, refs).reshape(-1, 1)

    def signature(self, nrefs: int | str | None = None, level: str | None = None) -> Signature:
        return make_signature([("kind", self.model.kind), ("data", self.model.data_hash[:12]),
                               ("train", self.model.train_hash[:12])], nrefs=nrefs,
                              version=f"evalcore-{self.model.version}", metric=f"learned:{self.model.name}")


_CACHE = bounded_cache("learned.models", 64)  # (folder, name) -> (modification time, model)
_ROOTS: dict[str, str] = {}  # metric id -> models folder it was registered from


def _cached_load(name: str, root: Path) -> LearnedModel:
    jpath = root / f"{name}.json"
    mtime = jpath.stat().st_mtime if jpath.exists() else -1.0
    hit = _CACHE.get((str(root), name))
    if hit is not None and hit[0] == mtime:
        return hit[1]
    model = load_model(name, root)
    _CACHE[(str(root), name)] = (mtime, model)
    return model


def register_model(name: str, folder: str | os.PathLike | None = None) -> str:
    """Register ``learned:NAME`` (re-registering replaces it). The factory reloads the saved
    files when they change, so retraining under the same name takes effect everywhere."""
    key = check_name(name)
    root = Path(folder) if folder is not None else models_dir()
    metric_id = PREFIX + key
    unregister(metric_id)
    register(metric_id, lambda: LearnedMetric(_cached_load(key, root)))
    _ROOTS[metric_id] = str(root)
    return metric_id


def ensure_registered(metric_id: str) -> bool:
    """Hook for ``get_metric``: register ``learned:NAME`` if a saved model of that name exists."""
    key = metric_id.strip().lower()
    if not key.startswith(PREFIX):
        return False
    name, folder = split_model_path(metric_id.strip())
    if folder is not None:  # learned:DIR/NAME.json: a model saved outside the models folder
        if name not in list_models(folder):
            return False
        unregister(key)
        register(key, lambda: LearnedMetric(_cached_load(name, folder)))
        _ROOTS[key] = str(folder)
        return True
    root = models_dir()
    if name not in list_models(root):
        return False
    register_model(name, root)
    return True


def register_all(folder: str | os.PathLike | None = None) -> list[str]:
    """Register every saved model of ``folder`` (default: the models folder) and unregister
    the ``learned:`` ids registered from that folder whose files are gone (deleted by another
    process). Cheap: lists the folder, loads no model (models load on first use).
    Called by :func:`evalcore.metrics.base.metric_ids`; returns the metric ids."""
    from ..metrics.base import _REGISTRY

    root = Path(folder) if folder is not None else models_dir()
    ids = []
    for n in list_models(root):
        metric_id = PREFIX + n
        if _ROOTS.get(metric_id) == str(root) and metric_id in _REGISTRY:
            ids.append(metric_id)  # already registered from this folder (the factory reloads on change)
        else:
            ids.append(register_model(n, root))
    alive = set(ids)
    for metric_id, where in list(_ROOTS.items()):
        if where == str(root) and metric_id not in alive:
            unregister(metric_id)
            _ROOTS.pop(metric_id, None)
    return ids


# the metric registry asks this module for ``learned:NAME`` ids (an entry point of the group
# evalcore.metrics in pyproject.toml; the metrics layer never imports evalcore.learned)
register_provider(PREFIX, ensure_registered, register_all)
