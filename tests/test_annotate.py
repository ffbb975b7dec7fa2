"""Class annotation (evalcore.analysis.annotate): assignment overlap, degraded copies, the QC report,
rater names, and appends to a saved dataset by concurrent and killed writers."""
from __future__ import annotations

import itertools
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.stats import binomtest

from evalcore.analysis import annotate as A

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample_data" / "teaching_es_en"


# ------------------------------------------------------------------------- assignment
def _grid_items(n_seg=12, n_sys=5):
    return [(f"sys{j}", str(i)) for i in range(n_seg) for j in range(n_sys)]


@pytest.mark.parametrize("n,overlap,seed", [(10, 0.5, 0), (10, 0.0, 1), (7, 1.0, 2), (20, 0.3, 3), (60, 0.5, 4),
                                            (25, 0.8, 5)])
def test_every_pair_of_students_shares_the_shared_pool(n, overlap, seed):
    pool = _grid_items()
    students = ["ana", "bo", "chen", "dalia", "émile", "<b>x</b>"]
    lists = {s: A.assignment(pool, n, overlap, seed, s) for s in students}
    k = round(overlap * min(n, len(pool)))
    for s, got in lists.items():
        assert len(got) == min(n, len(pool)) and len(set(got)) == len(got)  # n distinct items
        assert set(got) <= set(pool)
        assert got == A.assignment(pool, n, overlap, seed, s)  # deterministic per name and seed
    for a, b in itertools.combinations(students, 2):  # brute force over every pair
        assert len(set(lists[a]) & set(lists[b])) >= k
    common = set.intersection(*(set(v) for v in lists.values()))
    assert len(common) >= k
    if overlap == 1.0:
        assert len({frozenset(v) for v in lists.values()}) == 1


def test_assignment_depends_on_the_student_and_seed():
    pool = _grid_items()
    a = A.assignment(pool, 20, 0.25, 0, "ana")
    assert set(a) != set(A.assignment(pool, 20, 0.25, 0, "bo"))
    assert set(a) != set(A.assignment(pool, 20, 0.25, 1, "ana"))
    with pytest.raises(ValueError, match="overlap"):
        A.assignment(pool, 20, 1.5, 0, "ana")


def test_items_come_in_segment_blocks():
    got = A.assignment(_grid_items(), 20, 0.5, 0, "ana")
    segs = [s for _, s in got]
    blocks = [k for k, _ in itertools.groupby(segs)]
    assert len(blocks) == len(set(blocks))  # each segment's items are next to each other


def test_degrade_drops_and_shuffles_words():
    text = "the quick brown fox jumps over the lazy dog today"
    bad = A.degrade(text, 3)
    assert bad != text and bad == A.degrade(text, 3)
    words, kept = text.split(), bad.split()
    assert len(kept) == len(words) - len(words) // 4
    # every kept word comes from the original (multiset inclusion)
    assert not (pd.Series(kept).value_counts() - pd.Series(words).value_counts()).dropna().gt(0).any()
    assert A.degrade("word", 0) == "word"


def test_task_sequence_places_qc_after_its_original():
    from evalcore.io import load_collection

    ds = next(iter(load_collection(SAMPLE, name="s").values()))
    plan = A.Plan(items_per_student=20, overlap=0.5, qc=True, seed=7)
    seq = A.task_sequence(ds, plan, "ana")
    kinds = [t.kind for t in seq]
    assert kinds.count("item") == 20 and kinds.count("bad_copy") == 2 and kinds.count("repeat") == 2
    texts = ds.sys_texts()
    pos = {s: i for i, s in enumerate(ds.seg_ids)}
    for i, t in enumerate(seq):
        if t.kind == "item":
            assert t.text == texts[t.system][pos[t.seg_id]]
            continue
        first = next(j for j, u in enumerate(seq) if u.kind == "item" and (u.system, u.seg_id) == (t.system, t.seg_id))
        assert first < i
        if t.kind == "bad_copy":
            assert t.text == A.degrade(seq[first].text, (7, "ana")) and t.text != seq[first].text
        else:
            assert t.text == seq[first].text
    assert [t.kind for t in A.task_sequence(ds, A.Plan(20, 0.5, qc=False, seed=7), "ana")] == ["item"] * 20


