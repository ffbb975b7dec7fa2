"""The names and counts a loaded dataset keeps at hand (given by the assembly, or memoised)
against their definitions recomputed from its tables: pandas' unique in order of first
appearance, groupby-size per segment."""
from __future__ import annotations

import random

import pandas as pd
import pytest

from evalcore.core.capabilities import reference_sets_with_text, references_with_text
from evalcore.core.dataset import Dataset
from evalcore.io import FileSource, load_collection

from conftest import shared


def _definitions(ds: Dataset) -> dict[str, list]:
    return {"ref_ids": list(pd.unique(ds.references["ref_id"])), "systems": list(pd.unique(ds.outputs["system"])),
            "judged": list(pd.unique(ds.judgements["system"])), "criteria": list(pd.unique(ds.judgements["judgement"])),
            "raters": list(pd.unique(ds.judgements["rater"]))}


def _check(ds: Dataset) -> None:
    for key, want in _definitions(ds).items():
        assert getattr(ds, key) == want, key
    per_seg = ds.references.groupby("seg_id").size().reindex(list(ds.segments["seg_id"]), fill_value=0)
    assert ds.refs_per_segment().tolist() == per_seg.tolist()
    # the loader's answer of which references have text, against the texts tested again
    fresh = Dataset(ds.name, ds.lp, ds.segments, ds.references.copy(), ds.outputs, ds.judgements)
    assert references_with_text(ds).tolist() == references_with_text(fresh).tolist()
    assert reference_sets_with_text(ds) == reference_sets_with_text(fresh)


def _campaign(rng: random.Random, quoted: bool) -> FileSource:
    segs = [str(rng.randint(1, 9)) for _ in range(6)]
    segs = list(dict.fromkeys(segs))
    systems, raters = ["B", "A", "C"][:rng.randint(1, 3)], ["r2", "r1"][:rng.randint(1, 2)]
    refs = [(s, r) for s in segs for r in ("R2", "R1") if rng.random() < 0.7]
    outs = [(sy, s) for sy in systems for s in segs if rng.random() < 0.8] or [(systems[0], segs[0])]
    jud = [(sy, s, ra, rng.choice(["esa", "mqm"]), rng.randint(0, 100)) for sy, s in outs for ra in raters
           if rng.random() < 0.8]
    text = '"quoted"' if quoted else "text"
    files = {"segments.tsv": "lp\tseg_id\tsource\n" + "".join(f"en-de\t{s}\tsrc {s}\n" for s in segs),
             "references.tsv": "lp\tseg_id\tref_id\ttext\n" + "".join(
                 f"en-de\t{s}\t{r}\t{rng.choice(['ref', ' ', '', chr(0x3000), 'a b', chr(0x85)])}\n" for s, r in refs),
             "outputs.tsv": "lp\tsystem\tseg_id\ttext\n" + "".join(f"en-de\t{sy}\t{s}\t{text}\n" for sy, s in outs),
             "judgements.tsv": "lp\tsystem\tseg_id\trater\tjudgement\tscore\n"
                               + "".join(f"en-de\t{sy}\t{s}\t{ra}\t{j}\t{v}\n" for sy, s, ra, j, v in jud)}
    return FileSource({k: v.encode() for k, v in files.items()}, "mem")


@pytest.mark.parametrize("seed", range(20))
def test_names_and_counts_of_random_campaigns_read_by_column_and_row_by_row(seed):
    rng = random.Random(seed)
    for quoted in (False, True):  # a quoted text sends outputs.tsv to the row-by-row reader
        for ds in load_collection(_campaign(rng, quoted), journals=False).values():
            _check(ds)


@pytest.mark.parametrize("name", ["wmt24_esa", "wmt21_ted_mqm"])
def test_names_and_counts_of_shared_campaigns(name):
    for ds in load_collection(shared(name), journals=False).values():
        _check(ds)


def test_names_known_refuses_an_unknown_list_and_hands_out_copies():
    ds = Dataset(name="t", lp="x", segments=pd.DataFrame({"seg_id": ["1"]}))
    with pytest.raises(ValueError, match="systemz"):
        ds.names_known(systemz=["A"])
    ds.names_known(raters=["r1"])
    got = ds.raters
    got.append("r2")
    assert ds.raters == ["r1"]
