"""The judgement-planning section (pages/sections/plan.py) on the Systems page under AppTest:
made on request; its per-N table equals a count from `evalcore plan`'s own power table (the
command, run on the same data with its defaults), and the headline names the smallest N at which
the most pairs reach 80 % power, counted here from that table."""
from __future__ import annotations

import html
import os

import pandas as pd
from streamlit.testing.v1 import AppTest

from conftest import ROOT, SAMPLE
from evalcore.cli import main

APP = os.environ.get("EVALCORE_TEST_APP", str(ROOT / "app.py"))


def test_systems_page_says_how_many_judgements_to_buy(tmp_path):
    at = AppTest.from_file(APP, default_timeout=300)
    at.session_state["sys_boot"] = 0
    at.session_state["sys_metrics"] = ["chrf"]
    at.run()
    at.switch_page("pages/systems.py")
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    assert not [i for i in at.info if "segments per system" in i.value]  # computed only on request
    at.button(key="plan_go").click().run()
    assert not at.exception, [e.message for e in at.exception]
    (said,) = [html.unescape(i.value.replace("\\", "")) for i in at.info if "segments per system" in i.value]
    (table,) = [df.value for df in at.dataframe if "pairs_at_80" in df.value.columns]
    # the command with its defaults on the same data and criterion (the page's: adequacy), less the
    # human translations the page's settings leave out (the command ranks them, as rank does)
    out = tmp_path / "power.tsv"
    assert main(["plan", str(SAMPLE), "--lp", "es-en", "--human", "adequacy", "--out", str(out)]) == 0
    power = pd.read_csv(out, sep="\t")
    refs = {"ref-E", "ref-F"}  # the sample's reference sets, judged like systems (sample_data/README.md)
    left = [html.unescape(c.value.replace("\\", "")) for c in at.caption if "left out of the pilot" in c.value]
    assert len(left) == 1 and sorted(left[0].split("settings: ")[1].split(" (")[0].split(", ")) == sorted(refs)
    # the page's pilot has no reference set, so its table is the analysis on the MT systems alone
    from evalcore.analysis import plan as P
    from evalcore.io import load_collection

    ds = load_collection(SAMPLE)["es-en"]
    systems = [s for s in dict.fromkeys(power["system_a"].tolist() + power["system_b"].tolist()) if s not in refs]
    power_page = P.plan(P.pilot_of(ds, "adequacy", systems=systems)).power
    assert set(power["system_a"]) | set(power["system_b"]) >= refs  # the command includes them
    power = power_page
    obs = power[power["which"] == "observed"]
    counts = obs.assign(ok=obs["power"] >= 0.8).groupby("n")["ok"].sum().astype(int)
    assert list(table["n"]) == list(counts.index)
    assert list(table["pairs_at_80"]) == list(counts.values)
    assert set(table["n_pairs"]) == {len(obs) // len(counts)}
    best = counts.max()
    n_best = min(n for n, c in counts.items() if c == best)
    assert f"Judge N = {n_best} segments per system: {best} of {len(obs) // len(counts)} system pairs" in said
