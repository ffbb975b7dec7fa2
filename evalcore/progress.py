"""Progress reporting for long command-line computations (no UI code; the pages pass their
own callbacks). Kept apart from :mod:`evalcore.cli` so that the commands and the plumbing
they share (``evalcore.commands._qarla_support``) never import the CLI entry point."""
from __future__ import annotations

import sys
import time


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
