"""Safe HTML for highlighted text: the ONLY place where HTML is built from user text.

Every piece of user text is escaped with :func:`html.escape` first; then the characters that
Markdown, GitHub-flavoured Markdown or LaTeX (``$``) would interpret are replaced by numeric
character references (CommonMark treats those as literal text), so the result can go through
``st.markdown(..., unsafe_allow_html=True)`` and is shown literally. Only then are ``<mark>``
and ``<span>`` tags we build ourselves added around matched token spans.

Autolinks: the GFM autolink-literal extension of the browser's Markdown renderer also links
``http://…``, ``www.…`` and ``name@host.tld`` found in the *decoded* text, so the character
references alone do not stop them. :func:`escape` therefore puts an invisible U+2060 WORD JOINER
inside every ``://``, after every ``@`` and between ``www`` and the following ``.``: the text
looks the same, but no autolink pattern matches (user text never becomes a link). The same function serves plain
Markdown (``st.markdown``, ``st.caption``, alerts, widget labels): pages use it as
``pages.common.md``.
"""
from __future__ import annotations

import html
import re
from typing import Sequence

# characters with a meaning in Markdown / GFM / KaTeX, and line breaks
_MD = {c: f"&#{ord(c)};" for c in "\\`*_{}[]()#+-.!|~$:^=@'\"<>&"}
_MD["\n"] = "<br>"
_MD["\r"] = ""

WORD_JOINER = "\u2060"
_WWW_DOT = re.compile(r"(www)(\.)", re.IGNORECASE)

MARK_STYLE = "background:#ffe28a;padding:0 1px;border-radius:2px"


def escape(text: str | None) -> str:
    """User text -> inert HTML: html.escape first, then every Markdown/LaTeX control
    character as a numeric reference (shown literally by the browser)."""
    if text is None:
        return ""
    s = str(text).replace("://", ":" + WORD_JOINER + "//").replace("@", "@" + WORD_JOINER)
    s = _WWW_DOT.sub(r"\1" + WORD_JOINER + r"\2", s)  # defeat GFM autolinks (module docstring)
    s = html.escape(s, quote=True)
    # html.escape produced entities (&amp; &lt; &gt; &quot; &#x27;): keep them, neutralise the rest
    out = []
    i = 0
    while i < len(s):
        c = s[i]
        if c == "&":
            j = s.find(";", i)
            out.append(s[i:j + 1])  # an entity html.escape just made
            i = j + 1
            continue
        out.append(_MD.get(c, c))
        i += 1
    return "".join(out)


def highlight_tokens(tokens: Sequence[str], spans: Sequence[tuple[int, int]], title: str | None = None) -> str:
    """Tokens joined by spaces, each escaped (:func:`escape`), with ``<mark>`` around the
    half-open token spans [start, end)."""
    starts: dict[int, int] = {}
    for a, b in spans:
        if 0 <= a < b <= len(tokens):
            starts[a] = max(b, starts.get(a, a))
    parts = []
    i = 0
    while i < len(tokens):
        if i in starts:
            end = starts[i]
            inner = " ".join(escape(t) for t in tokens[i:end])
            tip = f' title="{escape(title)}"' if title else ""
            parts.append(f'<mark style="{MARK_STYLE}"{tip}>{inner}</mark>')
            i = end
        else:
            parts.append(escape(tokens[i]))
            i += 1
    return " ".join(parts)


def box(label: str, body_html: str, note: str | None = None) -> str:
    """A bordered block: an escaped ``label``, an already-safe body (from this module) and an
    escaped note."""
    note_html = f'<div style="color:#666;font-size:0.8em;margin-top:4px">{escape(note)}</div>' if note else ""
    return ('<div style="border:1px solid #ddd;border-radius:6px;padding:8px 10px;margin-bottom:8px;'
            'line-height:1.7">'
            f'<div style="font-weight:600;font-size:0.85em;color:#444;margin-bottom:4px">{escape(label)}</div>'
            f'<div>{body_html}</div>{note_html}</div>')


def reference_pair_html(ref_id: str, ref_tokens: Sequence[str], ref_spans, cand_tokens: Sequence[str],
                        cand_spans, matched: dict | None = None) -> str:
    """One reference with the tokens it shares with the output marked, and the output with the
    tokens this reference matches marked (n-grams up to 4, clipped counts)."""
    note = None
    if matched:
        note = "matched n-grams vs this reference: " + ", ".join(f"{n}-gram {k}" for n, k in sorted(matched.items()))
    ref_html = highlight_tokens(ref_tokens, ref_spans, title="shared with the output")
    out_html = highlight_tokens(cand_tokens, cand_spans, title=f"matched by {ref_id}")
    body = (f'<div>{ref_html}</div><div style="margin-top:6px;padding-top:4px;border-top:1px dashed #ddd">'
            f'<span style="color:#666;font-size:0.8em">output vs {escape(ref_id)}: </span>{out_html}</div>')
    return box(ref_id, body, note)


