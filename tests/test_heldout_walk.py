"""A new user's walk on a language pair that development did not use (WMT24 ESA en-zh; the
Systems page and `correlate` were built on en-cs): load the data the way the Data page loads it
(path import, validate, save, choose it in the sidebar), open the Systems page with its defaults,
read the system-level Pearson r and its bootstrap CI for chrF in "Metrics vs humans", and find
the same numbers and the same settings line on the command line: the command the page prints,
and `correlate` with no option beyond the data, the pair, the metrics and the human criterion.

Reference: ``python -m evalcore correlate`` (the CLI main), run on the original folder; its
``--out`` table has full precision, its stdout prints 6 decimals."""
from __future__ import annotations

import html
import io
import re
import shlex

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from conftest import ROOT, shared
from evalcore.cli import main

LP = "en-zh"
METRIC = "chrf"


def _cli(argv, capsys, tmp_path, name, printed=True):
    """(the --out table, full precision; stderr; the table as printed, 6 decimals, or None)."""
    out = tmp_path / f"{name}.tsv"
    capsys.readouterr()
    assert main(argv + ["--out", str(out)]) == 0
    captured = capsys.readouterr()
    table = None
    if printed:
        assert main(argv) == 0  # the same command printing its table (what a user reads)
        text = capsys.readouterr().out.split("\n# ")[0]  # the correlations ("# metric significance" may follow)
        table = pd.read_csv(io.StringIO(text), sep="\t", dtype=str)
    return pd.read_csv(out, sep="\t"), captured.err, table


