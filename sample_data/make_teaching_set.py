"""Regenerate the teaching set's TSVs from the authored corpus (``teaching_corpus.py``).

    python sample_data/make_teaching_set.py

writes ``sample_data/teaching_es_en/{segments,references,outputs,judgements,tags,comprehension}.tsv``
(the reading-comprehension test is authored in ``teaching_comprehension.py``) and,
next to that folder, ``base_quality.tsv`` (the hand-written base scores),
``synonym_keywords.tsv`` (the words of the ``synonyms`` outputs that no reference uses) and
rater1's repeated judgements (appended to ``judgements.tsv``). Deterministic: running it
twice gives byte-identical files. Only the standard library is used.
"""
from __future__ import annotations

import csv
import sys

sys.dont_write_bytecode = True  # keep sample_data/ free of __pycache__
from pathlib import Path  # noqa: E402

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from make_judgements import judgement_rows, repeat_rows  # noqa: E402
from teaching_comprehension import comprehension_rows  # noqa: E402
from teaching_corpus import SEGMENTS  # noqa: E402

LP = "es-en"
REF_IDS = ["ref-A", "ref-B", "ref-C", "ref-D", "ref-E", "ref-F"]
JUDGED_REFS = ["ref-E", "ref-F"]


def write_tsv(path: Path, header: list[str], rows: list[list]) -> None:
    """UTF-8, tab-separated, LF line ends, a field quoted only when it needs it (RFC 4180 style)."""
    with open(path, "w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh, delimiter="\t", quoting=csv.QUOTE_MINIMAL, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)


def main(out: Path = HERE / "teaching_es_en", side: Path = HERE) -> None:
    """Write the dataset folder ``out`` and the side files into ``side``."""
    out.mkdir(parents=True, exist_ok=True)
    side.mkdir(parents=True, exist_ok=True)
    segs, refs, outs, tags, base, kws = [], [], [], [], [], []
    for i, s in enumerate(SEGMENTS, start=1):
        sid = str(i)
        segs.append([LP, sid, s["doc"], s["src"]])
        for rid, text in zip(REF_IDS, s["refs"], strict=True):
            refs.append([LP, sid, rid, text])
        for system, text, tag, adq, flu in s["out"]:
            outs.append([LP, system, sid, text])
            for t in tag.split(";"):
                tags.append([LP, system, sid, t])
            base.append((system, sid, adq, flu))
        for rid in JUDGED_REFS:
            adq, flu = s.get("ref_q", {}).get(rid, (5, 5))
            base.append((rid, sid, adq, flu))
        for k in s["syn"]:
            kws.append([LP, "synonyms", sid, k])
    order = {name: i for i, name in enumerate(dict.fromkeys(b[0] for b in base))}
    base.sort(key=lambda b: (order[b[0]], int(b[1])))
    outs.sort(key=lambda r: (order[r[1]], int(r[2])))
    tags.sort(key=lambda r: (order[r[1]], int(r[2])))

    write_tsv(out / "segments.tsv", ["lp", "seg_id", "doc_id", "source"], segs)
    write_tsv(out / "references.tsv", ["lp", "seg_id", "ref_id", "text"], refs)
    write_tsv(out / "outputs.tsv", ["lp", "system", "seg_id", "text"], outs)
    write_tsv(out / "tags.tsv", ["lp", "system", "seg_id", "tag"], tags)
    header = ["lp", "system", "seg_id", "rater", "judgement", "score"]
    # rater1's second pass follows the first pass in the same file: the loader keeps repeated
    # judgements (the k-th judgement of a rater on an item belongs to the k-th screen)
    write_tsv(out / "judgements.tsv", header, judgement_rows(base, LP) + repeat_rows(base, LP))
    write_tsv(out / "comprehension.tsv",
              ["lp", "system", "doc_id", "question_id", "rater", "correct", "question", "answer"],
              comprehension_rows(LP))
    write_tsv(side / "base_quality.tsv", ["lp", "system", "seg_id", "adequacy", "fluency"],
              [[LP, *b] for b in base])
    write_tsv(side / "synonym_keywords.tsv", ["lp", "system", "seg_id", "keyword"], kws)


if __name__ == "__main__":
    main()
