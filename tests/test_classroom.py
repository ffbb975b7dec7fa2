"""The Class page's numbers against independent references (krippendorff, scipy, sacreBLEU,
hand-counted pairwise labels), and both pages driven under AppTest."""
from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from class_pages import open_page as _open, saved_label as _label
from evalcore.analysis import annotate as A
from evalcore.scoring.settings import DEFAULTS

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample_data" / "teaching_es_en"
PLAN = A.Plan(items_per_student=14, overlap=0.5, qc=False, seed=1)


def _score(rater: str, system: str, seg: str) -> float:
    """A deterministic score per (rater, output), different per rater."""
    return float((sum(map(ord, rater + system)) * 7 + int(seg) * 13) % 101)


@pytest.fixture(scope="module")
def classroom(tmp_path_factory):
    """Three students' DA judgements saved one by one into a saved copy of the sample (built
    once for the module: 42 saves)."""
    from evalcore.io import workspace
    from evalcore.io import load_collection

    home = tmp_path_factory.mktemp("classroom") / "home"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("EVALCORE_HOME", str(home))
        mp.setenv("EVALCORE_CACHE", str(home / "cache"))
        coll = load_collection(SAMPLE, name="s")
        lp = next(iter(coll))
        name = workspace.save(coll, "class")
        A.save_plan(name, lp, PLAN)
        ds = workspace.load_saved(name)[lp]
        for r in ("ana", "bo", "cy"):
            for t in A.task_sequence(ds, PLAN, r):
                A.save_judgement(name, lp, r, "da", t, _score(r, t.system, t.seg_id))
        yield name, lp, workspace.load_saved(name)[lp]


def _hand_kappa(ja: pd.DataFrame, jb: pd.DataFrame) -> tuple[float, int]:
    """P(A) of two raters' pairwise labels, counted by hand; κ with P(E) = 1/3."""
    sa = {(r.system, r.seg_id): r.score for r in ja.itertuples()}
    sb = {(r.system, r.seg_id): r.score for r in jb.itertuples()}
    same = total = 0
    for seg in {g for _, g in sa} & {g for _, g in sb}:
        systems = sorted({s for s, g in sa if g == seg} & {s for s, g in sb if g == seg})
        for x, y in itertools.combinations(systems, 2):
            la = np.sign(sa[(x, seg)] - sa[(y, seg)])
            lb = np.sign(sb[(x, seg)] - sb[(y, seg)])
            same += la == lb
            total += 1
    pa = same / total
    return (pa - 1 / 3) / (2 / 3), total


def test_class_agreement_equals_independent_references(classroom):
    import krippendorff
    from evalcore.views import classroom as V

    name, lp, ds = classroom
    o = V.overview(ds, "da", "adequacy", ["bleu"], settings=DEFAULTS.with_(tokenizer="13a"))
    cj = o["class_rows"]
    assert sorted(cj["rater"].unique()) == ["ana", "bo", "cy"] and len(cj) == 42
    k = A.n_shared(14, 0.5)
    for row in o["pairs"].itertuples():
        ja, jb = cj[cj["rater"] == row.rater_a], cj[cj["rater"] == row.rater_b]
        units = sorted(set(zip(ja["system"], ja["seg_id"])) | set(zip(jb["system"], jb["seg_id"])))
        data = [[dict(zip(zip(j["system"], j["seg_id"]), j["score"])).get(u, np.nan) for u in units]
                for j in (ja, jb)]
        assert row.alpha == pytest.approx(krippendorff.alpha(reliability_data=data, level_of_measurement="interval"),
                                          abs=1e-9)
        assert row.shared_items >= k
        kap, n = _hand_kappa(ja, jb)
        assert row.label_pairs == n and row.kappa == pytest.approx(kap, abs=1e-12)
    units = sorted(set(zip(cj["system"], cj["seg_id"])))
    allv = [[dict(zip(zip(g["system"], g["seg_id"]), g["score"])).get(u, np.nan) for u in units]
            for _, g in cj.groupby("rater")]
    assert o["class_alpha"].value == pytest.approx(krippendorff.alpha(reliability_data=allv,
                                                                      level_of_measurement="interval"), abs=1e-9)