def plain_box(label: str, text: str | None) -> str:
    """A labelled block of escaped text (no marks)."""
    return box(label, escape(text) if text is not None else "<em>(no text)</em>")


def diff_html(tokens: Sequence[tuple[str, bool]], colour: str, label: str) -> str:
    """Tokens of one side of a word diff (``(token, same)`` pairs from
    :func:`evalcore.analysis.compare.word_diff`), each escaped (:func:`escape`); tokens only this side has
    are underlined and tinted with ``colour`` (a colour-blind-safe hex) so the difference shows
    without relying on colour alone. ``label`` names the side (escaped)."""
    parts = []
    for tok, same in tokens:
        t = escape(tok)
        if same:
            parts.append(t)
        else:
            parts.append(f'<span style="background:{colour}33;border-bottom:2px solid {colour};padding:0 1px" '
                         f'title="only in {escape(label)}">{t}</span>')
    return " ".join(parts)


#: colour and underline of a human error span by severity (the underline style tells them
#: apart without colour: solid = major/critical, dashed = minor, dotted = other)
SEVERITY_STYLE = {"critical": ("#7b0000", "solid"), "major": ("#d62728", "solid"), "minor": ("#f28e2b", "dashed"),
                  "neutral": ("#8c8c8c", "dotted"), "undecided": ("#8c8c8c", "dotted")}
#: the marks of a metric (BLEU unmatched tokens, chrF unmatched characters, TER edits)
METRIC_MARK = ("#4e79a7", "double")
_RANK = {"critical": 0, "major": 1, "minor": 2, "neutral": 3, "undecided": 3}


def grapheme_bounds(text: str) -> list[int]:
    """The start offsets of ``text``'s extended grapheme clusters (Unicode UAX #29, the
    ``regex`` module's ``\\X``), and ``len(text)``: a Devanagari consonant with its vowel sign and
    virama, a Thai consonant with its tone mark, an emoji ZWJ sequence are one cluster each."""
    import regex

    return [m.start() for m in regex.finditer(r"\X", text)] + [len(text)]


def _whole_clusters(text: str, owner: list, spans) -> None:
    """Give every code point of a grapheme cluster the cluster's most severe owner (in place),
    so that no mark starts or ends inside a cluster (a vowel sign is never cut from its consonant,
    nor a skin tone or ZWJ from its emoji)."""
    if text.isascii():
        return
    bounds = grapheme_bounds(text)
    for a, b in zip(bounds, bounds[1:]):
        if b - a < 2:
            continue
        ks = {owner[i] for i in range(a, b)} - {None}
        if not ks:
            continue
        best = min(ks, key=lambda k: _RANK.get(spans[k][2], 4))
        for i in range(a, b):
            owner[i] = best


def char_spans_html(text: str | None, spans) -> str:
    """``text`` with character spans marked: ``spans`` = (start, end, kind, tip) with end
    exclusive, ``kind`` a severity of :data:`SEVERITY_STYLE` or ``"mark"`` (a metric's mark),
    ``tip`` shown on hover (escaped). Where spans overlap the most severe one is drawn. A mark
    never splits a grapheme cluster: a cluster partly inside a span is drawn whole
    (:func:`grapheme_bounds`). Every piece of the text is escaped with :func:`escape` before a tag
    is put around it."""
    if text is None:
        return "<em>(no text)</em>"
    n = len(text)
    owner: list[int | None] = [None] * n
    for k, (a, b, kind, _tip) in enumerate(spans):
        r = _RANK.get(kind, 4)
        for i in range(max(0, int(a)), min(n, int(b))):
            o = owner[i]
            if o is None or r < _RANK.get(spans[o][2], 4):
                owner[i] = k
    _whole_clusters(text, owner, spans)
    parts = []
    i = 0
    while i < n:
        j = i
        while j < n and owner[j] == owner[i]:
            j += 1
        piece = escape(text[i:j])
        o = owner[i]
        if o is None:
            parts.append(piece)
        else:
            kind, tip = spans[o][2], spans[o][3]
            colour, line = METRIC_MARK if kind == "mark" else SEVERITY_STYLE.get(kind, ("#8c8c8c", "dotted"))
            parts.append(f'<span style="background:{colour}2e;border-bottom:2px {line} {colour};padding:0 1px" '
                         f'title="{escape(tip)}">{piece}</span>')
        i = j
    return "".join(parts)


def span_layers_html(text: str | None, layers) -> str:
    """The same text once per layer (a rater's error spans, a metric's marks), stacked, each
    with its escaped label and an optional escaped note: ``layers`` = (label, spans, note)."""
    rows = []
    for label, spans, note in layers:
        note_html = f' <span style="color:#666;font-size:0.8em">{escape(note)}</span>' if note else ""
        rows.append(f'<div style="margin:2px 0 6px 0"><div style="font-size:0.8em;color:#444;font-weight:600">'
                    f'{escape(label)}{note_html}</div><div>{char_spans_html(text, spans)}</div></div>')
    return "".join(rows)
