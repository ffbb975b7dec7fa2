"""Progress reporting for long computations: the commands' stderr counter, and the pages'
(fraction, text) callbacks split into stages (no UI code; the pages pass their own callbacks).
Kept apart from :mod:`evalcore.cli` so that the commands and the plumbing they share
(``evalcore.commands._qarla_support``) never import the CLI entry point."""
from __future__ import annotations

import sys
import time
from typing import Callable


class StderrProgress:
    """A progress callback(done, total) for commands: 'label: done/total' on stderr at most
    twice a second, and only for runs longer than 2 s."""

    def __init__(self, label: str):
        self.label, self.t0, self.last = label, time.time(), 0.0

    def __call__(self, done: int, total: int) -> None:
        now = time.time()
        if now - self.t0 < 2 or (now - self.last < 0.5 and done < total):
            return
        self.last = now
        end = "\n" if done >= total else ""
        print(f"\r{self.label}: {done}/{total} ({now - self.t0:.0f} s)", end=end, file=sys.stderr, flush=True)


# A page's progress callback: progress(fraction in [0, 1], text), or None.
Progress = Callable[[float, str], None] | None


def sub_range(progress: Progress, lo: float, hi: float, text: str) -> Callable[[float, float], None] | None:
    """A (done, total) callback mapped onto [lo, hi] of a (fraction, text) progress."""
    if progress is None:
        return None

    def cb(done: float, total: float) -> None:
        progress(lo + (hi - lo) * (done / total if total else 1.0), text)
    return cb


def stage(progress: Progress, lo: float, hi: float) -> Progress:
    """A (fraction, text) progress for one stage of a longer computation, mapped onto [lo, hi]
    of the whole (fractions outside [0, 1] are clamped)."""
    if progress is None:
        return None
    return lambda f, text: progress(lo + (hi - lo) * min(1.0, max(0.0, f)), text)


class RateProgress(StderrProgress):
    """:class:`StderrProgress` with the rate and the time left: 'label: done/total (12.3
    segments/s, ETA 40 s)' (neural metrics, whose model runs dominate a command's time)."""

    def __init__(self, label: str, unit: str = "segments"):
        super().__init__(label)
        self.unit = unit

    def __call__(self, done: int, total: int) -> None:
        now = time.time()
        if now - self.t0 < 2 or (now - self.last < 0.5 and done < total):
            return
        self.last = now
        rate = done / max(now - self.t0, 1e-9)
        eta = (total - done) / rate if rate > 0 else float("inf")
        end = "\n" if done >= total else ""
        print(f"\r{self.label}: {done}/{total} ({rate:.1f} {self.unit}/s, ETA {eta:.0f} s)", end=end,
              file=sys.stderr, flush=True)
