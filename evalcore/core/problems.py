"""Validation problems: every problem with its file, line and fix, all reported at once.

Loaders collect :class:`Problem` objects into a :class:`Report` instead of raising on the
first one (design-lessons.md, lesson 7). When the report has errors the loader raises
:class:`DataError`, which carries the whole report, so nothing is ever partially loaded.
Warnings (empty outputs, judgements of texts that are absent, ...) travel with the dataset.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

ERROR = "error"
WARNING = "warning"

#: Scores (human judgements and bring-your-own metric scores) must be finite and within
#: +-MAX_ABS_SCORE. Real scales (DA 0-100, MQM penalties, z-scores, metric scores) stay far
#: below it; beyond it squares and sums in the statistics overflow, so such values are
#: reported by validation (with file and line) instead of breaking a correlation later.
MAX_ABS_SCORE = 1e9


def score_problem(value: float) -> str | None:
    """Why a parsed score is unusable (not finite, or beyond +-MAX_ABS_SCORE), or None."""
    if value != value or value in (float("inf"), float("-inf")):
        return "is not a finite number"
    if abs(value) > MAX_ABS_SCORE:
        return f"is beyond the accepted range of ±{MAX_ABS_SCORE:.0e} (a typo or a wrong column?)"
    return None


@dataclass(frozen=True)
class Problem:
    severity: str  # "error" | "warning"
    file: str  # file name as the user knows it ("" when not tied to one file)
    line: int | None  # 1-based physical line number (header = line 1); None for a whole file
    message: str  # what is wrong and how to fix it

    def __str__(self) -> str:
        where = self.file or "<dataset>"
        if self.line is not None:
            where += f", line {self.line}"
        return f"{self.severity.upper()}: {where}: {self.message}"


@dataclass
class Report:
    problems: list[Problem] = field(default_factory=list)

    def error(self, file: str, line: int | None, message: str) -> None:
        self.problems.append(Problem(ERROR, file, line, message))

    def warning(self, file: str, line: int | None, message: str) -> None:
        self.problems.append(Problem(WARNING, file, line, message))

    def extend(self, problems: Iterable[Problem]) -> None:
        self.problems.extend(problems)

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == ERROR]

    @property
    def warnings(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == WARNING]

    @property
    def ok(self) -> bool:
        return not self.errors

    def to_frame(self):
        import pandas as pd

        return pd.DataFrame(
            [(p.severity, p.file, p.line, p.message) for p in self.problems],
            columns=["severity", "file", "line", "message"],
        )

    def __str__(self) -> str:
        return "\n".join(str(p) for p in self.problems)


class DataError(Exception):
    """Raised with the complete report when input data has at least one error."""

    def __init__(self, report: Report):
        self.report = report
        n = len(report.errors)
        super().__init__(f"{n} problem{'s' if n != 1 else ''} in the input data:\n{report}")
