"""A memory budget for interactive work: refuse, with the numbers and the setting, a dataset
whose estimated working memory exceeds it, before any page starts computing on it.

The estimate is linear in the data (methods §26): ``texts × PER_TEXT_BYTES + characters ×
PER_CHAR_BYTES``, where texts counts the source segments, the reference texts and the system
outputs. The constants come from measurements on synthetic one-word data (methods
§26): loading a tidy folder and scoring chrF and BLEU per segment cost about 610 bytes per text
(100,000 segments × 2 systems + 1 reference set: +194 MB over 20,000 segments), and the
Systems page of the round-four probe (issue "Nothing silently wrong, round four", item 8) grew
to 5.9 GB on about 4 million texts (1,000,000 segments), about 1,500 bytes per text. The
budget is ``EVALCORE_MEMORY_BUDGET_MB`` (default :data:`DEFAULT_BUDGET_MB`); ``0`` turns the
check off.
"""
from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .dataset import Dataset

#: bytes of working memory per text (source segment, reference, output) on the heaviest page
PER_TEXT_BYTES = 1_500
#: bytes per character of text (the strings themselves, their tokens and n-gram counts)
PER_CHAR_BYTES = 8
BUDGET_ENV = "EVALCORE_MEMORY_BUDGET_MB"
DEFAULT_BUDGET_MB = 4096


class OverBudget(ValueError):
    """A dataset whose estimated working memory exceeds the budget (the message has the numbers)."""


@dataclass(frozen=True)
class MemoryEstimate:
    texts: int  # source segments + reference texts + system outputs
    characters: int
    bytes: int  # the estimate
    budget_bytes: int | None  # None: no budget (the check is off)

    @property
    def within(self) -> bool:
        return self.budget_bytes is None or self.bytes <= self.budget_bytes


def budget_bytes(environ: Mapping[str, str] | None = None) -> int | None:
    """The budget in bytes from ``EVALCORE_MEMORY_BUDGET_MB`` (default :data:`DEFAULT_BUDGET_MB`);
    None when it is 0 (no budget). ValueError names the variable when it is not a whole number."""
    env = os.environ if environ is None else environ
    raw = env.get(BUDGET_ENV, "").strip()
    if not raw:
        return DEFAULT_BUDGET_MB * 1024 * 1024
    try:
        mb = int(raw)
    except ValueError:
        raise ValueError(f"{BUDGET_ENV}={raw!r} is not a whole number of megabytes (0 turns the check off)") from None
    if mb < 0:
        raise ValueError(f"{BUDGET_ENV}={raw!r} is negative; give megabytes, or 0 to turn the check off")
    return mb * 1024 * 1024 if mb else None


def _text_size(frame: Any, column: str) -> tuple[int, int]:
    if frame is None or column not in frame or not len(frame):
        return 0, 0
    col = frame[column]
    return len(col), int(col.astype(str).str.len().sum())


def estimate(datasets: Dataset | Mapping[str, Dataset], environ: Mapping[str, str] | None = None) -> MemoryEstimate:
    """The working-memory estimate of a :class:`~evalcore.core.dataset.Dataset` or of a collection
    ``{lp: Dataset}`` (module docstring), with the budget in force."""
    items = list(datasets.values()) if isinstance(datasets, Mapping) else [datasets]
    texts = chars = 0
    for ds in items:
        for frame, column in ((ds.segments, "source"), (ds.references, "text"), (ds.outputs, "text")):
            n, c = _text_size(frame, column)
            texts, chars = texts + n, chars + c
    return MemoryEstimate(texts, chars, texts * PER_TEXT_BYTES + chars * PER_CHAR_BYTES, budget_bytes(environ))


def _mb(n: int) -> str:
    return f"{n / (1024 * 1024):,.0f} MB"


def check_memory_budget(datasets: Dataset | Mapping[str, Dataset], environ: Mapping[str, str] | None = None) -> MemoryEstimate:
    """The estimate when it is within the budget; :class:`OverBudget` otherwise, saying the
    estimate, what it counts, the budget and the setting that changes it."""
    est = estimate(datasets, environ)
    if not est.within:
        assert est.budget_bytes is not None
        raise OverBudget(
            f"this dataset would need about {_mb(est.bytes)} of working memory ({est.texts:,} texts of "
            f"{est.characters:,} characters in all), over the budget of {_mb(est.budget_bytes)} "
            f"({BUDGET_ENV}={est.budget_bytes // (1024 * 1024)}); use the command line for data this size, "
            f"choose fewer language pairs or systems, or raise {BUDGET_ENV} (0 turns the check off) if the "
            "server has the memory")
    return est
