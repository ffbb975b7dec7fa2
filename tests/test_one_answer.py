"""One answer everywhere: every page and command with a "judged segments only" notion has the
shared default of :data:`evalcore.scoring.settings.DEFAULTS` (or is a listed, explained exception), and
every results section states its settings with the one line of
:meth:`evalcore.scoring.settings.Settings.describe`, on the page, on stderr and in exports."""
from __future__ import annotations

import tempfile
from pathlib import Path

import pandas as pd
import pytest

from evalcore.cli import build_parser, main
from evalcore.scoring.settings import DEFAULTS
from test_settings import _tiny  # the same tiny tidy dataset

#: Commands whose ``--judged-only`` is not the shared default, and why (the reason is checked
#: against the command's own help text, so the exception is said where the user reads it).
CLI_EXCEPTIONS = {
    # the task recipe fixes every setting of the official runs, all segments included
    "metatask": "the task: all",
    # its --judged-only is metatask's (the --task tables re-run under perturbations); --human mode ranks as rank
    "stability": "(as metatask)",
    # scores only: nothing is compared with human scores, so the judged subset is opt-in
    "score": "only the segments the humans judged for each system",
    # QARLA's likeness compares no metric with human scores: keeping the judged segments is a data subset
    "qarla": "keep only segments with at least one human judgement",
    "queen": "keep only segments with at least one human judgement",
    "search": "keep only segments with at least one human judgement",
}


def _subparsers():
    parser = build_parser()
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    return sub.choices


def _option(p, flag):
    return next((a for a in p._actions if flag in a.option_strings), None)


def test_every_command_with_judged_only_has_the_shared_default():
    """Every command with a --judged-only option: neither flag given means DEFAULTS (args value
    None, resolved by evalcore.scoring.settings.judged_only_of), and --all-segments turns it off; or the
    command is a listed exception whose help says what it does instead."""
    from evalcore.scoring.settings import from_args

    seen = []
    for name, p in _subparsers().items():
        judged = _option(p, "--judged-only")
        if judged is None:
            continue
        seen.append(name)
        if name in CLI_EXCEPTIONS:
            assert CLI_EXCEPTIONS[name] in (judged.help or ""), (name, judged.help)
            continue
        assert judged.default is None, f"{name}: --judged-only defaults to {judged.default!r}, not the shared default"
        assert _option(p, "--all-segments") is not None, f"{name}: no --all-segments to turn the default off"
        ns = type("Args", (), {"judged_only": p.get_default("judged_only")})()
        assert from_args(ns).judged_only is DEFAULTS.judged_only, name
        off = _option(p, "--all-segments")
        assert off.dest == "judged_only" and off.const is False, name
    # the commands that compare metric scores with human scores are all here
    assert {"compare", "correlate", "rank"} <= set(seen) - set(CLI_EXCEPTIONS), seen




OUTS = {"a": ["the cat sat on the mat 0", "a dog 1", "x y z", "p q"],
        "b": ["the cat sat 0", "the cat sat on the mat 1", "the cat sat on the mat 2", "the cat sat on the mat 3"]}
REFS = [f"the cat sat on the mat {i}" for i in range(4)]


def _compare(d, extra, capsys):
    with tempfile.TemporaryDirectory() as tmp:
        assert main(["compare", str(d), "--a", "a", "--b", "b", "--metrics", "bleu", "--bootstrap", "20",
                     "--ar", "20", "--out", tmp] + extra) == 0
        head = pd.read_csv(Path(tmp) / "headline.tsv", sep="\t")
    return head.set_index("signal"), capsys.readouterr().err


def test_compare_command_defaults_to_the_judged_segments(tmp_path, capsys):
    """Segments 1-2 judged for both systems, 3-4 not: by default compare scores BLEU over the
    judged ones (sacreBLEU on those two segments), as --judged-only, not as --all-segments,
    and says so on stderr with the shared settings line."""
    from sacrebleu.metrics import BLEU

    d = _tiny(tmp_path, OUTS, {"a": [4, 2], "b": [3, 5]})
    default, err = _compare(d, [], capsys)
    assert "judged segments only (the default; --all-segments for every segment)" in err
    assert f"settings: {DEFAULTS.with_(tokenizer='13a').describe()}" in err
    judged, _ = _compare(d, ["--judged-only"], capsys)
    every, err_every = _compare(d, ["--all-segments"], capsys)
    want = {s: BLEU().corpus_score(t[:2], [REFS[:2]]).score for s, t in OUTS.items()}
    assert default.loc["metric:bleu", "score_a"] == pytest.approx(want["a"], abs=1e-6)
    assert default.loc["metric:bleu", "score_b"] == pytest.approx(want["b"], abs=1e-6)
    pd.testing.assert_frame_equal(default, judged)
    everything = BLEU().corpus_score(OUTS["a"], [REFS]).score
    assert every.loc["metric:bleu", "score_a"] == pytest.approx(everything, abs=1e-6)
    assert abs(everything - want["a"]) > 1  # the switch matters on this data
    assert "metric scores over every segment" in err_every
    assert "judged_only=yes" in default["signature"].iloc[0] and "judged_only=no" in every["signature"].iloc[0]


