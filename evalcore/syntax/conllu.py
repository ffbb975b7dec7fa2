"""Uploaded dependency parses in CoNLL-U (https://universaldependencies.org/format.html).

Users who work on a target language without a built-in parser (or who prefer their own
parser) upload CoNLL-U files; the syntactic families then work for any language.

**Which text a sentence parses.** Each sentence block names the text it parses with

    # sent_id = <system-or-ref_id>:<seg_id>

(split at the **last** colon, so system names may contain colons; seg_ids may not), or
with the explicit pair ``# system = <name>`` (or ``# ref_id = <name>``) and
``# seg_id = <seg_id>``, which wins over ``sent_id``. A segment whose text the parser split
into several sentences is given as consecutive blocks with the same key; they are joined into
one parse in file order. ``# text = ...`` is optional; when present it must equal the
dataset's text (whitespace-normalised). Without it, the word forms (or the multiword-token
forms) with whitespace removed are compared with the text with whitespace removed, and a
mismatch is a warning (parsers may normalise quotes and the like).

Parses can also be registered purely by text (:func:`register_by_text`): each block's
``# text`` (or its forms joined by spaces) is the key the metrics look up.

Validation reports every problem at once with the file, the sentence number (1-based; plus
its sent_id) and the physical line (:class:`evalcore.core.problems.Report`), and raises
:class:`evalcore.core.problems.DataError` when there is any error. Multiword-token lines (``3-4``)
and empty nodes (``5.1``) are checked for form but not used in the trees.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Sequence, Union

from ..core.problems import DataError, Report
from .parsing import UPOS_TAGS, Parse, ParseProvider, compute_depths, get_provider

Source = Union[bytes, str, os.PathLike]

_UPOS = set(UPOS_TAGS)
_INT = re.compile(r"^[1-9][0-9]*$")
_RANGE = re.compile(r"^([1-9][0-9]*)-([1-9][0-9]*)$")
_EMPTY = re.compile(r"^([0-9]+)\.([1-9][0-9]*)$")


@dataclass
class ConlluSentence:
    number: int  # 1-based position in the file
    line: int  # physical line of the block's first line
    comments: dict[str, str]
    parse: Parse
    surface: str  # multiword-token forms where present, else word forms, joined by spaces
    comment_lines: dict[str, int] = field(default_factory=dict)  # comment key -> physical line

    def line_of(self, *keys: str) -> int:
        """Line of the first of these comments present, else the block's first line."""
        for k in keys:
            if k in self.comment_lines:
                return self.comment_lines[k]
        return self.line

    @property
    def sent_id(self) -> str | None:
        return self.comments.get("sent_id")

    @property
    def text(self) -> str:
        """``# text`` when given, else the surface tokens joined by single spaces."""
        return self.comments.get("text", self.surface)

    @property
    def key(self) -> tuple[str, str] | None:
        """(system or ref_id, seg_id) from the comments, or None."""
        name = self.comments.get("system", self.comments.get("ref_id"))
        seg = self.comments.get("seg_id")
        if name is not None and seg is not None:
            return name, seg
        sid = self.sent_id
        if sid and ":" in sid:
            name, seg = sid.rsplit(":", 1)
            if name and seg:
                return name, seg
        return None


def _read_bytes(source: Source, name: str | None) -> tuple[bytes, str]:
    if isinstance(source, (bytes, bytearray)):
        return bytes(source), name or "upload.conllu"
    if isinstance(source, str) and "\n" in source:  # CoNLL-U text rather than a path
        return source.encode("utf-8"), name or "upload.conllu"
    path = Path(source)
    return path.read_bytes(), name or path.name


