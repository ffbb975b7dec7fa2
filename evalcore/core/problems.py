"""Validation problems: every problem with its file, line and fix, all reported at once.

Loaders collect :class:`Problem` objects into a :class:`Report` instead of raising on the
first one (design-lessons.md, lesson 7). When the report has errors the loader raises
:class:`DataError`, which carries the whole report, so nothing is ever partially loaded.
Warnings (empty outputs, judgements of texts that are absent, ...) travel with the dataset.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterable

if TYPE_CHECKING:
    import pandas as pd

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


#: Characters a name (system, segment id, rater, judgement, reference set, metric, ...) may not
#: hold: control characters (tab, line breaks, NUL, ...) and the Unicode line/paragraph
#: separators. A name holding one cannot be written back as one TSV field that reads as itself.
CONTROL_CHARS = "[\x00-\x1f\x7f-\x9f\u2028\u2029]"
_CONTROL_RE = re.compile(CONTROL_CHARS)
#: How much of a value from a file a message repeats (the rest is cut, marked ``...``): enough
#: to recognise the field, never a file's content.
SHOWN_CHARS = 60


def shown(value: object, limit: int = SHOWN_CHARS) -> str:
    """``repr`` of a value from a file for a message, cut to ``limit`` characters (escapes
    included: control characters show as ``\\x01``)."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


def name_problem(name: object) -> str | None:
    """Why ``name`` is unusable as a name (not text, empty, or holding a control character), or None."""
    if not isinstance(name, str):
        return f"{shown(name)} is not text"
    if not name.strip():
        return "is empty"
    if _CONTROL_RE.search(name):
        return f"{shown(name)} holds a control character (tab, line break, NUL, ...)"
    return None


def parse_score(value: object) -> tuple[float | None, str | None]:
    """(score, None), or (None, why) for a value that is no usable score: not a number (text
    that does not parse, a boolean, a list...), not finite, or beyond ±MAX_ABS_SCORE
    (:func:`score_problem`). Accepts text (``"0.5"``), ints (also a 400-digit one, which
    ``float()`` cannot convert: reported, not an ``OverflowError``) and floats."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return None, f"{shown(value)} is not a number"
    try:
        x = float(value.strip() if isinstance(value, str) else value)
    except OverflowError:
        return None, f"{shown(value)} is beyond the accepted range of ±{MAX_ABS_SCORE:.0e}"
    except ValueError:
        return None, f"{shown(value)} is not a number (use . as the decimal point)"
    why = score_problem(x)
    return (None, f"{shown(value)} {why}") if why else (x, None)


class ScoreCheck:
    """The one validation path of a score read from any source (tidy scores, mt-metrics-eval score
    files, COMET JSON, MetricX JSONL, pymarian TSV, platform exports): :func:`parse_score` with
    the file, the line, and in JSON the path of the value (``$["sys.txt"][3]["COMET"]``) in
    ``report``. :meth:`score` returns the usable value, None when refused (the row is left out
    and the report says why). Names go through :func:`name_problem`."""

    def __init__(self, report: "Report", file: str) -> None:
        self.report = report
        self.file = file

    def score(self, value: object, line: int | None, path: str = "", what: str = "score") -> float | None:
        x, why = parse_score(value)
        if why:
            self.report.error(self.file, line, f"{path}: {what} {why}" if path else f"{what} {why}")
        return x


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

    def to_frame(self) -> pd.DataFrame:
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
