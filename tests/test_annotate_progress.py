"""Class annotation under plan changes and early agreement: a student's saved tasks stay done
whatever the teacher changes (both pages count through ``annotate.progress``), and each student's
queue starts with the shared items in one order for the class, so two students can be compared
after a handful of items."""
from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from class_pages import open_page as _open, saved_label as _label
from evalcore.analysis import annotate as A

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample_data" / "teaching_es_en"


def _grid(n_seg=12, n_sys=5):
    return [(f"sys{j}", str(i)) for i in range(n_seg) for j in range(n_sys)]


@pytest.fixture
def saved(workspace_home):
    from evalcore.io import load_collection, workspace

    coll = load_collection(SAMPLE, name="s")
    lp = next(iter(coll))
    return workspace.save(coll, "class"), lp


def _load(name, lp):
    from evalcore.io import workspace

    return workspace.load_saved(name)[lp]


def _save_first(name, lp, rater, protocol, k):
    """Save the first ``k`` tasks the page would show ``rater`` (via next_task, as the page does)."""
    for _ in range(k):
        ds = _load(name, lp)
        task = A.next_task(ds, A.plan_of(ds), rater, protocol)[0]
        if protocol == "rank":
            A.save_ranking(name, lp, rater, task, list(range(1, len(task.systems) + 1)))
        else:
            A.save_judgement(name, lp, rater, protocol, task, 50.0 + len(task.text) % 40)


# ------------------------------------------------------------------ point 1: done stays done
@pytest.mark.parametrize("protocol", ["da", "rank"])
def test_saved_tasks_stay_done_under_every_plan_change(saved, protocol):
    name, lp = saved
    A.save_plan(name, lp, A.Plan(items_per_student=12, overlap=0.25, qc=True, seed=3))
    _save_first(name, lp, "ana", protocol, 7)
    plans = [A.Plan(12, 0.9, True, seed=3), A.Plan(12, 0.25, True, seed=9), A.Plan(20, 0.5, False, seed=3),
             A.Plan(5, 1.0, True, seed=3), A.Plan(12, 0.0, True, seed=3, rank_outputs=4)]
    for plan in plans:
        A.save_plan(name, lp, plan)
        ds = _load(name, lp)
        p = A.progress(ds, plan, "ana", protocol)
        assert p.done == 7  # the seven saves, brute-force counted by the test
        items_left = sum(t.kind == "item" for t in p.todo)
        saved_items = 7 - sum(k != "item" for k in A.log_of(ds)["kind"])
        # the plan's number of items: the saved ones plus what is left (never fewer than saved)
        assert saved_items + items_left == max(saved_items, plan.items_per_student)
        # nothing left to do was already saved (for a ranking: the same segment's screen)
        log = A.log_of(ds)
        saved_units = {(k, g) if protocol == "rank" else (k, s, g) for k, s, g in zip(log["kind"], log["system"],
                                                                                        log["seg_id"])}
        assert not [t for t in p.todo if ((t.kind, t.seg_id) if protocol == "rank" else
                                          (t.kind, t.system, t.seg_id)) in saved_units]
        task, done, total = A.next_task(ds, plan, "ana", protocol)
        assert (done, total) == (p.done, p.total) and total == p.done + len(p.todo)
        row = A.progress_table(ds).query("rater == 'ana'").iloc[0]
        assert (row["saved"], row["assigned"]) == (p.done, p.total)
    # fewer items than saved: the student is done, nothing undone
    A.save_plan(name, lp, A.Plan(3, 0.5, False, seed=3))
    ds = _load(name, lp)
    assert A.next_task(ds, A.plan_of(ds), "ana", protocol) == (None, 7, 7)