def read_conllu(source: Source, name: str | None = None, report: Report | None = None) -> list[ConlluSentence]:
    """Read and validate one CoNLL-U file (bytes, a path, or the text itself when it contains a
    newline). ``name`` is the file name shown in
    messages. All problems are collected; with a caller-supplied ``report`` nothing is raised
    (the caller decides), otherwise :class:`DataError` is raised when there is an error."""
    own = report is None
    rep = report if report is not None else Report()
    try:
        data, fname = _read_bytes(source, name)
    except OSError as exc:
        rep.error(str(name or source), None, f"cannot read the file: {exc}")
        if own:
            raise DataError(rep)
        return []
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        rep.error(fname, line, f"not UTF-8 text (byte {exc.start}); save the file as UTF-8")
        if own:
            raise DataError(rep)
        return []

    sentences: list[ConlluSentence] = []
    block: list[tuple[int, str]] = []
    count = 0
    lines = text.splitlines()
    for lineno, raw in enumerate(lines, start=1):
        if raw.strip() == "":
            if block:
                count += 1
                s = _parse_block(block, count, fname, rep)
                if s is not None:
                    sentences.append(s)
                block = []
            continue  # several blank lines in a row are tolerated
        block.append((lineno, raw))
    if block:
        count += 1
        s = _parse_block(block, count, fname, rep)
        if s is not None:
            sentences.append(s)
    if not sentences and rep.ok:
        rep.error(fname, None, "no sentences found (a CoNLL-U file has one token per line, "
                               "10 tab-separated columns, sentences separated by blank lines)")
    if own and not rep.ok:
        raise DataError(rep)
    return sentences


def _parse_block(block: list[tuple[int, str]], number: int, fname: str, rep: Report) -> ConlluSentence | None:
    first_line = block[0][0]
    comments: dict[str, str] = {}
    comment_lines: dict[str, int] = {}
    for lineno, raw in block:
        if raw.startswith("#"):
            body = raw[1:].strip()
            if "=" in body:
                k, v = body.split("=", 1)
                comments[k.strip()] = v.strip()
                comment_lines[k.strip()] = lineno
    sid = comments.get("sent_id")
    where = f"sentence {number}" + (f" (sent_id {sid})" if sid else "")
    errors: list[tuple[int, str]] = []

    def err(line: int, msg: str) -> None:
        errors.append((line, f"{where}: {msg}"))

    s = _build_sentence(block, number, first_line, comments, err, errors)
    if s is not None:
        s.comment_lines = comment_lines
    for line, msg in sorted(errors, key=lambda e: e[0]):
        rep.error(fname, line, msg)
    return s if not errors else None


def _token_lines(block, err) -> tuple[list, dict[int, tuple[int, str]]]:
    """The word lines of one block in order, (line, columns) each (None for an unreadable line
    that still takes its place), and the multiword tokens; problems go to ``err``."""
    words: list[tuple[int, list[str]] | None] = []  # (line, columns); None = unreadable line
    mwt: dict[int, tuple[int, str]] = {}  # first word id -> (last word id, surface form)
    for lineno, raw in block:
        if raw.startswith("#"):
            if words:
                err(lineno, "comment line inside the token lines; comments go before the first token")
            continue
        cols = raw.split("\t")
        if len(cols) != 10:
            hint = " (columns must be separated by tabs, not spaces)" if len(cols) == 1 and " " in raw else ""
            err(lineno, f"expected 10 tab-separated columns, found {len(cols)}{hint}")
            first = raw.split()[0] if raw.split() else ""
            if first == str(len(words) + 1):
                words.append(None)  # keep counting so later lines are not reported as out of order
            continue
        tid = cols[0]
        if (m_range := _RANGE.match(tid)):
            a, b = map(int, m_range.groups())
            if b <= a:
                err(lineno, f"multiword token range {tid!r} must go from a lower to a higher word ID")
            elif a != len(words) + 1:
                err(lineno, f"multiword token {tid!r} must come right before word {len(words) + 1}")
            else:
                mwt[a] = (b, cols[1])
            continue
        if _EMPTY.match(tid):
            continue  # enhanced-graph empty node: not part of the basic tree
        if not _INT.match(tid):
            err(lineno, f"ID {tid!r} is not a word ID (1, 2, ...), a range (3-4) or an empty node (5.1)")
            continue
        if int(tid) != len(words) + 1:
            err(lineno, f"word ID {tid} out of order; expected {len(words) + 1}")
            continue
        words.append((lineno, cols))
    return words, mwt