def test_heldout_pair_systems_page_equals_correlate(workspace_home, tmp_path, capsys, monkeypatch):
    data = shared("wmt24_esa")
    # as a user's machine: the statistics store on (docs/formats.md), so the commands read the
    # statistics the page computed (TER on paragraph-long Chinese was most of this test's time)
    monkeypatch.setenv("EVALCORE_STATS_CACHE", "1")
    # the save's background precompute (all three pairs' first visits, tested in test_precompute
    # and test_systems_stored) left out: the page computes what this walk reads, every time the
    # same way, instead of reading what the thread happened to store first
    from evalcore.views import precompute

    monkeypatch.setattr(precompute, "precompute_in_background", lambda *a, **k: None)
    # 1. the Data page: a folder path on this machine, validated and saved
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600)
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    at.text_input(key="import_path").input(str(data))
    at.text_input(key="save_name").input("wmt24-heldout")
    at.button(key="do_import").click().run()
    assert not at.exception, [e.message for e in at.exception]
    assert "Saved as **wmt24-heldout**" in html.unescape(" ".join(s.value for s in at.success))
    # 2.-3. the dashboard opened on the saved dataset and the held-out pair (the link the sidebar's
    # choice makes, /systems?dataset=NAME&lp=LP: AppTest lists the sidebar's widgets on a session's
    # first run only), on the Systems page with every control at its default
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600)
    at.query_params["dataset"], at.query_params["lp"] = "wmt24-heldout", LP
    at.switch_page("pages/systems.py")
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    assert at.selectbox(key="dataset_select").value.startswith("wmt24-heldout (saved ")
    assert at.selectbox(key="lp_select").value == LP and at.session_state["dataset"].lp == LP
    assert not at.error, [e.value for e in at.error]
    assert [h.value for h in at.subheader].count("Metrics vs humans") == 1
    metrics = list(at.multiselect(key="sys_metrics").value)
    assert METRIC in metrics
    vs = next(df.value for df in at.dataframe
              if {"metric", "value", "ci_low", "ci_high"} <= set(df.value.columns)
              and "statistic" in df.value.columns and "p_value" not in df.value.columns)
    row = vs[(vs["metric"] == METRIC) & vs["statistic"].str.contains("Pearson", case=False)]
    assert len(row) == 1, vs
    r, lo, hi = (float(row[c].iloc[0]) for c in ("value", "ci_low", "ci_high"))
    assert -1 <= lo <= r <= hi <= 1 and hi > lo  # a real interval around r
    captions = [html.unescape(c.value) for c in at.caption]
    (vs_caption,) = [c for c in captions if c.startswith("System-level agreement of each metric with")]
    page_settings = re.search(r"Settings: (.*)\.$", vs_caption).group(1).replace("**", "")
    n_boot = int(re.search(r"CI: (\d+) bootstrap resamples of the systems", vs_caption).group(1))
    (shown,) = [c.value for c in at.code if c.value.startswith("python -m evalcore correlate")]

    # 4. the command the page prints, on the user's folder
    parts = shlex.split(shown)
    assert parts[:5] == ["python", "-m", "evalcore", "correlate", "DATA"]
    argv = [str(data)] + parts[5:]
    assert argv[argv.index("--lp") + 1] == LP and f"--bootstrap {n_boot}" in shown
    full, err, printed = _cli(["correlate"] + argv, capsys, tmp_path, "shown")
    got = full.set_index("metric").loc[METRIC]
    assert float(got["value"]) == pytest.approx(r, abs=1e-9)
    assert float(got["ci_low"]) == pytest.approx(lo, abs=1e-9)
    assert float(got["ci_high"]) == pytest.approx(hi, abs=1e-9)
    line = printed.set_index("metric").loc[METRIC]
    assert (line["value"], line["ci_low"], line["ci_high"]) == (f"{r:.6f}", f"{lo:.6f}", f"{hi:.6f}")
    assert f"settings: {page_settings}\n" in err
    assert "tokenizer zh" in page_settings  # the pair's own tokenizer (sacreBLEU's default for Chinese)

    # 5. correlate with its defaults (no CI asked): the same r, the same settings line
    plain, err0, _ = _cli(["correlate", str(data), "--lp", LP, "--metrics", ",".join(metrics), "--human", "esa"],
                          capsys, tmp_path, "defaults", printed=False)
    assert float(plain.set_index("metric").loc[METRIC, "value"]) == pytest.approx(r, abs=1e-9)
    assert f"settings: {page_settings}\n" in err0

    # 6. one answer to "which system is best": the Systems page's verdict (shown first), `rank`'s
    # verdict line and first MT system, and the evaluation card name the same system
    from evalcore.analysis.verdict import best_system
    from evalcore.io import load_dataset
    from evalcore.views.card import build_card

    verdict_box = [b for b in (html.unescape(s.value).replace("\u2060", "") for s in at.success) if "Best system:" in b]
    assert len(verdict_box) == 1, [s.value for s in at.success]
    ds = load_dataset(data, lp=LP)
    want = best_system(ds, "esa")
    assert want.answer in verdict_box[0] and want.sentence.split(" ")[0] in verdict_box[0]
    capsys.readouterr()
    assert main(["rank", str(data), "--lp", LP, "--human", "esa", "--out", str(tmp_path / "rank.tsv")]) == 0
    err = capsys.readouterr().err
    assert f"verdict: {want.sentence}" in err
    ranked = pd.read_csv(tmp_path / "rank.tsv", sep="\t")
    ranked = ranked[ranked["system"] != "refA"]  # rank order (the human reference is left out of the answer)
    assert ranked["system"].iloc[0] == want.answer
    # the card's verdicts only (its decision tools, a plan simulation with thousands of Wilcoxon
    # tests that was a quarter of this test's CPU, add tables, never a verdict: tests/test_card.py)
    import evalcore.views.card as card_view

    monkeypatch.setattr(card_view, "_decision_tables", lambda *args, **kwargs: None)
    card = build_card(ds, criterion="esa", metrics=[METRIC], n_boot=0)
    assert next(v["answer"] for v in card["verdicts"] if v["question"] == "best system") == want.answer
    # every alternative that answers differently says why (never a bare other answer)
    assert all(a.reason for a in want.alternatives if not a.agrees)
