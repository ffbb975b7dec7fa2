"""TER's bit-parallel edit distance for references over 62 words (64-bit blocks,
:func:`evalcore.metrics.ter._myers_blocks_step`): the block step against a brute-force
Levenshtein table, and the whole Tercom search (:func:`evalcore.metrics.ter.ter_edits`) on long
pairs against sacreBLEU's ``translation_edit_rate``."""
from __future__ import annotations

import random

import numpy as np
import pytest

from evalcore.metrics import ter as ter_mod

pytestmark = pytest.mark.skipif(not ter_mod.kernel_available(), reason="numba is not installed")


def _levenshtein(a, b) -> list[int]:
    """Unit-cost distance of every prefix a[:i] to the whole of b (the plain table)."""
    row = list(range(len(b) + 1))
    out = [row[-1]]
    for i in range(1, len(a) + 1):
        new = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            new[j] = min(row[j] + 1, new[j - 1] + 1, row[j - 1] + (a[i - 1] != b[j - 1]))
        row = new
        out.append(row[-1])
    return out


def test_block_step_is_levenshtein_at_every_prefix():
    rng = random.Random(5)
    for n_r in (1, 30, 62, 63, 64, 65, 127, 128, 129, 190):
        for vocab in (2, 6, 50):
            r = [rng.randrange(vocab) for _ in range(n_r)]
            h = [rng.randrange(vocab) for _ in range(rng.randint(0, 150))]
            nb = (n_r + 63) // 64
            pv = np.full(nb, np.iinfo(np.uint64).max, dtype=np.uint64)
            mv = np.zeros(nb, dtype=np.uint64)
            top = np.uint64(1) << np.uint64((n_r - 1) % 64)
            score = n_r
            got = [score]
            for w in h:
                eq = np.zeros(nb, dtype=np.uint64)
                for y, x in enumerate(r):
                    if x == w:
                        eq[y >> 6] |= np.uint64(1) << np.uint64(y & 63)
                score = ter_mod._myers_blocks_step(eq, pv, mv, score, top)
                got.append(int(score))
            assert got == _levenshtein(h, r), (n_r, vocab)


def _pairs(rng, count):
    for k in range(count):
        n_r = rng.choice([63, 64, 65, 80, 100, 129])
        vocab = rng.choice([5, 20, 300])
        r = [rng.randrange(vocab) for _ in range(n_r)]
        h = list(r)
        for _ in range(rng.randint(0, 12)):  # edits and block moves: shifts for Tercom to find
            i = rng.randrange(len(h))
            op = rng.random()
            if op < 0.25:
                h.pop(i)
            elif op < 0.5:
                h.insert(i, rng.randrange(vocab))
            elif op < 0.75:
                h[i] = rng.randrange(vocab)
            else:
                a, span = rng.randrange(len(h) - 6), rng.randint(1, 6)
                seg = h[a:a + span]
                del h[a:a + span]
                j = rng.randrange(len(h) + 1)
                h[j:j] = seg
        yield h, r


def test_ter_edits_on_long_references_equal_sacrebleu():
    rng = random.Random(11)
    checked = 0
    for h, r in _pairs(rng, 14):
        got, ok = ter_mod.ter_edits(np.array(h, dtype=np.int64), np.array(r, dtype=np.int64))
        assert ok
        want = ter_mod.pair_edits_sacrebleu([str(x) for x in h], [str(x) for x in r])
        assert got == want, (h, r)
        checked += 1
    assert checked == 14
