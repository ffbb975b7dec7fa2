"""Round four of the hostile corpus (tests/hostile/, written by tests/hostile/make_corpus.py):
every score source is checked the same way (range ±1e9, duplicates, unknown systems, names),
each problem named with file and line (or JSON path); platform exports round-trip; no input
ends in a traceback.

The commands run in this process (``evalcore.cli.main``): an exception that escapes a command
fails the test by itself, and the exit code and messages are asserted.
"""
from __future__ import annotations

import contextlib
import io
import sys
from types import SimpleNamespace

import pytest

from conftest import ROOT

HOSTILE = ROOT / "tests" / "hostile"
IMPORTS = HOSTILE / "imports"
CLEAN = HOSTILE / "clean"
sys.path.insert(0, str(HOSTILE))
import make_corpus  # noqa: E402


def run_cli(*args):
    """``python -m evalcore ARGS`` in this process: returncode, stdout, stderr (an exception
    that escapes the command propagates and fails the test)."""
    from evalcore.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in args])
    return SimpleNamespace(returncode=code, stdout=out.getvalue(), stderr=err.getvalue(),
                           text=out.getvalue() + err.getvalue())


@pytest.fixture(autouse=True)
def _fresh_external():
    yield
    from evalcore.metrics.byo import unregister_external

    unregister_external()


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    return make_corpus.make_big(tmp_path_factory.mktemp("hostile_big4"))


def test_import_files_are_what_the_script_writes():
    for fname, content in make_corpus.import_files().items():
        assert (IMPORTS / fname).read_text(encoding="utf-8") == content, f"{fname}: rerun make_corpus.py"


# ----------------------------------------------------------------- 1. imported neural scores
def _import(spec, *extra):
    return run_cli("score", CLEAN, "--metrics", "ext", "--import-scores", spec + "@ext", *extra)


# (spec, texts the error must hold): refused with file, line / JSON path, exit 2
IMPORT_ERRORS = [
    ("comet-json:{d}/comet_1e308.json", ["comet_1e308.json, line 47:", '$["sysB.txt"][2]["COMET"]',
                                         "'COMET' 1e+308 is beyond the accepted range of ±1e+09"]),
    ("metricx-jsonl:{d}/metricx_1e308.jsonl", ["metricx_1e308.jsonl, line 7:", "'prediction' 1e+308 is beyond"]),
    ("pymarian-tsv:{d}/pymarian_5e9.txt={d}/pymarian_input.tsv", ["pymarian_5e9.txt, line 4:",
                                                                  "score '5e9' is beyond the accepted range"]),
    ("comet-json:{d}/comet_file_key_twice.json", ["comet_file_key_twice.json, line 130: $: key 'sysA.txt' is given more "
                                                  "than once in one object"]),
    ("comet-json:{d}/comet_score_key_twice.json", ["comet_score_key_twice.json, line 7:", '$["sysA.txt"][0]: key '
                                                   "'COMET' is given more than once"]),
    ("comet-json:{d}/comet_400_digits.json", ["comet_400_digits.json", '$["sysA.txt"][0]["COMET"]',
                                              "'COMET' 1000000000", "is beyond the accepted range"]),
]


@pytest.mark.parametrize("spec, expected", IMPORT_ERRORS, ids=[s.split(":")[0] + "-" + s.split("/")[1].split(".")[0]
                                                               for s, _ in IMPORT_ERRORS])
def test_imported_scores_checked_like_every_source(spec, expected):
    r = _import(spec.format(d=IMPORTS))
    assert r.returncode == 2, r.text[-2000:]
    for text in expected:
        assert text in r.stderr, (text, r.stderr[-2000:])


def test_deeply_nested_json_is_a_clean_error(big):
    r = _import(f"comet-json:{big['deeply_nested.json']}")
    assert r.returncode == 2 and "deeply_nested.json: nested too deeply to read (at most 64 levels" in r.stderr, r.text


def test_one_line_json_with_an_unmatched_row_warns_and_scores(tmp_path):
    """The row that matches nothing is named (it was IndexError when every row sat on line 1);
    the others score: sysA's entries are 0.9 + 0.01 i, so the first segment's score is 0.91."""
    out = tmp_path / "s.tsv"
    r = _import(f"comet-json:{IMPORTS}/comet_one_line_unmatched.json", "--level", "segment", "--out", out)
    assert r.returncode == 0, r.text[-2000:]
    assert ("ext: 1 of 21 imported rows match no output of the dataset by their texts (first: "
            'comet_one_line_unmatched.json, line 1, $["sysA.txt"][5])') in r.stderr
    import pandas as pd

    t = pd.read_csv(out, sep="\t", dtype={"seg_id": str})
    got = t[(t.system == "sysA") & (t.seg_id == "1")].score.tolist()
    assert got == [pytest.approx(0.91, abs=1e-12)]
    # the same data pretty-printed: the same note, with the entry's own line
    pretty = tmp_path / "pretty.json"
    import json

    pretty.write_text(json.dumps(json.loads((IMPORTS / "comet_one_line_unmatched.json").read_text()), indent=1))
    r2 = _import(f"comet-json:{pretty}", "--level", "segment", "--out", tmp_path / "s2.tsv")
    assert r2.returncode == 0 and "1 of 21 imported rows match no output" in r2.stderr
    assert "pretty.json, line 33, $[\"sysA.txt\"][5])" in r2.stderr  # 3 + 6 lines per entry x 5


def test_metric_name_after_at_is_a_checked_name():
    r = run_cli("score", CLEAN, "--metrics", "ext", "--import-scores",
                f"comet-json:{IMPORTS}/comet_ok.json@ex\tt")
    assert r.returncode == 2 and "the metric name after @" in r.stderr and "control character" in r.stderr


# ----------------------------------------------------------------- 2. stored metric scores
def test_stored_metric_score_listed_twice_refused():
    r = run_cli("validate", HOSTILE / "mtme_metric_twice")
    assert r.returncode == 2, r.text
    assert ("metric-scores/es-en/BLEU-refA.sys.score, line 3: system 'sysA' appears twice (also line 1)"
            in r.stderr)


def test_stored_metric_score_of_an_unknown_system_refused():
    r = run_cli("validate", HOSTILE / "mtme_metric_unknown")
    assert r.returncode == 2, r.text
    assert ("metric-scores/es-en/BLEU-refA.sys.score, line 4: 1 score line(s) name system(s) that the data does "
            "not have (no output in system-outputs/es-en/, no reference set): 'sysZ' (line 4)") in r.stderr