def _checked_word(lineno, tid, form, up, head, deprel, n, err) -> int:
    """Check one word's FORM, UPOS, HEAD and DEPREL (problems go to ``err``); its 0-based head,
    -1 for the root or an unusable HEAD."""
    if form == "":
        err(lineno, f"word {tid} has an empty FORM")
    if up not in _UPOS:
        err(lineno, f"word {tid} has UPOS {up!r}; use one of the 17 universal tags "
                    f"({', '.join(UPOS_TAGS)})")
    if head == "_" or not re.match(r"^(0|[1-9][0-9]*)$", head):
        err(lineno, f"word {tid} has HEAD {head!r}; the syntactic metrics need a dependency tree "
                    f"(HEAD = 0 for the root, otherwise the ID of a word of this sentence)")
        h = -1
    else:
        h = int(head) - 1
        if h >= n:
            err(lineno, f"word {tid} has HEAD {head}, but the sentence has only {n} words")
            h = -1
        elif h == int(tid) - 1:
            err(lineno, f"word {tid} is its own head")
            h = -1
    if deprel in ("", "_"):
        err(lineno, f"word {tid} has no DEPREL")
    return h


def _build_sentence(block, number, first_line, comments, err, errors) -> ConlluSentence | None:
    """Check the token lines of one block (problems go to ``err``) and build its parse."""
    words, mwt = _token_lines(block, err)
    if not words:
        if not errors:
            err(first_line, "sentence without any word line")
        return None

    n = len(words)
    forms, lemmas, upos, xpos, heads, deprels = [], [], [], [], [], []
    for entry in words:
        if entry is None:
            continue
        lineno, cols = entry
        tid, form, lemma, up, xp, _feats, head, deprel = cols[:8]
        h = _checked_word(lineno, tid, form, up, head, deprel, n, err)
        forms.append(form)
        lemmas.append(lemma)
        upos.append(up)
        xpos.append(xp)
        heads.append(h)
        deprels.append(deprel)

    if not errors:
        if all(h >= 0 for h in heads):
            err(first_line, "no root (no word has HEAD 0)")
        else:
            try:
                depths = compute_depths(heads)
            except ValueError as exc:
                err(first_line, f"not a tree: {exc}")
    if errors:
        return None

    surface: list[str] = []
    i = 1
    while i <= n:
        if i in mwt:
            last, form = mwt[i]
            surface.append(form)
            i = last + 1
        else:
            surface.append(forms[i - 1])
            i += 1
    parse = Parse(tuple(forms), tuple(lemmas), tuple(upos), tuple(xpos), tuple(heads), tuple(deprels), depths)
    return ConlluSentence(number, first_line, comments, parse, " ".join(surface))


def write_conllu(items: Iterable[tuple[str, str, Parse]]) -> str:
    """CoNLL-U text for (sent_id, text, parse) items, one block per parse (a parse with several
    roots, e.g. a text spaCy split into two sentences, stays one block with several roots)."""
    out = []
    for sid, text, p in items:
        out.append(f"# sent_id = {sid}")
        out.append(f"# text = {' '.join(text.split())}")
        for i in range(len(p)):
            out.append("\t".join([str(i + 1), p.forms[i], p.lemmas[i] or "_", p.upos[i], p.xpos[i] or "_", "_",
                                  str(p.heads[i] + 1), p.deprels[i], "_", "_"]))
        out.append("")
    return "\n".join(out) + ("\n" if out else "")


def _norm(s: str) -> str:
    return " ".join(s.split())