# ------------------------------------------------------------------------- QC report
def test_qc_report_on_hand_made_judgements():
    rows = [  # rater, kind, system, seg, score
        ("ana", "item", "s1", "1", 80), ("ana", "item", "s2", "1", 60), ("ana", "item", "s1", "2", 50),
        ("ana", "bad_copy", "s1", "1", 30), ("ana", "bad_copy", "s2", "1", 20), ("ana", "bad_copy", "s1", "2", 50),
        ("ana", "repeat", "s2", "1", 65), ("ana", "repeat", "s1", "2", 75),
        ("bo", "item", "s1", "1", 40), ("bo", "bad_copy", "s1", "1", 10), ("bo", "repeat", "s1", "1", 45),
        ("cy", "item", "s1", "1", 40),
        ("dee", "bad_copy", "s9", "9", 10),  # no original judged: not counted
    ]
    log = pd.DataFrame([{"rater": r, "protocol": "da", "kind": k, "system": s, "seg_id": g, "score": float(v),
                         "esa_spans_json": "", "shown_text": "", "saved_at": ""} for r, k, s, g, v in rows])
    rep = A.qc_report(log).set_index("rater")
    # ana: bad copies 30 < 80 and 20 < 60 lower, 50 = 50 tied; repeats |60-65| = 5 ok, |50-75| = 25 not
    assert rep.loc["ana", "n_bad"] == 3 and rep.loc["ana", "bad_lower"] == 2
    assert rep.loc["ana", "p_bad"] == pytest.approx(0.25, abs=1e-12)  # 2 of 2 untied: 0.5²
    assert rep.loc["ana", "p_bad"] == pytest.approx(binomtest(2, 2, 0.5, alternative="greater").pvalue, abs=1e-12)
    assert rep.loc["ana", "n_repeat"] == 2 and rep.loc["ana", "repeat_consistent"] == 1
    assert rep.loc["ana", "repeat_mad"] == pytest.approx(15.0)
    assert not rep.loc["ana", "passed"]
    assert rep.loc["bo", "bad_lower"] == 1 and rep.loc["bo", "repeat_consistent"] == 1 and rep.loc["bo", "passed"]
    assert rep.loc["cy", "passed"] is None and np.isnan(rep.loc["cy", "p_bad"])
    assert rep.loc["dee", "n_bad"] == 0


# ------------------------------------------------------------------------- rater names
@pytest.mark.parametrize("bad,why", [("", "empty"), ("   ", "empty"), ("a\nb", "U\\+000A"), ("tab\there", "U\\+0009"),
                                     ("\u202eevil", "U\\+202E"), ("ana\u200f", "U\\+200F"), ("zero\u200bwidth", "U\\+200B"),
                                     ("x" * 41, "at most 40")])
def test_bad_rater_names_are_refused_with_a_reason(bad, why):
    with pytest.raises(ValueError, match=why):
        A.check_rater(bad)


def test_markup_and_formula_names_are_kept_as_typed():
    assert A.check_rater("  <script>alert(1)</script> ") == "<script>alert(1)</script>"
    assert A.check_rater("=2+2") == "=2+2"
    assert A.check_rater("Zoë 日本") == "Zoë 日本"


def test_spans_are_checked_against_the_text():
    text = "Hello big world"
    assert A.words_to_span(text, 1, 2, "major") == {"start_i": 6, "end_i": 15, "severity": "major", "error_type": None}
    assert text[6:15] == "big world"
    with pytest.raises(ValueError, match="span 1.*severity"):
        A.check_spans([{"start_i": 0, "end_i": 2, "severity": "fatal"}], text)
    with pytest.raises(ValueError, match="span 2"):
        A.check_spans([{"start_i": 0, "end_i": 2, "severity": "minor"}, {"start_i": 3, "end_i": 99,
                                                                        "severity": "major"}], text)


# ------------------------------------------------------------------------- saving
@pytest.fixture
def saved(workspace_home):
    from evalcore.io import workspace
    from evalcore.io import load_collection

    coll = load_collection(SAMPLE, name="s")
    name = workspace.save(coll, "class")
    return name, next(iter(coll)), coll


