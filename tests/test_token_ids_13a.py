"""BLEU's batched 13a token ids (:func:`evalcore.metrics.bleu.token_ids_13a`) against sacreBLEU's
own ``Tokenizer13a``: the ids of every text must spell exactly sacreBLEU's tokens (equal tokens,
equal ids; different tokens, different ids), on random strings built from the characters 13a acts
on, and on the real WMT24 texts when ../shared is present."""
from __future__ import annotations

import random

import numpy as np
import pytest
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

from conftest import shared
from evalcore.metrics import bleu as bleu_mod
from evalcore.metrics._caches import clear_caches
from evalcore.metrics.bleu import token_ids_13a

ALPHABET = list("ab.,-&;<>'\"0123 \t\n\rΣσςÉé()[]{}!?$%:/~`^_|@#*+=") + ["&quot;", "&amp;", "&lt;", "&gt;",
                                                                      "<skipped>", "-\n", "1-2", "3.4", "x,y"]


def _assert_spells(texts, lowercase):
    """The ids of text t are a one-to-one renaming of sacreBLEU's tokens of t (BLEU lower-cases
    before tokenising, then tokenises the right-stripped line, as sacreBLEU's BLEU does)."""
    tok = Tokenizer13a()
    flat, offs = token_ids_13a(texts, lowercase)
    assert offs.shape == (len(texts) + 1,) and offs[0] == 0 and offs[-1] == len(flat)
    id_of: dict[str, int] = {}
    token_of: dict[int, str] = {}
    for i, text in enumerate(texts):
        want = tok((text.lower() if lowercase else text).rstrip()).split()
        got = flat[offs[i]:offs[i + 1]].tolist()
        assert len(got) == len(want), (text, want)
        for w, g in zip(want, got):
            assert id_of.setdefault(w, g) == g, (text, w)
            assert token_of.setdefault(g, w) == w, (text, w)
    return len(id_of)


@pytest.mark.parametrize("lowercase", [False, True])
def test_token_ids_spell_sacrebleu_13a_on_random_strings(lowercase):
    rng = random.Random(7)
    texts = ["".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 25))) for _ in range(3000)]
    texts += ["", " ", "\n", "-\nx", "a-\nb c", "&amp;amp;"]
    clear_caches()  # words first seen in this call, then (second call) every word already known
    assert _assert_spells(texts, lowercase) > 50
    assert _assert_spells(texts[::-1], lowercase) > 50


def test_token_ids_restart_when_the_numbering_is_full(monkeypatch):
    """When the kept numbering reaches its bound it starts afresh; the ids still spell the tokens."""
    monkeypatch.setattr(bleu_mod, "WORD_IDS_MAX", 5)
    texts = ["a b c d e f", "g. h, i-1 2-3", "a b"]
    _assert_spells(texts, False)
    first = bleu_mod._WORD_IDS[0]
    _assert_spells(["x y z"], False)
    assert bleu_mod._WORD_IDS[0] is not first and len(bleu_mod._WORD_IDS[0].wid) == 3


def test_token_ids_spell_sacrebleu_13a_on_wmt24_texts():
    folder = shared("wmt24_esa")
    texts = []
    for name in ("references.tsv", "outputs.tsv"):
        lines = (folder / name).read_text(encoding="utf-8").split("\n")
        col = lines[0].split("\t").index("text")
        texts += [row.split("\t")[col] for row in lines[1:] if row]
    rng = np.random.default_rng(0)
    pick = [texts[i] for i in rng.choice(len(texts), size=min(4000, len(texts)), replace=False)]
    clear_caches()
    assert _assert_spells(pick, False) > 1000
    assert _assert_spells(pick[:500], True) > 100
