"""The evaluation card (evalcore.views.card, `evalcore card`, `evalcore verify-card`).

On ../shared/data/wmt24_esa en-cs: under 5 MB, no URL, 0 network requests in Chromium with the
network blocked, tables readable with JavaScript off, `verify-card` exit 0; one number edited
in the embedded JSON, or one input file changed, exits 1 naming it. On synthetic data: user
text escaped, the card's numbers equal to the functions the pages call.
"""
from __future__ import annotations

import dataclasses
import json
import re
import shutil

import pandas as pd
import pytest

from conftest import shared
from evalcore.cli import main
from evalcore.io.synth import _write, make_synthetic
from evalcore.views.card import JSON_ID, build_card, read_card, render_card

URL = re.compile(r"https?://", re.I)


@pytest.fixture(scope="module")
def real_card(tmp_path_factory):
    root = shared("wmt24_esa")
    out = tmp_path_factory.mktemp("card") / "card.html"
    assert main(["card", str(root), "--lp", "en-cs", "--metrics", "bleu,chrf", "--bootstrap", "50",
                 "--out", str(out)]) == 0
    return root, out


def test_real_card_is_small_offline_and_verifies(real_card, capsys):
    root, out = real_card
    text = out.read_text(encoding="utf-8")
    assert out.stat().st_size < 5_000_000
    assert not URL.search(text)
    card = read_card(text)
    assert card["tool"]["name"] == "evalcore" and card["tool"]["version"]
    assert card["command"].startswith("python -m evalcore card DATA --lp en-cs --human esa")
    assert {f["file"] for f in card["inputs"]} >= {"judgements.tsv", "outputs.tsv", "references.tsv",
                                                    "segments.tsv"}
    rank = pd.DataFrame(card["tables"]["ranking"]["rows"], columns=card["tables"]["ranking"]["columns"])
    best = card["verdicts"][0]  # the best system is the ranking's first MT system
    assert best["question"] == "best system"
    assert [v["question"] for v in card["verdicts"]] == ["best system", "does B beat A", "metric to trust",
                                                         "best metric"]
    assert best["answer"] == rank.loc[~rank["human_translation"], "system"].iloc[0]
    capsys.readouterr()
    assert main(["verify-card", str(out), str(root)]) == 0
    err = capsys.readouterr().err
    assert re.search(r"verify-card: (\d+) of \1 values equal; 0 of \d+ input files changed", err)
    assert f"settings: {card['settings']['line']}\n" in err  # the card's own settings line


def test_editing_one_number_is_named(real_card, tmp_path, capsys):
    root, out = real_card
    text = out.read_text(encoding="utf-8")
    card = read_card(text)
    t = card["tables"]["ranking"]
    row = t["rows"][2]
    system, j = row[t["columns"].index("system")], t["columns"].index("score")
    row[j] = row[j] + 0.01
    edited = tmp_path / "edited.html"
    edited.write_text(render_card(card), encoding="utf-8")
    capsys.readouterr()
    assert main(["verify-card", str(edited), str(root)]) == 1
    captured = capsys.readouterr()
    assert f"different: tables.ranking[{system}].score" in captured.err
    assert f"tables.ranking[{system}].score" in captured.out  # the row of the comparison table


def test_changing_one_input_file_is_named(real_card, tmp_path, capsys):
    root, out = real_card
    data = tmp_path / "data"
    shutil.copytree(root, data)
    j = (data / "judgements.tsv").read_text(encoding="utf-8").split("\n")
    k = next(i for i, line in enumerate(j) if line.startswith("en-ja\t"))  # another pair: en-cs unchanged
    j[k] = j[k] + " "
    (data / "judgements.tsv").write_text("\n".join(j), encoding="utf-8")
    capsys.readouterr()
    assert main(["verify-card", str(out), str(data)]) == 1
    err = capsys.readouterr().err
    assert "input file changed: judgements.tsv" in err and "segments.tsv" not in err