def test_save_appends_rows_and_keeps_everything_else(saved):
    from evalcore.io import workspace

    saved_at = workspace.list_saved()[0]["saved_at"]
    time.sleep(1.1)  # saved_at has one-second resolution
    from evalcore.io.spans import dataset_spans

    name, lp, coll = saved
    before = coll[lp]
    plan = A.Plan(items_per_student=10, overlap=0.5)
    A.save_plan(name, lp, plan)
    ds = workspace.load_saved(name)[lp]
    assert A.plan_of(ds) == plan
    seq = A.task_sequence(ds, plan, "<script>x</script>")
    A.save_judgement(name, lp, "<script>x</script>", "da", seq[0], 71)
    span = A.words_to_span(seq[0].text, 0, 1, "major")
    A.save_judgement(name, lp, "ana", "esa", seq[0], 40, [span])
    with pytest.raises(ValueError, match="already saved"):
        A.save_judgement(name, lp, "ana", "esa", seq[0], 41, [span])
    with pytest.raises(ValueError, match="0 to 100"):
        A.save_judgement(name, lp, "ana", "da", seq[0], 101)
    with pytest.raises(ValueError, match="U\\+000A"):
        A.save_judgement(name, lp, "a\nb", "da", seq[0], 50)
    ds = workspace.load_saved(name)[lp]
    old = before.judgements.reset_index(drop=True)
    assert ds.judgements.iloc[:len(old)].reset_index(drop=True).equals(old)
    new = ds.judgements.iloc[len(old):]
    assert list(zip(new["rater"], new["judgement"], new["score"])) == [("<script>x</script>", "class_da", 71.0),
                                                                        ("ana", "class_esa", 40.0)]
    sp = dataset_spans(ds).spans
    assert len(sp) == 1 and sp.iloc[0]["rater"] == "ana" and (sp.iloc[0]["start"], sp.iloc[0]["end"]) == (
        span["start_i"], span["end_i"]) and sp.iloc[0]["status"] == "ok"
    assert A.class_raters(ds) == ["<script>x</script>", "ana"]
    # the dataset keeps its identity (the sidebar lists it by name and saved_at); updated_at is new
    meta = {m["name"]: m for m in workspace.list_saved()}[name]
    assert meta["saved_at"] == saved_at
    first = json.loads((workspace.datasets_dir() / name / "meta.json").read_text())
    assert meta["saved_at"] == first["saved_at"] and "updated_at" in first and not meta.get("broken")


def test_qc_items_stay_out_of_the_judgements(saved):
    from evalcore.io import workspace

    name, lp, coll = saved
    plan = A.Plan(items_per_student=10, overlap=0.5, qc=True)
    ds = workspace.load_saved(name)[lp]
    seq = A.task_sequence(ds, plan, "ana")
    n0 = len(ds.judgements)
    bad = next(t for t in seq if t.kind == "bad_copy")
    A.save_judgement(name, lp, "ana", "da", bad, 5)
    ds = workspace.load_saved(name)[lp]
    assert len(ds.judgements) == n0 and "class_da" not in ds.criteria
    log = A.log_of(ds)
    assert list(log["kind"]) == ["bad_copy"] and log.iloc[0]["shown_text"] == bad.text


_CHILD = textwrap.dedent("""
    import sys, time, os
    sys.path.insert(0, {root!r})
    from evalcore.analysis import annotate as A
    from evalcore.io import workspace
    name, lp, rater, n, go = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
    while not os.path.exists(go):
        time.sleep(0.01)
    ds = workspace.load_saved(name)[lp]
    plan = A.Plan(items_per_student=n, overlap=0.5, qc=False)
    for t in A.task_sequence(ds, plan, rater):
        A.save_judgement(name, lp, rater, "da", t, 50 + len(rater))
""")


def test_two_concurrent_writers_both_keep_their_rows(saved, tmp_path):
    from evalcore.io import workspace

    name, lp, coll = saved
    script = tmp_path / "child.py"
    script.write_text(_CHILD.format(root=str(ROOT)))
    go = tmp_path / "go"
    procs = [subprocess.Popen([sys.executable, str(script), name, lp, r, "4", str(go)], env=dict(os.environ))
             for r in ("ana", "bobby")]
    time.sleep(0.5)
    go.touch()  # both start at once
    assert [p.wait(timeout=300) for p in procs] == [0, 0]
    ds = workspace.load_saved(name)[lp]  # every file checked against meta.json
    cls = ds.judgements[ds.judgements["judgement"] == "class_da"]
    assert sorted(cls.groupby("rater").size().items()) == [("ana", 4), ("bobby", 4)]
    assert set(cls.loc[cls["rater"] == "bobby", "score"]) == {55.0}
    assert len(A.log_of(ds)) == 8
    assert len(ds.judgements) == len(coll[lp].judgements) + 8


