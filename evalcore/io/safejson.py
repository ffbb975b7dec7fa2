"""JSON read the way every score source and platform export needs it: strict and never silent.

Python's :func:`json.loads` resolves a key given twice in one object by keeping the last value
("last wins", RFC 8259 section 4 leaves it to the parser), stops with ``RecursionError`` on a
deeply nested text, and accepts ``NaN`` and ``Infinity``. :func:`loads` refuses all of them as
:class:`JSONProblem` (a ``ValueError``) that says where: the line (when the text tells it) and
the JSON path (``$["file.txt"][3]["COMET"]``) of the offending value, never the file's content
beyond the key (cut to :data:`evalcore.core.problems.SHOWN_CHARS`).
"""
from __future__ import annotations

import json
import re

from ..core.problems import shown

#: Nesting deeper than this is refused (every format read here nests at most 5 levels).
MAX_DEPTH = 64


class JSONProblem(ValueError):
    """What is wrong with a JSON text: ``message``, ``line`` (1-based; None when unknown) and
    ``path`` (the JSON path of the offending value; "" for the text as a whole)."""

    def __init__(self, message: str, line: int | None = None, path: str = "") -> None:
        self.message, self.line, self.path = message, line, path
        super().__init__(f"{path}: {message}" if path else message)


def path_of(parts) -> str:
    return "$" + "".join(f"[{json.dumps(p, ensure_ascii=False)}]" if isinstance(p, str) else f"[{p}]" for p in parts)


def _constant(name: str):
    raise ValueError(f"{name} is not a JSON number (write a finite number, or null for none)")


def _same_object(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` (from one key to the next) stays inside one JSON object:
    it never closes more brackets than it opens and ends at the depth it began (strings skipped)."""
    depth, in_str, esc = 0, False, False
    for ch in text[start:end]:
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
            if depth < 0:
                return False
    return depth == 0


def _key_line(text: str, key: str) -> int | None:
    """Line of the first ``"key":`` of ``text`` that repeats the previous one in the same object."""
    pattern = re.compile(re.escape(json.dumps(key, ensure_ascii=False)) + r"\s*:")
    hits = [(m.start(), m.end()) for m in pattern.finditer(text)]
    for (_, after), (h2, _) in zip(hits, hits[1:]):
        if _same_object(text, after, h2):
            return text.count("\n", 0, h2) + 1
    return None


def loads(text: str):
    """The value of the JSON ``text``; :class:`JSONProblem` for invalid JSON, a key given twice
    in one object, ``NaN``/``Infinity``, a number Python cannot hold, or nesting deeper than
    :data:`MAX_DEPTH`."""
    dups: dict[int, list[str]] = {}  # id of an object (alive while this runs) -> its repeated keys

    def _object(pairs: list[tuple[str, object]]) -> dict:
        out: dict = {}
        for k, v in pairs:
            if k in out:
                dups.setdefault(id(out), []).append(k)
            out[k] = v
        return out

    try:
        value = json.loads(text, object_pairs_hook=_object, parse_constant=_constant)
    except json.JSONDecodeError as exc:
        raise JSONProblem(f"not valid JSON: {exc.msg} (column {exc.colno})", exc.lineno) from None
    except RecursionError:
        raise JSONProblem(f"nested too deeply to read (at most {MAX_DEPTH} levels are accepted)") from None
    except ValueError as exc:  # NaN / Infinity, an integer of more than 4300 digits
        raise JSONProblem(f"not usable JSON: {str(exc)[:200]}") from None
    stack: list[tuple[object, tuple]] = [(value, ())]
    while stack:  # iterative: a deep text never recurses here
        node, parts = stack.pop()
        if len(parts) > MAX_DEPTH:
            raise JSONProblem(f"nested more than {MAX_DEPTH} levels deep (at most {MAX_DEPTH} are accepted)", None,
                              path_of(parts[:3]) + "...")
        if isinstance(node, dict):
            for k in dups.get(id(node), []):
                raise JSONProblem(f"key {shown(k)} is given more than once in one object (JSON readers differ "
                                  "on which value counts); keep one", _key_line(text, k), path_of(parts))
            stack.extend((v, parts + (k,)) for k, v in node.items())
        elif isinstance(node, list):
            stack.extend((v, parts + (i,)) for i, v in enumerate(node))
    return value

