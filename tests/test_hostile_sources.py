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

import numpy as np
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


def test_human_system_score_of_an_unknown_system_refused():
    """A sys-level human score for a system the folder has no output for is refused, as a metric
    score is (mt-metrics-eval's EvalSet.CheckScores raises for both), never silently kept."""
    r = run_cli("validate", HOSTILE / "mtme_human_unknown")
    assert r.returncode == 2, r.text
    assert ("human-scores/es-en.da.sys.score, line 2: 1 score line(s) name system(s) that the data does "
            "not have (no output in system-outputs/es-en/, no reference set): 'sysQ' (line 2)") in r.stderr


# ----------------------------------------------------------------- 3. platform exports
from hypothesis import example, given, settings  # noqa: E402
from hypothesis import strategies as hs  # noqa: E402

#: names as careless or hostile exports hold them: letters, digits, spaces, quotes, commas, tabs,
#: line breaks, NUL and other control characters, the Unicode line separator, non-Latin letters
NAME_CHARS = hs.sampled_from(list("ab Z09_-.,'\"") + ["\t", "\n", "\r", "\x00", "\x01", "\x1b", "\x7f", "\x85",
                                                      "\u2028", "é", "ж", "\u200d"])
CLEAN_NAMES = hs.sampled_from(["a", "sys B", "ж", "x,y", 'q"', "1"])
NAMES = hs.one_of(*[CLEAN_NAMES] * 6, hs.text(NAME_CHARS, min_size=0, max_size=5))
HOSTILE_NUMBERS = hs.one_of(hs.floats(allow_nan=True, allow_infinity=True), hs.integers(-10 ** 400, 10 ** 400),
                            hs.sampled_from(["nan", "1e308", "-0", " 50 ", "abc", ""]))
SCORES = hs.one_of(*[hs.integers(0, 100)] * 3, hs.floats(0, 100), HOSTILE_NUMBERS)
TIMES = hs.one_of(*[hs.integers(0, 2_000_000_000)] * 4, HOSTILE_NUMBERS)