_KILLED = textwrap.dedent("""
    import os, sys, time
    sys.path.insert(0, {root!r})
    from evalcore.analysis import annotate as A
    from evalcore.io import workspace
    name, lp, marker, point = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
    real_replace = os.replace

    def stall():
        open(marker, "w").close()
        time.sleep(120)

    if point == "written":  # the new copy is on disk, nothing renamed yet
        real_meta = workspace._write_json_atomic
        def meta(path, obj):
            real_meta(path, obj)
            stall()
        workspace._write_json_atomic = meta
    else:  # between the two renames: the old version moved aside, the new not in place
        def replace(src, dst):
            real_replace(src, dst)
            if os.path.basename(str(dst)).startswith(".old."):
                stall()
        os.replace = replace
    ds = workspace.load_saved(name)[lp]
    t = A.task_sequence(ds, A.Plan(items_per_student=5, overlap=0.5, qc=False), "killed")[0]
    A.save_judgement(name, lp, "killed", "da", t, 33)
""")


@pytest.mark.parametrize("point", ["written", "between_renames"])
def test_a_writer_killed_mid_save_leaves_a_loadable_version(saved, tmp_path, point):
    from evalcore.io import workspace

    name, lp, coll = saved
    ds = workspace.load_saved(name)[lp]
    t = A.task_sequence(ds, A.Plan(items_per_student=5, overlap=0.5, qc=False), "first")[0]
    A.save_judgement(name, lp, "first", "da", t, 90)
    script = tmp_path / "killed.py"
    script.write_text(_KILLED.format(root=str(ROOT)))
    marker = tmp_path / "marker"
    p = subprocess.Popen([sys.executable, str(script), name, lp, str(marker), point], env=dict(os.environ))
    while not marker.exists():  # the writer either reaches the kill point or ends
        assert p.poll() is None, "the writer ended before reaching the kill point"
        time.sleep(0.05)
    os.kill(p.pid, signal.SIGKILL)
    p.wait(timeout=30)
    ds = workspace.load_saved(name)[lp]  # recovers, then checks every file
    raters = list(ds.judgements["rater"][ds.judgements["judgement"] == "class_da"])
    assert raters in (["first"], ["first", "killed"])  # the old or the new version, whole
    assert list(A.log_of(ds)["rater"]) == raters
    assert [m["name"] for m in workspace.list_saved()] == [name]
    assert not [p for p in workspace.datasets_dir().iterdir() if p.name.startswith((".tmp", ".old"))]
    A.save_judgement(name, lp, "after", "da", t, 10)  # the lock was freed by the kill
    assert "after" in set(workspace.load_saved(name)[lp].judgements["rater"])


def test_plan_round_trip_and_defaults():
    from evalcore.core.dataset import Dataset

    ds = Dataset("x", "", pd.DataFrame({"seg_id": ["1"]}))
    assert A.plan_of(ds) == A.Plan()
    p = A.Plan(items_per_student=7, overlap=0.25, qc=False, show_reference=False, seed=3)
    ds.extras[A.PLAN_EXTRA] = p.to_frame()
    assert A.plan_of(ds) == p
    assert json.dumps(p.to_frame().to_dict())  # plain strings only


def test_saves_into_one_pair_of_a_multi_pair_dataset(workspace_home):
    """A table new to the dataset (the log, the plan) is one file for every pair: the other
    pairs get it empty, and their own rows stay as they were."""
    from evalcore.io import workspace
    from evalcore.core.dataset import Dataset
    from evalcore.io import load_collection

    ds = next(iter(load_collection(SAMPLE, name="s").values()))
    other = Dataset(ds.name, "es-fr", ds.segments, ds.references, ds.outputs, ds.judgements, ds.tags,
                    dict(ds.extras))
    name = workspace.save({"es-en": ds, "es-fr": other}, "two")
    A.save_plan(name, "es-fr", A.Plan(items_per_student=5, overlap=0.5, qc=False))
    t = A.task_sequence(other, A.Plan(items_per_student=5, overlap=0.5, qc=False), "ana")[0]
    A.save_judgement(name, "es-fr", "ana", "esa", t, 70, [A.words_to_span(t.text, 0, 0, "minor")])
    back = workspace.load_saved(name)
    assert list(A.log_of(back["es-fr"])["rater"]) == ["ana"] and A.log_of(back["es-en"]).empty
    assert "class_esa" not in back["es-en"].criteria
    assert back["es-en"].judgements.equals(ds.judgements)
    assert A.plan_of(back["es-fr"]).items_per_student == 5 and A.plan_of(back["es-en"]) == A.Plan()