def test_students_against_experts_equal_independent_references(classroom):
    import krippendorff
    from evalcore.views import classroom as V

    name, lp, ds = classroom
    o = V.overview(ds, "da", "adequacy", [], settings=DEFAULTS.with_(tokenizer="13a"))
    ex = ds.judgements[ds.judgements["judgement"] == "adequacy"]
    cj = o["class_rows"]
    for row in o["experts"].itertuples():
        mine = cj[cj["rater"] == row.rater]
        units = sorted(set(zip(mine["system"], mine["seg_id"])) | set(zip(ex["system"], ex["seg_id"])))
        data = []
        for _, g in pd.concat([mine, ex]).groupby("rater"):
            cell = g.groupby(["system", "seg_id"])["score"].mean().to_dict()
            data.append([cell.get(u, np.nan) for u in units])
        assert row.alpha == pytest.approx(krippendorff.alpha(reliability_data=data, level_of_measurement="interval"),
                                          abs=1e-9)
        # κ against the experts: every (student label, expert label) pair of the same item, by hand;
        # an expert's second judgement of an output is on a second screen (methods §5.3)
        same = total = 0
        s = {(r.system, r.seg_id): r.score for r in mine.itertuples()}
        ex_screens = ex.assign(screen=ex.groupby(["rater", "system", "seg_id"]).cumcount())
        for e, ge in ex_screens.groupby(["rater", "screen"]):
            es = {(r.system, r.seg_id): r.score for r in ge.itertuples()}
            for seg in {g for _, g in s}:
                systems = sorted({x for x, g in s if g == seg} & {x for x, g in es if g == seg})
                for x, y in itertools.combinations(systems, 2):
                    same += np.sign(s[(x, seg)] - s[(y, seg)]) == np.sign(es[(x, seg)] - es[(y, seg)])
                    total += 1
        assert row.n_pairs == total
        assert row.p_agree == pytest.approx(same / total, abs=1e-12)


def test_class_correlations_equal_scipy_and_sacrebleu(classroom):
    import sacrebleu
    from scipy.stats import kendalltau, pearsonr

    from evalcore.views import classroom as V
    from evalcore.analysis.system_level import cached_scores

    name, lp, ds = classroom
    o = V.overview(ds, "da", "adequacy", ["bleu"], settings=DEFAULTS.with_(tokenizer="13a"))
    corr = o["correlations"].set_index(["humans", "level", "method", "metric"])["value"]
    cj = o["class_rows"]
    cell = cj.groupby(["system", "seg_id"])["score"].mean()
    refs = ds.ref_texts()
    outs = ds.sys_texts()
    pos = {s: i for i, s in enumerate(ds.seg_ids)}
    bleu = [sacrebleu.sentence_bleu(outs[s][pos[g]], [refs[r][pos[g]] for r in ds.ref_ids
                                                      if refs[r][pos[g]] is not None]).score for s, g in cell.index]
    assert corr[("class", "segment", "pearson", "bleu")] == pytest.approx(pearsonr(cell.to_numpy(), bleu)[0], abs=1e-9)
    # system level: the class's mean per system against the corpus BLEU of the segments it judged
    sysmean = cell.groupby(level="system").mean()
    sub = V._with_judgements(ds, cj)
    corpus = cached_scores(sub, ["bleu"], tokenize="13a", criterion="class_da").table.set_index("system")["score"]
    corpus = corpus.reindex(sysmean.index)
    assert corr[("class", "system", "pearson", "bleu")] == pytest.approx(pearsonr(sysmean, corpus)[0], abs=1e-9)
    assert corr[("class", "system", "kendall", "bleu")] == pytest.approx(kendalltau(sysmean, corpus)[0], abs=1e-9)
    # the experts on the class's outputs: the same cells, the experts' mean
    ex = ds.judgements[ds.judgements["judgement"] == "adequacy"]
    ecell = ex.groupby(["system", "seg_id"])["score"].mean().reindex(cell.index)
    assert corr[("experts (the class's outputs)", "segment", "pearson", "bleu")] == pytest.approx(
        pearsonr(ecell.to_numpy(), bleu)[0], abs=1e-9)


def test_schulze_of_the_class_by_brute_force(classroom):
    from evalcore.views import classroom as V

    name, lp, ds = classroom
    table = V.overview(ds, "da", None, [])["schulze"]["class"]
    cj = V.class_judgements(ds, "da")
    systems = sorted(cj["system"].unique())
    # d[x][y]: ballots (rater × segment) ranking x above y; strongest paths by brute force over simple paths
    d = {(x, y): 0 for x in systems for y in systems}
    for _, g in cj.groupby(["rater", "seg_id"]):
        sc = dict(zip(g["system"], g["score"]))
        for x, y in itertools.permutations(sc, 2):
            d[(x, y)] += sc[x] > sc[y]

    def strength(x, y):
        best = 0
        others = [s for s in systems if s not in (x, y)]
        for k in range(len(others) + 1):
            for mid in itertools.permutations(others, k):
                path = (x, *mid, y)
                links = [d[(a, b)] if d[(a, b)] > d[(b, a)] else 0 for a, b in zip(path, path[1:])]
                best = max(best, min(links))
        return best

    p = {(x, y): strength(x, y) for x in systems for y in systems if x != y}
    beats = {x: sum(p[(x, y)] > p[(y, x)] for y in systems if y != x) for x in systems}
    assert dict(zip(table["system"], table["beats"])) == beats


# ------------------------------------------------------------------------- the pages