def _loads_back(imp, tmp):
    """The tidy loader's view of what import-judgements writes for ``imp``: judgements.tsv as the
    command writes it, beside a segments.tsv of the ids written with the csv module."""
    import csv

    from evalcore.io import load_collection
    from evalcore.io.judgement_io import judgements_tsv

    tmp.mkdir(parents=True, exist_ok=True)
    with open(tmp / "segments.tsv", "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh, delimiter="\t", lineterminator="\n")
        w.writerow(["lp", "seg_id"])
        w.writerows(dict.fromkeys(zip(imp.judgements["lp"], imp.judgements["seg_id"])))
    (tmp / "judgements.tsv").write_text(judgements_tsv(imp.judgements), encoding="utf-8")
    coll = load_collection(tmp)
    import pandas as pd

    got = pd.concat([d.judgements.assign(lp=d.lp) for d in coll.values()], ignore_index=True)
    key = ["lp", "system", "seg_id", "rater", "judgement"]
    return sorted(zip(*(got[k] for k in key), got["score"])), sorted(zip(*(imp.judgements[k] for k in key),
                                                                           imp.judgements["score"]))


def _csv_row(fields):
    import csv

    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerow(fields)
    return buf.getvalue()


@settings(max_examples=150, deadline=None)
@given(hs.lists(hs.tuples(NAMES, NAMES, NAMES, NAMES, SCORES, TIMES), min_size=0, max_size=3))
@example([("a, \"b\"", "ж\u200d", " 7 ", "ces", 99.5, 1_700_000_000), ("a, \"b\"", "ж", "7", "ces", 0, 0)])
def test_appraise_round_trip_whatever_the_reader_accepts_the_loader_loads(tmp_path_factory, rows):
    from evalcore.core.problems import DataError
    from evalcore.io.appraise import read_appraise
    from evalcore.io.judgement_io import loadable_tsv

    data = "".join(_csv_row([u, s, i, "TGT", "eng", t, str(score), d, "False", str(time), ""])
                   for u, s, i, t, score, time in [(r[0], r[1], r[2], r[3] or "ces", r[4], r[5]) for r in rows]
                   for d in ["doc1"])
    try:
        imp = read_appraise(data.encode("utf-8"), "export.csv")
    except DataError:
        return  # refused by the reader, with its lines: nothing is written
    loadable_tsv(imp.judgements, "export.csv")  # the command's guard never has to refuse
    got, want = _loads_back(imp, tmp_path_factory.mktemp("rt"))
    assert got == want


@settings(max_examples=150, deadline=None)
@given(hs.lists(hs.tuples(NAMES, NAMES, NAMES, NAMES, SCORES), min_size=0, max_size=3))
@example([("a, \"b\"", "ж\u200d", " 7 ", "Fluency", 99.5), ("u", " sys B ", "7", "x", 10 ** 3)])
def test_pearmut_round_trip_whatever_the_reader_accepts_the_loader_loads(tmp_path_factory, rows):
    import json

    from evalcore.core.problems import DataError
    from evalcore.io.judgement_io import loadable_tsv
    from evalcore.io.pearmut import read_pearmut

    lines = []
    for k, (user, model, item, slider, score) in enumerate(rows):
        value = score if not isinstance(score, float) or score == score and abs(score) != float("inf") else str(score)
        ann = {"sliders": {slider: value}} if k % 2 else {"score": value, "error_spans": []}
        lines.append(json.dumps({"user_id": user, "item_i": k, "item": [{"item_id": item, "tgt": {model: "x"}}],
                                 "annotation": [{model: ann}]}))
    try:
        imp = read_pearmut("".join(ln + "\n" for ln in lines).encode("utf-8"), "log.jsonl")
    except DataError:
        return
    loadable_tsv(imp.judgements, "log.jsonl")
    got, want = _loads_back(imp, tmp_path_factory.mktemp("rt"))
    assert got == want


PLATFORM = [
    ("appraise_control_names.csv", ["line 2: userID 'bob\\x1b[2J' holds a control character",
                                    "line 3: systemID 'sys\\x01B' holds a control character",
                                    "line 4: itemID 'x\\u2028y' holds a control character"]),
    ("appraise_bad_times.csv", ["line 2: startTime 'nan' is not a number of seconds since the epoch",
                                "line 3: endTime '1e308' is not a number", "line 4: startTime '-5' is not a number"]),
    ("pearmut_tab_in_model.jsonl", ["line 1: model name 'sys\\tA' holds a control character"]),
    ("pearmut_nul_in_user.jsonl", ["line 1: user_id 'u\\x00' holds a control character"]),
    ("pearmut_empty.jsonl", ["pearmut_empty.jsonl: holds no annotation lines"]),
    ("pearmut_400_digits.jsonl", ["line 1: score 1000000000", "is beyond the accepted range of ±1e+09"]),
]


def test_platform_files_are_what_the_script_writes():
    for fname, content in make_corpus.platform_files().items():
        assert (HOSTILE / "platform" / fname).read_text(encoding="utf-8") == content, f"{fname}: rerun make_corpus.py"


@pytest.mark.parametrize("fname, expected", PLATFORM, ids=[f for f, _ in PLATFORM])
def test_platform_exports_the_loader_would_refuse_are_refused_at_import(fname, expected, tmp_path):
    fmt = "pearmut" if fname.endswith(".jsonl") else "appraise"
    out = tmp_path / "j.tsv"
    r = run_cli("import-judgements", HOSTILE / "platform" / fname, "--format", fmt, "--out", out)
    assert r.returncode == 2 and not out.exists(), r.text[-2000:]
    for text in expected:
        want = f"{fname}, {text}" if text.startswith("line ") else text  # file and line together
        assert want in r.stderr, (want, r.stderr[-2000:])


def test_import_judgements_refuses_names_and_times_it_could_not_write_back(tmp_path):
    rows = [["alice", "sysA", "1", "TGT", "eng", "ces", "70", "d1", "False", "1700000000", "1700000009"],
            ["bob\x1b[2J", "sysA", "1", "TGT", "eng", "ces", "70", "d1", "False", "1700000000", "1700000009"],
            ["carol", "sys\x01B", "1", "TGT", "eng", "ces", "70", "d1", "False", "1700000000", "1700000009"],
            ["dave", "sysA", "2", "TGT", "eng", "ces", "70", "d1", "False", "nan", "1700000009"],
            ["erin", "sysA", "2", "TGT", "eng", "ces", "70", "d1", "False", "1700000000", "1e308"]]
    f = tmp_path / "export.csv"
    f.write_text("".join(_csv_row(r) for r in rows), encoding="utf-8")
    out = tmp_path / "j.tsv"
    r = run_cli("import-judgements", f, "--format", "appraise", "--out", out)
    assert r.returncode == 2 and not out.exists(), r.text
    assert "export.csv, line 2: userID 'bob\\x1b[2J' holds a control character" in r.stderr
    assert "export.csv, line 3: systemID 'sys\\x01B' holds a control character" in r.stderr
    assert "export.csv, line 4: startTime 'nan' is not a number of seconds since the epoch" in r.stderr
    assert "export.csv, line 5: endTime '1e308' is not a number of seconds since the epoch" in r.stderr


def test_pearmut_tab_in_a_system_name_and_an_empty_file_refused(tmp_path):
    import json

    f = tmp_path / "log.jsonl"
    f.write_text(json.dumps({"user_id": "u1", "item_i": 0, "item": [{"item_id": "s1", "tgt": {"sys\tA": "x"}}],
                             "annotation": [{"sys\tA": {"score": 50}}]}) + "\n", encoding="utf-8")
    r = run_cli("import-judgements", f, "--format", "pearmut", "--out", tmp_path / "j.tsv")
    assert r.returncode == 2 and "log.jsonl, line 1: model name 'sys\\tA' holds a control character" in r.stderr
    # NUL reaches a JSON file escaped (a raw NUL byte is refused as binary before any parsing)
    f.write_text('{"user_id": "u\\u0000", "item_i": 0, "item": [{"item_id": "s1", "tgt": {"A": "x"}}], '
                 '"annotation": [{"A": {"score": 50}}]}\n', encoding="utf-8")
    r = run_cli("import-judgements", f, "--format", "pearmut", "--out", tmp_path / "j.tsv")
    assert r.returncode == 2 and "log.jsonl, line 1: user_id 'u\\x00' holds a control character" in r.stderr, r.text
    f.write_text("\n\n", encoding="utf-8")
    r = run_cli("import-judgements", f, "--format", "pearmut", "--out", tmp_path / "j.tsv")
    assert r.returncode == 2 and "log.jsonl: holds no annotation lines" in r.stderr, r.text
    assert not (tmp_path / "j.tsv").exists()


def test_appraise_field_over_a_megabyte_is_a_clean_error(tmp_path):
    f = tmp_path / "export.csv"
    good = _csv_row(["alice", "sysA", "1", "TGT", "eng", "ces", "70", "d1", "False", "1700000000", "1700000009"])
    f.write_text(good + _csv_row(["bob", "sysA", "1", "TGT", "eng", "ces", "70", "x" * 1_100_000, "False", "1", "2"]),
                 encoding="utf-8")
    r = run_cli("import-judgements", f, "--format", "appraise", "--out", tmp_path / "j.tsv")
    assert r.returncode == 2 and "export.csv, line 2: a field is longer than 1,000,000 characters" in r.stderr, r.text


# ----------------------------------------------------------------- 4. no raw tracebacks
def test_zip_symlink_member_refused_as_a_symlink(big):
    r = run_cli("validate", big["zip_symlink"])
    assert r.returncode == 2, r.text
    assert ("zip_symlink.zip: member 'outputs.tsv' is a symbolic link; symlinks are refused" in r.stderr)
    assert "header" not in r.stderr


@pytest.fixture(scope="module")
def bad_models(tmp_path_factory):
    """Model folders whose files are not what they claim: a COMET checkpoint that is a pickle of a
    function (torch.load with weights_only refuses it), an hparams.yaml with a Python tag (yaml's
    safe loader refuses it), a BERTScore folder whose weights are not safetensors."""
    import pickle

    root = tmp_path_factory.mktemp("bad_models")
    pk = root / "pickle" / "checkpoints"
    pk.mkdir(parents=True)
    (pk / "model.ckpt").write_bytes(pickle.dumps({"f": print}))
    (root / "pickle" / "hparams.yaml").write_text("class_identifier: regression_metric\n")
    tag = root / "pytag" / "checkpoints"
    tag.mkdir(parents=True)
    (tag / "model.ckpt").write_bytes(pickle.dumps({}))
    (root / "pytag" / "hparams.yaml").write_text("class_identifier: !!python/object/apply:os.getcwd []\n")
    bs = root / "bert"
    bs.mkdir()
    (bs / "config.json").write_text('{"model_type": "bert", "hidden_size": 8, "num_hidden_layers": 1, '
                                    '"num_attention_heads": 1, "intermediate_size": 8, "vocab_size": 10}')
    (bs / "vocab.txt").write_text("[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\na\n")
    (bs / "model.safetensors").write_bytes(b"not a safetensors file")
    return root


@pytest.mark.parametrize("spec, kind", [("comet:{r}/pickle", "UnpicklingError"), ("comet:{r}/pytag", "ConstructorError"),
                                        ("bertscore:{r}/bert", "SafetensorError")])
def test_model_files_that_do_not_load_are_a_clean_error(bad_models, spec, kind):
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    if spec.startswith("comet"):
        pytest.importorskip("comet")
    metric = spec.format(r=bad_models)
    r = run_cli("score", CLEAN, "--metrics", metric, "--device", "cpu")
    assert r.returncode == 2, r.text[-2000:]
    assert f"error: {metric}: the model files cannot be loaded ({kind}" in r.stderr
    assert f"is this a complete {metric.split(':')[0]} checkpoint from a source you trust?" in r.stderr


# ----------------------------------------------------------------- 6. stored metrics are scoped
def _mtme_with_stored(tmp_path):
    files = dict(make_corpus.small_cases()["mtme_metric_twice"])
    files["metric-scores/es-en/BLEU-refA.sys.score"] = "sysA\t30.0\nsysB\t20.0\nsysC\t15.0\n"
    make_corpus._write(tmp_path / "mtme", files)
    return tmp_path / "mtme"


def test_score_accepts_stored_ids_as_correlate_does(tmp_path):
    out = tmp_path / "s.tsv"
    r = run_cli("score", _mtme_with_stored(tmp_path), "--metrics", "stored:BLEU-refA", "--level", "system",
                "--out", out)
    assert r.returncode == 0, r.text[-2000:]
    import pandas as pd

    t = pd.read_csv(out, sep="\t")
    assert dict(zip(t.system, t.score)) == {"sysA": 30.0, "sysB": 20.0, "sysC": 15.0}  # the file's lines
    r = run_cli("score", _mtme_with_stored(tmp_path), "--metrics", "stored:BLEU-refB", "--out", out)
    assert r.returncode == 2 and "'stored:BLEU-refB': the data stores no scores of that name; it stores " \
                                  "stored:BLEU-refA" in r.stderr, r.text


def test_stored_ids_never_leak_into_another_session(tmp_path):
    """Session 1 opens data with stored scores; session 2 (another thread, as Streamlit runs each
    session) opens data without: its metric list has no stored: id and asking for one fails."""
    import threading

    from evalcore.io import load_dataset
    from evalcore.metrics.base import get_metric
    from evalcore.scoring.defaults import available_metrics

    stored = load_dataset(_mtme_with_stored(tmp_path))
    clean = load_dataset(CLEAN)
    seen = {}

    def session(name, ds):
        ids = available_metrics(ds)
        seen[name] = [m for m in ids if m.startswith("stored:")]
        try:
            seen[name + " lookup"] = get_metric("stored:bleu-refa").lookup("sysA", "", "", ds.lp)
        except KeyError as exc:
            seen[name + " lookup"] = str(exc)

    for name, ds in (("one", stored), ("two", clean)):
        t = threading.Thread(target=session, args=(name, ds))
        t.start()
        t.join()
    assert seen["one"] == ["stored:bleu-refa"] and seen["one lookup"] == 30.0
    assert seen["two"] == [] and "the data stores no scores of that name; it stores none" in seen["two lookup"]


# ----------------------------------------------------------------- 5. shared servers
LOCAL = {"Host": "localhost:8501", "Origin": "http://localhost:8501", "User-Agent": "Mozilla/5.0"}


@pytest.mark.parametrize("address, headers, env, allowed", [
    ("127.0.0.1", LOCAL, {}, True),                                                 # this machine
    ("127.0.0.1", {"host": "127.0.0.1:8501"}, {}, True),
    ("::1", {"Host": "[::1]:8501"}, {}, True),
    ("127.0.0.1", {**LOCAL, "X-Forwarded-For": "203.0.113.7"}, {}, False),          # nginx / Caddy
    ("127.0.0.1", {**LOCAL, "Forwarded": "for=203.0.113.7;proto=https"}, {}, False),  # RFC 7239
    ("127.0.0.1", {**LOCAL, "x-real-ip": "10.0.0.9"}, {}, False),
    ("127.0.0.1", {**LOCAL, "Via": "1.1 proxy"}, {}, False),
    ("127.0.0.1", {"Host": "dash.example.org", "Origin": "https://dash.example.org"}, {}, False),
    ("127.0.0.1", {"Host": "localhost:8501", "Origin": "https://evil.example"}, {}, False),
    ("127.0.0.1", LOCAL, {"EVALCORE_SHARED": "1"}, False),                           # an SSH tunnel, declared
    ("127.0.0.1", {**LOCAL, "X-Forwarded-For": "203.0.113.7"}, {"EVALCORE_ALLOW_PATH_IMPORT": "1"}, True),
    ("0.0.0.0", LOCAL, {}, False),
])
def test_path_import_decided_by_what_the_request_shows(address, headers, env, allowed):
    from evalcore.io import workspace

    ok, why = workspace.path_import_allowed(address, env, headers=headers)
    assert ok is allowed, why
    if not ok and "EVALCORE_SHARED" not in env:
        assert "EVALCORE_ALLOW_PATH_IMPORT=1" in why


def test_secret_header_case_is_not_echoed():
    r = run_cli("validate", HOSTILE / "secret_header")
    assert r.returncode == 2 and "outputs.tsv, line 1: missing column(s) system, seg_id, text; the header has one " \
                                  "field of 37 characters and no tab" in r.stderr
    assert "S3CRET" not in r.text


def test_errors_never_echo_a_file_beyond_the_offending_field(tmp_path):
    secret = "root:$6$S3CRETHASH:19000:0:99999:7:::"
    d = tmp_path / "d"
    d.mkdir()
    (d / "segments.tsv").write_text("seg_id\n1\n")
    (d / "outputs.tsv").write_text(secret + "\nsecond line\n")
    r = run_cli("validate", d)
    assert r.returncode == 2 and "outputs.tsv, line 1: missing column(s) system, seg_id, text" in r.stderr
    assert "S3CRET" not in r.text and "one field of 37 characters and no tab" in r.stderr
    (d / "outputs.tsv").write_text("seg_id\tsystem\tPASSWORD=hunter2 and the rest of a long secret line\n1\tA\n")
    r = run_cli("validate", d)
    assert r.returncode == 2 and "the header has seg_id, system, PASSWORD=hunter2 and the..."  # 24 characters in r.stderr
    assert "rest of a long secret" not in r.text


# ----------------------------------------------------------------- 8. a memory budget
def test_memory_budget_refuses_with_the_number_and_the_setting():
    """The clean case by hand: 5 sources ('fuente i': 8 characters each), 5 references (WORDS: 22 +
    21 + 23 + 21 + 23 = 110 characters), 20 outputs (each system drops one more word: sysA 110,
    sysB 18 + 16 + 17 + 16 + 18 = 85, sysC 14 + 12 + 13 + 11 + 14 = 64, sysD 11 + 9 + 10 + 9 + 10
    = 49) -> 30 texts of 40 + 110 + 308 = 458 characters."""
    from evalcore.core.budget import OverBudget, check_memory_budget, estimate
    from evalcore.io import load_collection

    coll = load_collection(CLEAN)
    want = 30 * 1_500 + 458 * 8
    est = estimate(coll, {})
    assert (est.texts, est.characters, est.bytes) == (30, 458, want)
    assert check_memory_budget(coll, {"EVALCORE_MEMORY_BUDGET_MB": "1"}).within  # 48,664 bytes < 1 MB
    assert check_memory_budget(coll, {"EVALCORE_MEMORY_BUDGET_MB": "0"}).budget_bytes is None  # off
    import evalcore.core.budget as budget

    old = budget.PER_TEXT_BYTES
    try:
        budget.PER_TEXT_BYTES = 100_000  # 30 texts -> about 3 MB: over a 2 MB budget
        with pytest.raises(OverBudget) as exc:
            check_memory_budget(coll, {"EVALCORE_MEMORY_BUDGET_MB": "2"})
    finally:
        budget.PER_TEXT_BYTES = old
    msg = str(exc.value)
    assert "about 3 MB of working memory (30 texts of 458 characters in all), over the budget of 2 MB " \
           "(EVALCORE_MEMORY_BUDGET_MB=2)" in msg
    with pytest.raises(ValueError, match="EVALCORE_MEMORY_BUDGET_MB='lots' is not a whole number"):
        check_memory_budget(coll, {"EVALCORE_MEMORY_BUDGET_MB": "lots"})


# ----------------------------------------------------------------- found by the sweep
def test_williams_test_of_two_perfectly_correlated_metrics_is_nan_like_mt_metrics_eval():
    """card on four systems compared two metrics whose scores correlate perfectly (r23 = 1, r12 =
    r13): Williams' statistic is 0/0, which ended in ZeroDivisionError; mt-metrics-eval's
    stats.WilliamsTest gives NaN (numpy's 0/0)."""
    import math
    import types

    from conftest import SHARED_DATA
    from evalcore.stats.significance import williams_test

    t, p = williams_test(0.5, 0.5, 1.0, 4)
    assert math.isnan(t) and math.isnan(p)
    assert all(math.isnan(v) for v in williams_test(0.6, 0.5, 0.8, 3))  # n - 3 = 0 degrees of freedom
    oracle = SHARED_DATA.parent / "oracles" / "mt-metrics-eval"
    if not oracle.exists():
        pytest.skip("../shared/oracles/mt-metrics-eval is absent (the mt-metrics-eval oracle)")
    sys.path.insert(0, str(oracle))
    for name in ("apache_beam", "dacite"):
        sys.modules.setdefault(name, types.ModuleType(name))
    import numpy as np
    from mt_metrics_eval import stats

    with np.errstate(all="ignore"):
        assert math.isnan(stats.WilliamsTest(0.5, 0.5, 1.0, 4))
        assert williams_test(0.6, 0.5, 0.8, 100)[1] == pytest.approx(stats.WilliamsTest(0.6, 0.5, 0.8, 100), abs=1e-9)


@pytest.mark.parametrize("metric_id", ["meteor", "gtm-2", "gtm-3"])
def test_a_segment_over_the_alignment_cap_does_not_size_the_others_buffers(metric_id):
    """card and compare on the hostile field_200k case (one output of 40,000 words) ended in
    MemoryError: the greedy-run kernel sized its buffers by the longest text of the chunk,
    including the one the cap had left out (40,000² entries). The long item is NaN (refused, as
    documented) and the others score as they do without it."""
    from evalcore.metrics.base import get_metric

    m = get_metric(metric_id)
    cands, refs = ["a b c d", "the cat sat on the mat"], [["a b x d"], ["the cat sat on a mat", "a cat sat"]]
    alone = m.segment_stats(cands, refs)
    with_long = m.segment_stats(["word " * 40_000] + cands, [["word"]] + refs)
    assert np.isnan(with_long[0]).all()
    assert np.array_equal(with_long[1:], alone)
