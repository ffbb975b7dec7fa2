"""Tokenisation shared by every word-level metric: sacreBLEU's own tokenizers.

``tokenize(text, name="13a", lowercase=False)`` returns the list of tokens. The names are
sacreBLEU's: ``13a`` (default), ``intl``, ``char``, ``zh``, ``none``. Using sacreBLEU's
classes keeps our BLEU/NIST/GTM/... token streams identical to sacreBLEU's (VizSeq's
tokeniser mismatch, design-lessons.md, is what this avoids). Results are memoised per
(tokenizer, lowercase) because the same reference is tokenised many times in pairwise runs.
"""
from __future__ import annotations

from functools import lru_cache

from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a
from sacrebleu.tokenizers.tokenizer_char import TokenizerChar
from sacrebleu.tokenizers.tokenizer_intl import TokenizerV14International
from sacrebleu.tokenizers.tokenizer_none import NoneTokenizer
from sacrebleu.tokenizers.tokenizer_zh import TokenizerZh

TOKENIZERS = {
    "13a": Tokenizer13a,
    "intl": TokenizerV14International,
    "char": TokenizerChar,
    "zh": TokenizerZh,
    "none": NoneTokenizer,
}


@lru_cache(maxsize=None)
def _tokenizer(name: str):
    try:
        return TOKENIZERS[name]()
    except KeyError:
        raise ValueError(f"unknown tokenizer {name!r}; choose one of {sorted(TOKENIZERS)}") from None


@lru_cache(maxsize=1 << 18)
def _tokenize(text: str, name: str, lowercase: bool) -> tuple[str, ...]:
    if lowercase:
        text = text.lower()
    return tuple(_tokenizer(name)(text.rstrip()).split())


def tokenize(text: str, name: str = "13a", lowercase: bool = False) -> tuple[str, ...]:
    """Tokens of ``text`` as sacreBLEU's tokenizer ``name`` produces them (a tuple)."""
    return _tokenize(text, name, lowercase)