def test_both_pages_count_the_same_after_the_teacher_raises_the_overlap(saved):
    """The reported case: 15 saved of 24, then the overlap raised; before, Annotate said 0 of 24."""
    name, lp = saved
    A.save_plan(name, lp, A.Plan(items_per_student=24, overlap=0.5, qc=False, seed=0))
    _save_first(name, lp, "ana", "da", 15)
    A.save_plan(name, lp, A.Plan(items_per_student=24, overlap=0.9, qc=False, seed=0))
    label = _label(name)
    at = _open("annotate", {"dataset_label": label, "dataset_select": label, "ann_rater": "ana",
                            "ann_protocol": "da"})
    assert not at.error, [e.value for e in at.error]
    assert any("15 of 24 done" in m.value for m in at.markdown), [m.value for m in at.markdown]
    cls = _open("classroom", {"dataset_label": label, "dataset_select": label, "cls_protocol": "da"})
    prog = next(df.value for df in cls.dataframe if "assigned" in df.value.columns)
    assert list(zip(prog["rater"], prog["saved"], prog["assigned"])) == [("ana", 15, 24)]
    assert prog["done"].iloc[0] == pytest.approx(15 / 24)


# ------------------------------------------------------------------ point 2: shared items first
@pytest.mark.parametrize("n,overlap,seed", [(10, 0.5, 0), (20, 0.3, 3), (25, 0.8, 5), (14, 0.5, 1)])
def test_shared_items_come_first_in_one_order(n, overlap, seed):
    pool = _grid()
    students = ["ana", "bo", "chen", "dalia"]
    lists = {s: A.assignment(pool, n, overlap, seed, s) for s in students}
    common = set.intersection(*(set(v) for v in lists.values()))
    k = A.n_shared(n, overlap)
    for s, got in lists.items():
        segs = [g for _, g in got]
        assert len([b for b, _ in itertools.groupby(segs)]) == len(set(segs))  # still segment blocks
        # the shared pool's segments come first, in the same order for every student
        shared_segs = list(dict.fromkeys(g for it, g in zip(got, segs) if it in common))
        assert list(dict.fromkeys(segs))[:len(shared_segs)] == shared_segs
    orders = {tuple(dict.fromkeys(g for it in v if it in common for g in [it[1]])) for v in lists.values()}
    assert len(orders) == 1
    m = A.items_until_agreement(pool, n, overlap, seed)
    if k < 2:
        return
    assert m is not None and m <= 2 + 5  # within the first segment block of five outputs

    def two_of_one_segment(a, b, mm):
        segs = [g for _, g in set(lists[a][:mm]) & set(lists[b][:mm])]
        return any(segs.count(g) >= 2 for g in set(segs))  # a pairwise label, and an item for α

    more = {s: A.assignment(pool, n, overlap, seed, s) for s in ("eve", "fu", "gil", "<b>h</b>")}
    lists.update(more)
    for a, b in itertools.combinations(lists, 2):  # brute force over every pair of eight students
        assert two_of_one_segment(a, b, m)


def test_two_students_agree_after_a_handful_on_the_class_page(saved):
    """Default overlap 0.5: two students who saved 5 and 4 items share items and have a defined κ;
    the Annotate page says after how many items."""
    name, lp = saved
    A.save_plan(name, lp, A.Plan(items_per_student=20, overlap=0.5, qc=False, seed=0))
    ds = _load(name, lp)
    m = A.items_until_agreement(A.items(ds), 20, 0.5, 0)
    assert m is not None and m <= 7  # the sample has 7 systems per segment: one segment block
    _save_first(name, lp, "ana", "da", m)
    _save_first(name, lp, "bo", "da", m)
    from evalcore.views import classroom as V

    o = V.overview(_load(name, lp), "da", None, [])
    pair = o["pairs"].iloc[0]
    assert pair["shared_items"] >= 2 and pair["label_pairs"] >= 1 and pair["kappa"] == pair["kappa"]
    label = _label(name)
    at = _open("annotate", {"dataset_label": label, "dataset_select": label, "ann_rater": "cy",
                            "ann_protocol": "da"})
    assert any(f"after your first {m} items" in c.value for c in at.caption), [c.value for c in at.caption]
