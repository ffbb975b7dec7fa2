"""Grapheme-safe text units shared by the annotation and detective tools.

* :func:`graphemes` — user-perceived characters: Unicode extended grapheme clusters (UAX #29, by
  the ``regex`` module's ``\\X``, which sacreBLEU already requires): an accent with its letter, a
  Devanagari conjunct, a Thai consonant with its vowel signs, a flag, a ZWJ emoji sequence.
* :func:`mark_units` — the units a student clicks to mark an error span: whitespace-separated
  words, and in scripts written without spaces (Han, Hiragana, Katakana, Thai, Lao, Khmer,
  Myanmar, Tibetan) each grapheme of those scripts on its own (runs of other characters inside such
  a word, e.g. a Latin name or a number, stay one unit). Every unit boundary is a grapheme
  boundary, so a span built from units never cuts a character in any script.

Nothing here imports streamlit.
"""
from __future__ import annotations

import unicodedata

#: Unicode character-name prefixes of the scripts written without spaces between words
NO_SPACE_SCRIPTS = ("CJK", "HIRAGANA", "KATAKANA", "THAI", "LAO", "KHMER", "MYANMAR", "TIBETAN",
                    "IDEOGRAPHIC", "HALFWIDTH KATAKANA", "FULLWIDTH")


def graphemes(text: str) -> list[str]:
    """``text`` as extended grapheme clusters (UAX #29); ``"".join`` gives ``text`` back."""
    import regex

    return regex.findall(r"\X", text)


def _no_space(g: str) -> bool:
    name = unicodedata.name(g[0], "")
    return name.startswith(NO_SPACE_SCRIPTS)


def mark_units(text: str) -> list[tuple[int, int]]:
    """Character [start, end) of each clickable unit of ``text`` (module docstring), in order."""
    out: list[tuple[int, int]] = []
    pos = 0
    run_start = None
    for g in graphemes(text):
        end = pos + len(g)
        if g.isspace():
            if run_start is not None:
                out.append((run_start, pos))
                run_start = None
        elif _no_space(g):
            if run_start is not None:
                out.append((run_start, pos))
                run_start = None
            out.append((pos, end))
        elif run_start is None:
            run_start = pos
        pos = end
    if run_start is not None:
        out.append((run_start, pos))
    return out