def test_compare_default_falls_back_where_the_two_are_not_both_judged(tmp_path, capsys):
    d = _tiny(tmp_path, OUTS, {"a": [4, 2]})  # b is never judged
    head, err = _compare(d, [], capsys)
    assert "every segment: 'a' and 'b' are not both judged on any segment" in err
    assert "metric scores over every segment" in err
    with tempfile.TemporaryDirectory() as tmp:  # insisting on it is an error, not a silent fallback
        assert main(["compare", str(d), "--a", "a", "--b", "b", "--metrics", "bleu", "--judged-only",
                     "--out", tmp]) == 2
    assert "no segment in common" in capsys.readouterr().err


def test_rank_metric_signals_default_to_the_judged_segments(tmp_path, capsys):
    """rank --human H --metrics M: the metric's signal is over the segments judged for H."""
    d = _tiny(tmp_path, {**OUTS, "c": ["cat 0", "the mat 1", "the cat sat on the mat 2", "p"]},
              {"a": [4, 2], "b": [3, 5], "c": [1, 2]})

    def rank(extra):
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "r.tsv"
            assert main(["rank", str(d), "--human", "adequacy", "--metrics", "chrf", "--test", "bootstrap",
                         "--samples", "50", "--out", str(out)] + extra) == 0
            t = pd.read_csv(out, sep="\t")
        return t[t["signal"] == "chrf"].set_index("system")["n_segments"], capsys.readouterr().err

    default, err = rank([])
    assert "judged segments only (the default; --all-segments for every segment)" in err
    assert "settings: metric scores over the segments judged for adequacy" in err
    assert default.tolist() == [2, 2, 2] and default.equals(rank(["--judged-only"])[0])
    assert rank(["--all-segments"])[0].tolist() == [4, 4, 4]


# ---- one significance path: correlate --compare's table, its stderr lines, the Systems page -------------
def _correlate_compare(args, capsys):
    """correlate --compare: the correlation table, the pairwise table (full precision) and stderr."""
    with tempfile.TemporaryDirectory() as tmp:
        out, pairs = Path(tmp) / "c.tsv", Path(tmp) / "p.tsv"
        assert main(["correlate"] + [str(a) for a in args] + ["--out", str(out), "--compare-out", str(pairs)]) == 0
        return pd.read_csv(out, sep="\t"), pd.read_csv(pairs, sep="\t"), capsys.readouterr().err


def _stderr_tests(err: str) -> dict:
    import re

    return {(m.group(1), m.group(2)): float(m.group(3))
            for m in re.finditer(r"^test: \w+ [\w-]+: (\S+) \(\S+\) > (\S+) \(\S+\): p = (\S+)$", err, re.M)}


@pytest.mark.parametrize("method,test,draws", [("pearson", "williams", 1000), ("kendall", "perm", 300)])
def test_correlate_compare_table_and_stderr_agree(method, test, draws, capsys):
    """The pairwise table and the stderr lines are the same tests (the same draws too: the lines
    were once a second computation with its own 1000 draws), and the clusters are the ranks."""
    from conftest import SAMPLE

    table, pairs, err = _correlate_compare([SAMPLE, "--metrics", "bleu,chrf,ter", "--human", "adequacy",
                                            "--method", method, "--compare", test, "--draws", draws], capsys)
    lines = _stderr_tests(err)
    assert len(pairs) == 3 and set(lines) == set(zip(pairs["better"], pairs["worse"]))
    for r in pairs.itertuples():
        assert lines[(r.better, r.worse)] == pytest.approx(r.p_value, rel=1e-5, abs=1e-12)
    import re

    clusters = dict(re.findall(r"(\S+) (\d+)", err.split("test: clusters (p <= 0.05): ")[1].splitlines()[0]))
    assert {m: int(c) for m, c in clusters.items()} == dict(zip(table["metric"], table["cluster"].astype(int)))


def test_systems_page_metric_tests_equal_correlate_compare(capsys):
    """The Systems page's "Metrics vs humans" tests (Williams on Pearson, PERM-BOTH on the other
    statistics, as shown by the page under AppTest) = correlate --compare's table to 1e-9."""
    from conftest import SAMPLE
    from test_pages import _open

    from evalcore.analysis.system_level import VS_HUMANS_METHODS

    at = _open("systems", {"sys_boot": 0, "sys_metrics": ["bleu", "chrf", "ter"]})
    shown = next(df.value for df in at.dataframe if {"metric_a", "metric_b", "p_value"} <= set(df.value.columns))
    label = dict((b, a) for a, b in VS_HUMANS_METHODS)
    assert set(shown["statistic"].map(label)) == {m for m, _ in VS_HUMANS_METHODS}
    for method, _ in VS_HUMANS_METHODS:
        test = "williams" if method == "pearson" else "perm"
        _, pairs, _ = _correlate_compare([SAMPLE, "--metrics", "bleu,chrf,ter", "--human", "adequacy",
                                          "--method", method, "--compare", test], capsys)
        page = shown[shown["statistic"].map(label) == method]
        assert len(page) == len(pairs) == 3
        got = {(a, b): p for a, b, p in zip(page["metric_a"], page["metric_b"], page["p_value"])}
        for r in pairs.itertuples():
            assert got[(r.better, r.worse)] == pytest.approx(r.p_value, abs=1e-9), (method, r)
    assert any("--compare williams" in c.value for c in at.code)