def align_conllu(dataset, files: Sequence[tuple[Source, str | None]]) -> tuple[dict[tuple[str, str], Parse], Report]:
    """Read every file and map each (system or ref_id, seg_id) to its parse, checked against the
    dataset. Returns ``(parses, report)``; raises :class:`DataError` (every problem of every
    file) on any error. Warnings (surface mismatches, texts left without a parse) stay in the
    report."""
    rep = Report()
    per_file = []
    for source, name in files:
        fname = name or (Path(source).name if not isinstance(source, (bytes, bytearray)) else "upload.conllu")
        per_file.append((fname, read_conllu(source, fname, report=rep)))

    texts: dict[tuple[str, str], str] = {}
    for ref_id, col in dataset.ref_texts().items():
        for seg, t in zip(dataset.seg_ids, col):
            if t is not None:
                texts[(ref_id, seg)] = t
    for sysname, col in dataset.sys_texts().items():
        for seg, t in zip(dataset.seg_ids, col):
            if t is not None:
                texts[(sysname, seg)] = t
    names = set(dataset.ref_ids) | set(dataset.systems)
    seg_set = set(dataset.seg_ids)

    groups: dict[tuple[str, str], list[ConlluSentence]] = {}
    where: dict[tuple[str, str], tuple[str, int]] = {}
    for fname, sents in per_file:
        last_key = None
        for s in sents:
            key = s.key
            kline = s.line_of("sent_id", "system", "ref_id", "seg_id")
            loc = f"sentence {s.number}" + (f" (sent_id {s.sent_id})" if s.sent_id else "")
            if key is None:
                rep.error(fname, kline, f"{loc}: no '# sent_id = <system-or-ref_id>:<seg_id>' comment "
                                         f"(or '# system = ...' / '# ref_id = ...' with '# seg_id = ...')")
                last_key = None
                continue
            name, seg = key
            if name not in names:
                known = sorted(names)
                rep.error(fname, kline, f"{loc}: {name!r} is neither a system nor a reference set of the "
                                         f"dataset (known: {', '.join(known[:12])}{', ...' if len(known) > 12 else ''})")
                last_key = key
                continue
            if seg not in seg_set:
                rep.error(fname, kline, f"{loc}: segment {seg!r} is not in the dataset")
                last_key = key
                continue
            if key not in texts:
                rep.error(fname, kline, f"{loc}: {name!r} has no text for segment {seg!r}")
                last_key = key
                continue
            if key in groups and key != last_key:
                f0, l0 = where[key]
                rep.error(fname, kline, f"{loc}: {name}:{seg} was already given in {f0}, line {l0}; several "
                                         f"sentences of one segment must be consecutive blocks")
                last_key = key
                continue
            groups.setdefault(key, []).append(s)
            where.setdefault(key, (fname, s.line_of("text", "sent_id", "seg_id")))
            last_key = key

    parses: dict[tuple[str, str], Parse] = {}
    for key, sents in groups.items():
        fname, line = where[key]
        target = texts[key]
        given = [s.comments["text"] for s in sents if "text" in s.comments]
        if len(given) == len(sents):
            if _norm(" ".join(given)) != _norm(target):
                rep.error(fname, line, f"{key[0]}:{key[1]}: '# text' {_norm(' '.join(given))[:60]!r} differs "
                                       f"from the dataset text {_norm(target)[:60]!r}")
                continue
        elif "".join("".join(s.surface.split()) for s in sents) != "".join(target.split()):
            rep.warning(fname, line, f"{key[0]}:{key[1]}: the word forms do not spell the dataset text "
                                     f"{_norm(target)[:60]!r}; the parse is used anyway")
        parses[key] = sents[0].parse if len(sents) == 1 else Parse.concat([s.parse for s in sents])

    if not rep.ok:
        raise DataError(rep)
    missing = [k for k in texts if k not in parses]
    if missing and parses:
        by_name: dict[str, int] = {}
        for name, _ in missing:
            by_name[name] = by_name.get(name, 0) + 1
        summary = ", ".join(f"{n}: {c}" for n, c in sorted(by_name.items())[:10])
        rep.warning("", None, f"{len(missing)} text(s) of the dataset have no uploaded parse ({summary}); "
                              f"they need the built-in parser")
    return parses, rep


def register_conllu(dataset, files: Sequence[tuple[Source, str | None]],
                    provider: ParseProvider | None = None) -> Report:
    """Validate, align and register uploaded parses so the metrics use them for the dataset's
    texts. Raises :class:`DataError` on any error; returns the report (warnings)."""
    parses, rep = align_conllu(dataset, files)
    pos = {s: i for i, s in enumerate(dataset.seg_ids)}
    refs, outs = dataset.ref_texts(), dataset.sys_texts()
    texts = {}
    for (name, seg), p in parses.items():
        col = refs[name] if name in refs else outs[name]
        texts[col[pos[seg]]] = p
    (provider or get_provider()).register_many(texts)
    from . import metrics

    metrics.clear_caches()
    return rep


def register_by_text(sentences: Sequence[ConlluSentence], provider: ParseProvider | None = None) -> int:
    """Register parses keyed by each sentence's text (``# text``, else its forms joined by
    spaces); returns how many were registered."""
    items = {s.text: s.parse for s in sentences}
    (provider or get_provider()).register_many(items)
    from . import metrics

    metrics.clear_caches()
    return len(items)
