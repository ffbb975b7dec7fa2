"""evalcore: meta-evaluation of machine-translation metrics (no UI code in here)."""
from __future__ import annotations

__version__ = "0.2.0"

_FINGERPRINT: str | None = None


def code_fingerprint() -> str:
    """A short SHA-256 of every ``evalcore/**/*.py`` file (paths and contents).

    On-disk caches key their entries on it together with :data:`__version__`, so results
    computed by other code (an upgrade, a local edit) are never served as current."""
    global _FINGERPRINT
    if _FINGERPRINT is None:
        import hashlib
        from pathlib import Path

        root = Path(__file__).resolve().parent
        h = hashlib.sha256()
        for path in sorted(root.rglob("*.py")):
            h.update(path.relative_to(root).as_posix().encode() + b"\0")
            h.update(path.read_bytes() + b"\0")
        _FINGERPRINT = h.hexdigest()[:16]
    return _FINGERPRINT


def cache_version() -> str:
    """What cache keys record about the code: ``"<version>+<fingerprint>"``."""
    return f"{__version__}+{code_fingerprint()}"