# ---- every page: the shared judged-only default and the settings line -------------------------------------
#: Pages whose "judged segments only" box is not the shared default, and why (said on the page).
PAGE_EXCEPTIONS = {"metatask": "The official tasks score every segment"}
#: Pages that show no metric or human score, so have no settings to state.
NO_NUMBERS = {
    "annotate",  # collects a student's judgements, one output at a time
    "classroom",  # on the bundled sample it asks for a saved copy first; test_classroom checks its line
}


def _page_ids():
    from pages.registry import PAGES

    return [p.slug for p in PAGES]


@pytest.mark.parametrize("slug", _page_ids())
def test_every_page_states_its_settings_and_has_the_shared_default(slug):
    """Every page of the registry, on the bundled sample under AppTest: each "judged segments
    only" box starts at DEFAULTS.judged_only (or the page is a listed exception whose help says
    why), and the page shows the one settings line (Settings.describe) as a caption."""
    import html

    from test_pages import FAST, _open

    at = _open(slug, {**FAST, "lva_level": "system"})
    boxes = [c for c in at.checkbox if "judged" in (c.label or "").lower() and "only" in (c.label or "").lower()]
    for box in boxes:
        if slug in PAGE_EXCEPTIONS:
            assert PAGE_EXCEPTIONS[slug] in (box.help or ""), (slug, box.help)
            assert box.value is False
        else:
            assert box.value is DEFAULTS.judged_only, (slug, box.label)
    if slug in ("systems", "campaign", "compare", "likeness_vs_acceptability"):
        assert boxes, f"{slug}: no judged-segments box"
    lines = [html.unescape(c.value) for c in at.caption if c.value.startswith("Settings: ")]
    if slug in NO_NUMBERS:
        assert not lines, f"{slug} shows no numbers but states settings"
        return
    assert lines, f"{slug}: no settings line"
    assert all(" human score = mean over segments of the per-segment mean over raters" in t for t in lines), lines
    assert any(t.startswith("Settings: metric scores over ") for t in lines), lines
    if slug == "compare":  # the comparison's own settings, as the compare command writes them
        assert f"Settings: {DEFAULTS.with_(tokenizer='13a').describe()}." in lines


def _minimal_argv(p) -> list[str]:
    """The required positionals and options of a sub-parser, with placeholder values."""
    argv = []
    for a in p._actions:
        if a.option_strings and not a.required:
            continue
        if a.dest in ("help",) or (not a.option_strings and a.nargs == 0):
            continue
        value = str(list(a.choices)[0]) if a.choices else "x"
        n = 1 if a.nargs in (None, "?", "+") else (a.nargs if isinstance(a.nargs, int) else 1)
        argv += ([a.option_strings[0]] if a.option_strings else []) + [value] * n
    return argv


def test_every_command_writes_the_settings_line(monkeypatch, capsys):
    """Every command states the one settings line on stderr: python -m evalcore writes it before
    the command runs, or the command writes its own, resolved on the data (STATES_SETTINGS;
    those are run for real in the tests above and in test_settings)."""
    import importlib

    from evalcore.commands import spec_of
    from evalcore.scoring.settings import command_line

    own = []
    for name, p in _subparsers().items():
        mod = importlib.import_module(f"evalcore.commands.{name.replace('-', '_')}")
        if spec_of(mod).states_settings:
            own.append(name)
            continue
        seen = {}
        monkeypatch.setattr(mod, "run", lambda args, _seen=seen: _seen.setdefault("args", args) and 0)
        assert main([name] + _minimal_argv(p)) == 0, name
        err = capsys.readouterr().err
        assert f"settings: {command_line(seen['args'])}\n" in err, (name, err)
    assert sorted(own) == ["calibrate", "card", "compare", "correlate", "metatask", "plan", "rank", "stability",
                           "verify-card"]


def test_score_states_its_settings_as_they_are(capsys, tmp_path):
    """score: every segment unless --judged-only (opt-in: it compares nothing with humans), the
    tokenizer and the reference sets as given."""
    from conftest import SAMPLE

    out = tmp_path / "s.tsv"
    assert main(["score", str(SAMPLE), "--metrics", "chrf", "--out", str(out)]) == 0
    assert "settings: metric scores over every segment; tokenizer: sacreBLEU's default" in capsys.readouterr().err
    assert main(["score", str(SAMPLE), "--metrics", "chrf", "--judged-only", "adequacy", "--tokenize", "intl",
                 "--refs", "ref-A", "--out", str(out)]) == 0
    assert ("settings: metric scores over the segments judged for adequacy; tokenizer intl; references ref-A;"
            in capsys.readouterr().err)
