"""Small mt-metrics-eval roots in the 2025 layout, written by tests (tests/test_mtme_layout.py,
tests/test_wmt25_task.py): ``.jsonl`` and ``.txt`` texts side by side, ``metadata/``, a
``.seg.rating`` file of error spans, paragraph segments with line breaks (real ones in
``.jsonl``, escaped as the two characters backslash-n in ``.txt``), several test sets.

Nothing here computes an expected value: the tests compare what evalcore reads with what
mt-metrics-eval's own ``EvalSet`` reads from the same files.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np


def _w(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _jsonl(path: Path, key: str, texts) -> None:
    _w(path, "".join(json.dumps({key: t, "id": i}, ensure_ascii=False) + "\n" for i, t in enumerate(texts)))


def _txt(path: Path, texts) -> None:
    _w(path, "".join(t.replace("\n", "\\n") + "\n" for t in texts))


def _seg_scores(path: Path, table: dict) -> None:
    _w(path, "".join(f"{s}\t{'None' if v is None else repr(float(v))}\n" for s, vals in table.items() for v in vals))


def _sys_scores(path: Path, table: dict) -> None:
    _w(path, "".join(f"{s}\t{float(v)!r}\n" for s, v in table.items()))


def write_testset(root: Path, test_set: str, lp: str, *, n_seg: int, systems: list[str], gold: str,
                  metrics: dict[str, str], seed: int, jsonl: bool = True, paragraphs: bool = True,
                  missing=(), ratings: bool = False, refs=("refA",), human_mean: float = 60.0) -> dict:
    """One language pair of ``test_set`` under ``root``. ``metrics``: base name -> "ref" (scored
    against refA: ``<name>-refA``) or "src" (reference-free: ``<name>-src``). ``missing``:
    (system, segment index) cells without a human score. Returns what was written."""
    rng = np.random.default_rng(seed)
    d = root / test_set
    src = [f"Source {k} of {lp}." + ("\nIts second line." if paragraphs and k % 2 == 0 else "")
           for k in range(n_seg)]
    (_jsonl(d / "sources" / f"{lp}.jsonl", "source", src) if jsonl else _txt(d / "sources" / f"{lp}.txt", src))
    docs = [f"{'news' if k < n_seg // 2 else 'speech'} doc{k // 3}" for k in range(n_seg)]
    _w(d / "documents" / f"{lp}.docs", "".join(x + "\n" for x in docs))
    ref_texts = {}
    for r in refs:
        ref_texts[r] = [f"Reference {r} {k}." + ("\nDruhý řádek." if paragraphs and k % 3 == 0 else "")
                        for k in range(n_seg)]
        if jsonl:
            _jsonl(d / "references" / f"{lp}.{r}.jsonl", "target", ref_texts[r])
        else:
            _txt(d / "references" / f"{lp}.{r}.txt", ref_texts[r])
    outs = {}
    for i, s in enumerate(systems):
        outs[s] = [f"{s} says {k}." + ("\nA new line." if paragraphs and (k + i) % 2 == 0 else "")
                   for k in range(n_seg)]
        # alternate the file kinds: .jsonl and .txt (escaped line breaks) side by side
        if jsonl and i % 2 == 0:
            _jsonl(d / "system-outputs" / lp / f"{s}.jsonl", "hypothesis", outs[s])
        else:
            _txt(d / "system-outputs" / lp / f"{s}.txt", outs[s])
        _w(d / "metadata" / lp / f"{s}.jsonl",
           "".join(json.dumps({"segment": k, "system": s, "model": f"m{i}"}) + "\n" for k in range(n_seg)))
    quality = rng.normal(0, 1, len(systems))
    human = {s: [None if (s, k) in set(missing) else float(np.round(human_mean + 10 * quality[i] + rng.normal(0, 8), 1))
                 for k in range(n_seg)] for i, s in enumerate(systems)}
    _seg_scores(d / "human-scores" / f"{lp}.{gold}.seg.score", human)
    _sys_scores(d / "human-scores" / f"{lp}.{gold}.sys.score",
                {s: np.mean([v for v in vals if v is not None]) for s, vals in human.items()})
    # domain-level human scores (mt-metrics-eval's WMT25 meta-info names a gold for level "domain")
    dom = [x.split()[0] for x in docs]
    _w(d / "human-scores" / f"{lp}.{gold}.domain.score",
       "".join(f"{name}\t{s}\t{float(np.mean([v for v, x in zip(vals, dom) if x == name and v is not None]))!r}\n"
               for name in sorted(set(dom)) for s, vals in human.items()))
    metric_scores = {}
    for j, (m, kind) in enumerate(metrics.items()):
        noise = 0.3 + 0.4 * j / max(1, len(metrics))
        seg = {s: [float(np.round((h if h is not None else 60) / 20 + rng.normal(0, noise * 3), 4))
                   for h in human[s]] for s in systems}
        name = f"{m}-{'refA' if kind == 'ref' else 'src'}"
        _seg_scores(d / "metric-scores" / lp / f"{name}.seg.score", seg)
        _sys_scores(d / "metric-scores" / lp / f"{name}.sys.score", {s: np.mean(v) for s, v in seg.items()})
        metric_scores[name] = seg
    spans = {}
    if ratings:
        lines = []
        for s in systems:
            for k, text in enumerate(outs[s]):
                if "\n" in text:
                    start = text.index("\n") + 1  # a span after the line break: "A new"
                    rating = {"errors": [{"start": start, "end": start + 5, "category": "accuracy",
                                          "severity": "major", "score": None, "is_source_error": False}]}
                    spans[(s, k)] = text[start:start + 5]
                    lines.append(f"{s}\t{json.dumps(rating)}\tr{k % 2}\n")
                elif k % 3 == 1:
                    lines.append(f"{s}\t{json.dumps({'errors': []})}\tr1\n")
                else:
                    lines.append(f"{s}\tNone\n")
        _w(d / "human-scores" / f"{lp}.{gold}.seg.rating", "".join(lines))
    rated = set(spans) | {(s, k) for s in systems for k in range(n_seg)
                          if ratings and "\n" not in outs[s][k] and k % 3 == 1}
    return {"src": src, "refs": ref_texts, "outs": outs, "human": human, "metrics": metric_scores, "spans": spans,
            "rated": rated}