def test_pages_save_a_judgement_and_the_class_page_shows_it(workspace_home):
    from evalcore.io import workspace
    from evalcore.io import load_collection

    coll = load_collection(SAMPLE, name="s")
    lp = next(iter(coll))
    name = workspace.save(coll, "class")
    A.save_plan(name, lp, A.Plan(items_per_student=6, overlap=0.5, qc=False))
    label = _label(name)
    hostile = "<script>alert(1)</script>"
    at = _open("annotate", {"dataset_label": label, "dataset_select": label, "ann_rater": hostile,
                            "ann_protocol": "da"})
    assert not at.error, [e.value for e in at.error]
    first = A.next_task(workspace.load_saved(name)[lp], A.plan_of(workspace.load_saved(name)[lp]), hostile, "da")[0]
    slider = next(s for s in at.slider if s.key.startswith("ann_score::"))
    slider.set_value(83).run()
    next(b for b in at.button if b.key.startswith("ann_go::")).click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    ds = workspace.load_saved(name)[lp]
    row = ds.judgements[ds.judgements["judgement"] == "class_da"]
    assert list(zip(row["rater"], row["system"], row["seg_id"], row["score"])) == [
        (hostile, first.system, first.seg_id, 83.0)]
    assert any("1 of 6 done" in m.value for m in at.markdown)
    # every piece of Markdown/HTML the page rendered holds the name escaped, never as a tag
    assert not any("<script>" in m.value for m in at.markdown)
    # ESA: two words marked major, saved with the score
    at.session_state["ann_protocol"] = "esa"
    at.run()
    words = next(s for s in at.get("select_slider") if s.key.startswith("ann_words::"))
    words.set_value((0, 1)).run()
    next(r for r in at.radio if r.key.startswith("ann_sev::")).set_value("major").run()
    next(b for b in at.button if b.key.startswith("ann_add::")).click().run()
    assert any("major error" in m.value for m in at.markdown)
    next(s for s in at.slider if s.key.startswith("ann_score::")).set_value(40).run()
    next(b for b in at.button if b.key.startswith("ann_go::")).click().run()
    assert not at.exception and not at.error
    from evalcore.io.spans import dataset_spans

    ds = workspace.load_saved(name)[lp]
    sp = dataset_spans(ds).spans
    task = ds.judgements[ds.judgements["judgement"] == "class_esa"].iloc[0]
    text = ds.sys_texts()[task["system"]][ds.seg_ids.index(task["seg_id"])]
    assert len(sp) == 1 and sp.iloc[0]["severity"] == "major"
    assert text[int(sp.iloc[0]["start"]):int(sp.iloc[0]["end"])] == " ".join(text.split()[:2])

    cls = _open("classroom", {"dataset_label": _label(name), "dataset_select": _label(name), "cls_protocol": "da"})
    assert not cls.error, [e.value for e in cls.error]
    prog = next(df.value for df in cls.dataframe if "assigned" in df.value.columns)
    assert list(prog["rater"]) == [hostile] and list(prog["saved"]) == [1]
    assert not any("<script>" in m.value for m in cls.markdown)
    # the one settings line (Settings.describe) beside the class's numbers, as on every page
    assert any(c.value.startswith("Settings: metric scores over ") for c in cls.caption)


def test_bad_rater_name_is_refused_on_the_page(workspace_home):
    from evalcore.io import workspace
    from evalcore.io import load_collection

    name = workspace.save(load_collection(SAMPLE, name="s"), "class")
    label = _label(name)
    at = _open("annotate", {"dataset_label": label, "dataset_select": label, "ann_rater": "ana\u202e"})
    assert any("202E" in e.value and "invisible" in e.value for e in at.error)
    assert not [b for b in at.button if b.key and b.key.startswith("ann_go::")]


def test_the_teacher_saves_a_copy_of_the_sample_and_the_settings(workspace_home):
    from evalcore.io import workspace

    at = _open("annotate", {})
    assert any("not one" in i.value for i in at.info)  # the bundled sample is not a saved dataset
    at.text_input(key="ann_copy_name").set_value("my class").run()
    at.button(key="ann_copy").click().run()
    assert not at.exception, [e.message for e in at.exception]
    assert [m["name"] for m in workspace.list_saved()] == ["my_class"]
    assert at.session_state["dataset_label"] == _label("my_class")  # chosen in the sidebar
    # (under AppTest a page switched to reruns without the app shell: open the app again on it)
    at = _open("annotate", {"dataset_label": _label("my_class"), "dataset_select": _label("my_class")})
    at.number_input(key="ann_n").set_value(9).run()
    at.slider(key="ann_overlap").set_value(0.3).run()
    at.checkbox(key="ann_ref").uncheck().run()
    at.button(key="ann_save_plan").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    ds = next(iter(workspace.load_saved("my_class").values()))
    assert A.plan_of(ds) == A.Plan(items_per_student=9, overlap=0.3, qc=True, show_reference=False, seed=0)


def test_learn_tour_links_to_annotate_class_and_playground():
    at = _open("learn", {})
    links = {p.proto.page for p in at.get("page_link")}
    for page in ("annotate", "classroom", "playground"):
        assert page in links, (page, links)