def test_real_card_in_chromium_makes_no_request_and_reads_without_javascript(real_card):
    from browser import require_browser

    exe = require_browser()
    from playwright.sync_api import sync_playwright

    _, out = real_card
    requests = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=exe, args=["--headless", "--no-sandbox", "--disable-gpu",
                                                               "--disable-background-networking"])
        try:
            ctx = browser.new_context(java_script_enabled=False, offline=True)
            page = ctx.new_page()
            page.on("request", lambda r: requests.append(r.url))
            page.goto(out.as_uri())
            page.wait_for_load_state("load")
            body = page.inner_text("body")
            n_tables = page.locator("table").count()
        finally:
            browser.close()
    assert [u for u in requests if u != out.as_uri()] == []  # only the file itself
    assert "ONLINE-W is the best system by esa" in body and n_tables >= 4
    assert page is not None


# ---------------------------------------------------------------------------------------------
# synthetic: escaping, and the card's numbers are the pages' numbers
# ---------------------------------------------------------------------------------------------
EVIL = '<script>alert("x")</script>&<b>'


@pytest.fixture(scope="module")
def evil():
    ds = make_synthetic(25, 1, 4, seed=9)
    ren = {"sys-02": EVIL}
    return dataclasses.replace(ds, outputs=ds.outputs.replace({"system": ren}),
                               judgements=ds.judgements.replace({"system": ren}), name="x</title><i>")


def test_user_text_is_escaped_and_round_trips(evil):
    card = build_card(evil, metrics=["bleu", "chrf"], n_boot=20)
    text = render_card(card)
    assert "<script>alert" not in text and "</title><i>" not in text
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in text
    assert text.count("<script") == 1  # the JSON block alone
    back = read_card(text)
    assert back == json.loads(json.dumps(card))
    assert EVIL in {r[back["tables"]["ranking"]["columns"].index("system")] for r in back["tables"]["ranking"]["rows"]}
    assert f'id="{JSON_ID}"' in text and not URL.search(text)


def test_card_numbers_are_the_pages_numbers(evil):
    from evalcore.analysis.system_level import metrics_vs_humans
    from evalcore.scoring.settings import DEFAULTS
    from evalcore.views.metatask import system_ranking_figures
    from evalcore.views.systems import system_table

    card = build_card(evil, metrics=["bleu", "chrf"], n_boot=20)
    rank = system_ranking_figures(evil, "da")[0]  # the Systems page's ranking section
    t = card["tables"]["ranking"]
    got = pd.DataFrame(t["rows"], columns=t["columns"])
    assert list(got["system"]) == list(rank["system"])
    pd.testing.assert_series_equal(got["score"], rank["score"], check_names=False, atol=1e-9, rtol=0)
    st = system_table(evil, ["bleu", "chrf"], ["da"], n_boot=20, settings=DEFAULTS.with_(tokenizer="13a"), judged_for="da")
    t = card["tables"]["system_scores"]
    got = pd.DataFrame(t["rows"], columns=t["columns"])
    pd.testing.assert_series_equal(got["ci_lo"], st["ci_lo"], check_names=False, atol=1e-9, rtol=0)
    vs = metrics_vs_humans(evil, ["bleu", "chrf"], "da", DEFAULTS, n_boot=20)["table"]
    t = card["tables"]["metrics_vs_humans"]
    got = pd.DataFrame(t["rows"], columns=t["columns"])
    pd.testing.assert_series_equal(got["value"], vs["value"], check_names=False, atol=1e-9, rtol=0)
    best = card["verdicts"][0]
    assert best["answer"] == [s for s in rank["system"]][0]
    # how many judgements to buy: the Systems page's plan section (same view, same defaults)
    from evalcore.views import plan as plan_view

    pv = plan_view.plan_of(evil, plan_view.PlanQuery(evil.content_hash(), DEFAULTS, "da"))
    t = card["tables"]["judgement_plan"]
    got = pd.DataFrame(t["rows"], columns=t["columns"])
    pd.testing.assert_frame_equal(got, plan_view.pairs_at_80(pv.plan), check_dtype=False)
    assert t["title"].startswith(plan_view.headline(pv.plan, pv.pilot_n))


def test_card_command_refuses_half_a_pair_and_several_kinds(tmp_path, capsys):
    ds = make_synthetic(10, 1, 3, seed=1)
    _write(ds, tmp_path / "d")
    assert main(["card", str(tmp_path / "d"), "--a", "sys-01", "--out", str(tmp_path / "c.html")]) == 2
    assert "give both --a and --b" in capsys.readouterr().err
    assert not (tmp_path / "c.html").exists()
