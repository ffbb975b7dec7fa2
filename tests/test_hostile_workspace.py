"""Hand-edited, planted and hostile files in the workspace and the loaders.

Every expectation is worked out from the small files written in each test: which dataset is
listed as broken and why, which file and line a message names, which tables survive a save
(compared with the loaded tables themselves).
"""
from __future__ import annotations

import io
import json
import zipfile

import pytest

from evalcore.io import workspace
from evalcore.io import FileSource, load_collection
from evalcore.io.text import read_tsv
from evalcore.core.problems import DataError, Report

SEG = "lp\tseg_id\tsource\n" + "".join(f"es-en\t{i}\tHola {i}\n" for i in (1, 2, 3))
REF = "lp\tseg_id\tref_id\ttext\n" + "".join(f"es-en\t{i}\tA\tHello {i}\n" for i in (1, 2, 3))
OUT = "lp\tsystem\tseg_id\ttext\n" + "".join(f"es-en\t{s}\t{i}\t{s} says {i}\n" for s in ("s1", "s2") for i in (1, 2, 3))
JUD = ("lp\tsystem\tseg_id\trater\tjudgement\tscore\tn_error_spans\tesa_spans_json\n"
       + "".join(f"es-en\t{s}\t{i}\tr1\tesa\t{10 * i + (s == 's2')}\t{i}\t[{{\"start\": {i}, \"end\": {i + 2}}}]\n"
                 for s in ("s1", "s2") for i in (1, 2, 3)))


def write(folder, files):
    folder.mkdir(parents=True, exist_ok=True)
    for name, content in files.items():
        (folder / name).write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    return folder


def tiny(tmp_path, **more):
    files = {"segments.tsv": SEG, "references.tsv": REF, "outputs.tsv": OUT, **more}
    return load_collection(write(tmp_path / "src", files))


def errors_of(exc) -> list[str]:
    return [str(p) for p in exc.value.report.errors]


# ------------------------------------------------------------------ meta.json of the wrong shape
@pytest.mark.parametrize("edit, why", [
    (lambda m: m["files"].__setitem__("outputs.tsv", 5), "'files' entry 'outputs.tsv'"),
    (lambda m: m.__setitem__("saved_at", 5), "'saved_at' must be a string"),
    (lambda m: m["files"]["outputs.tsv"].__setitem__("bytes", None), "'files' entry 'outputs.tsv'"),
    (lambda m: m.__setitem__("files", [1, 2]), "'files' must map"),
    (lambda m: m.__setitem__("language_pairs", "es-en"), "'language_pairs' must be a list"),
    (lambda m: m.clear(), "neither a file table"),
    (lambda m: m.__setitem__("hashes", 3), "'hashes' must map"),
])
def test_one_wrong_meta_json_marks_only_its_dataset_broken(tmp_path, workspace_home, edit, why):
    coll = tiny(tmp_path)
    good = workspace.save(coll, "good")
    bad = workspace.save(coll, "bad")
    path = workspace_home / "datasets" / bad / "meta.json"
    meta = json.loads(path.read_text(encoding="utf-8"))
    edit(meta)
    path.write_text(json.dumps(meta), encoding="utf-8")
    listed = {m["name"]: m for m in workspace.list_saved()}  # raised AttributeError/TypeError before
    assert set(listed) == {good, bad}
    assert "broken" not in listed[good]
    assert listed[bad]["broken"] and why in listed[bad]["problems"][0]
    with pytest.raises(DataError) as exc:
        workspace.load_saved(bad)
    assert why in errors_of(exc)[0]
    workspace.repair(bad)  # reachable: the files still validate
    assert workspace.load_saved(bad)["es-en"].content_hash() == coll["es-en"].content_hash()


# --------------------------------------------------------------- every file of the folder counts
@pytest.mark.parametrize("planted", [
    {"system_scores.tsv": "lp\tsystem\tjudgement\tscore\nes-en\ts1\tda\t99\n"},
    {"tags.tsv": "lp\tsystem\tseg_id\ttag\nes-en\ts1\t1\tidiom\n"},
    {"mqm_annotations.tsv": "lp\tsystem\tseg_id\trater\tcategory\tseverity\nes-en\ts1\t1\tr\tAccuracy\tMajor\n"},
])
def test_planted_file_is_reported_not_loaded(tmp_path, workspace_home, planted):
    name = workspace.save(tiny(tmp_path), "planted")
    write(workspace_home / "datasets" / name, planted)
    (fname,) = planted
    (meta,) = workspace.list_saved()
    assert meta["broken"] and any(p.startswith(f"ERROR: {fname}") and "not in its meta.json" in p
                                  for p in meta["problems"])
    with pytest.raises(DataError) as exc:
        workspace.load_saved(name)
    assert any(fname in e and "not in its meta.json" in e for e in errors_of(exc))


# ------------------------------------------------------- a save that would not load back is refused
def test_control_character_in_a_name_refused_at_input_with_file_and_line(tmp_path):
    # system last and quoted with a line break: the file parses (RFC 4180), but the name cannot be
    # written back as one field that reads as the same name
    out = 'lp\tseg_id\ttext\tsystem\n' + "".join(f'es-en\t{i}\tt {i}\t"sys\nB"\n' for i in (1, 2, 3))
    with pytest.raises(DataError) as exc:
        load_collection(write(tmp_path / "d", {"segments.tsv": SEG, "references.tsv": REF, "outputs.tsv": out}))
    (err,) = [p for p in exc.value.report.errors if "control character" in p.message]
    assert err.file == "outputs.tsv" and err.line == 2 and "'sys\\nB'" in err.message


def test_save_verified_before_it_replaces_anything(tmp_path, workspace_home, monkeypatch):
    coll = tiny(tmp_path)
    name = workspace.save(coll, "keep")
    before = workspace.load_saved(name)["es-en"].content_hash()
    # a writer that loses a row: the round trip catches it, the old dataset stays as it was
    from evalcore.io import tidy

    real = tidy.write_tidy

    def lossy(datasets, folder):
        real(datasets, folder)
        p = folder / "outputs.tsv"
        p.write_text("".join(p.read_text(encoding="utf-8").splitlines(keepends=True)[:-1]), encoding="utf-8")

    monkeypatch.setattr(tidy, "write_tidy", lossy)
    changed = tiny(tmp_path / "v2")
    with pytest.raises(DataError) as exc:
        workspace.save(changed, "keep", replace=True)
    assert "load back different data for language pair es-en (outputs)" in errors_of(exc)[0]
    monkeypatch.setattr(tidy, "write_tidy", real)
    assert workspace.load_saved(name)["es-en"].content_hash() == before
    assert [m["name"] for m in workspace.list_saved()] == ["keep"]
    assert not [p for p in (workspace_home / "datasets").iterdir() if p.name.startswith(".tmp")]


# ------------------------------------------------------------------ extra columns kept through save
def test_extra_judgement_columns_survive_save_and_load(tmp_path, workspace_home):
    coll = tiny(tmp_path, **{"judgements.tsv": JUD})
    kept = coll["es-en"].extras["judgements_columns"]
    assert list(kept.columns) == ["system", "seg_id", "rater", "judgement", "n_error_spans", "esa_spans_json"]
    assert kept["esa_spans_json"].tolist()[:2] == ['[{"start": 1, "end": 3}]', '[{"start": 2, "end": 4}]']
    name = workspace.save(coll, "esa")
    back = workspace.load_saved(name)["es-en"]
    assert back.content_hash() == coll["es-en"].content_hash()
    assert back.extras["judgements_columns"]["esa_spans_json"].tolist() == kept["esa_spans_json"].tolist()


# -------------------------------------------------------- the page cache follows the content
def test_content_key_changes_on_repair_although_saved_at_stays(tmp_path, workspace_home):
    name = workspace.save(tiny(tmp_path), "edited")
    (before,) = workspace.list_saved()
    p = workspace_home / "datasets" / name / "outputs.tsv"
    p.write_text(p.read_text(encoding="utf-8").replace("s1 says 1", "s1 now says 1"), encoding="utf-8")
    workspace.repair(name)
    (after,) = workspace.list_saved()
    assert after["saved_at"] == before["saved_at"]
    assert after["content_key"] != before["content_key"]


def test_new_session_sees_a_repaired_hand_edit(tmp_path, workspace_home):
    """The dashboard's cache of loaded datasets (shared by every session of the server process):
    after a hand edit and Repair, which keeps saved_at, a new session shows the new data."""
    from streamlit.testing.v1 import AppTest

    from conftest import ROOT

    name = workspace.save(tiny(tmp_path), "cached")

    def caption():
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=90)
        at.query_params["dataset"] = name
        at.run()
        assert not at.exception
        return [c.value for c in at.sidebar.caption if "segments ·" in c.value][0]

    assert "2 systems" in caption()
    p = workspace_home / "datasets" / name / "outputs.tsv"
    p.write_text(p.read_text(encoding="utf-8") + "".join(f"es-en\ts3\t{i}\tnew {i}\n" for i in (1, 2, 3)),
                 encoding="utf-8")
    workspace.repair(name)
    assert "3 systems" in caption()


# --------------------------------------------------------------------------------- zips
@pytest.mark.parametrize("second", ["outputs.tsv", "OUTPUTS.TSV"])
def test_zip_with_two_members_of_one_name_refused(second):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf, pytest.warns(UserWarning) if second == "outputs.tsv" else _nothing():
        zf.writestr("segments.tsv", SEG)
        zf.writestr("outputs.tsv", OUT)
        zf.writestr(second, OUT.replace("says", "said"))
    with pytest.raises(DataError) as exc:
        FileSource.from_zip(buf.getvalue(), "two.zip")
    (err,) = errors_of(exc)
    assert "'outputs.tsv'" in err and repr(second) in err and "same name" in err


def test_folder_files_differing_only_in_case_refused(tmp_path):
    folder = write(tmp_path / "d", {"segments.tsv": SEG, "references.tsv": REF, "outputs.tsv": OUT,
                                    "OUTPUTS.TSV": OUT.replace("says", "said")})
    with pytest.raises(DataError) as exc:
        load_collection(folder)
    assert "'OUTPUTS.TSV'" in errors_of(exc)[0] and "'outputs.tsv'" in errors_of(exc)[0]


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


# ---------------------------------------------------------------------- names that look alike
@pytest.mark.parametrize("other", ["sys\u0410", "sy\u200ds" + "A", "sysA\u200b"])
def test_look_alike_system_names_warned(tmp_path, other):
    out = OUT.replace("\ts2\t", f"\t{other}\t").replace("\ts1\t", "\tsysA\t")
    coll = load_collection(write(tmp_path / "d", {"segments.tsv": SEG, "references.tsv": REF, "outputs.tsv": out}))
    ds = coll["es-en"]
    assert sorted(ds.systems) == sorted(["sysA", other])  # both kept
    (w,) = [p for p in ds.warnings if "look the same" in p.message]
    assert w.file == "outputs.tsv" and ascii(other) in w.message


def test_unweighted_mqm_severity_warned(tmp_path):
    mqm = ("lp\tsystem\tseg_id\trater\tcategory\tseverity\n"
           "es-en\ts1\t1\tr\tAccuracy\tMajor\nes-en\ts1\t2\tr\tAccuracy\tCritical\n")
    ds = tiny(tmp_path, **{"mqm_annotations.tsv": mqm})["es-en"]
    (w,) = [p for p in ds.warnings if "Critical" in p.message]
    assert w.file == "mqm_annotations.tsv" and w.line == 3 and "no MQM weight" in w.message


# ------------------------------------------------------------------------ parser limits
def test_duplicate_column_check_is_linear_in_work():
    """The check counts each name once: the number of comparisons grows with the header, not
    with its square (100,003 columns took 331 s with one header.count per column)."""
    from evalcore.io.text import duplicates

    calls = []

    class Counted(str):
        def __eq__(self, other):
            calls.append(1)
            return str.__eq__(self, other)

        __hash__ = str.__hash__

    for n in (1_000, 4_000):
        calls.clear()
        names = [Counted(f"c{i}") for i in range(n)] + [Counted("c7")]
        assert duplicates(names) == ["c7"]
        if n == 1_000:
            small = len(calls)
    assert len(calls) <= 4 * small + 10  # linear: 4x the names, at most ~4x the comparisons


def test_long_field_reported_and_the_rest_still_checked():
    from evalcore.io.text import MAX_FIELD_CHARS

    big = "x" * (MAX_FIELD_CHARS + 1)
    data = f"a\tb\n1\t{big}\n2\tok\n3\tone\ttoo many\n".encode()
    report = Report()
    table = read_tsv(data, "long.tsv", report, ["a", "b"])
    msgs = [(p.line, p.message) for p in report.errors]
    assert msgs[0][0] == 2 and f"longer than {MAX_FIELD_CHARS:,} characters" in msgs[0][1]
    assert msgs[1][0] == 4 and "has 3 fields" in msgs[1][1]  # checked after the long field
    assert table.rows == [["2", "ok"]]
    # 200,000 characters (over Python's default of 131,072) load
    ok = read_tsv(f"a\tb\n1\t{'y' * 200_000}\n".encode(), "ok.tsv", Report(), ["a", "b"])
    assert len(ok.rows[0][1]) == 200_000


@pytest.mark.parametrize("content, line, words", [
    ("", None, "empty"),
    ("lp\tsystem\tjudgement\tscore\nes-en\ts1\tda\n", 2, "has 3 fields"),
])
def test_bad_system_scores_named_with_file_and_line(tmp_path, content, line, words):
    with pytest.raises(DataError) as exc:
        tiny(tmp_path, **{"system_scores.tsv": content})
    (err,) = [p for p in exc.value.report.errors if p.file == "system_scores.tsv"]
    assert err.line == line and words in err.message


def test_mtme_sys_score_out_of_range_refused(tmp_path):
    root = tmp_path / "mtme"
    write(root / "sources", {"es-en.txt": "a\nb\n"})
    write(root / "references", {"es-en.refA.txt": "A\nB\n"})
    write(root / "system-outputs" / "es-en", {"s1.txt": "x\ny\n", "s2.txt": "p\nq\n"})
    write(root / "human-scores", {"es-en.da.sys.score": "s1\t1e300\ns2\t0.5\n"})
    with pytest.raises(DataError) as exc:
        load_collection(root)
    (err,) = errors_of(exc)
    assert "es-en.da.sys.score, line 1" in err and "'1e300'" in err and "±1e+09" in err


# ---------------------------------------------------------------------------- binding
def test_binding_refused_without_address_unless_asked():
    from evalcore.io.workspace import binding_refusal

    assert binding_refusal("127.0.0.1", {}) is None
    assert binding_refusal("0.0.0.0", {}) is None  # chosen deliberately (--server.address)
    assert "every network interface" in binding_refusal("", {})
    assert "every network interface" in binding_refusal(None, {})
    assert binding_refusal("", {"EVALCORE_LISTEN_ALL": "1"}) is None


def test_app_shows_nothing_when_unbound(monkeypatch, workspace_home):
    from streamlit import config as st_config
    from streamlit.testing.v1 import AppTest

    from conftest import ROOT

    monkeypatch.delenv("EVALCORE_LISTEN_ALL", raising=False)
    old = st_config.get_option("server.address")
    try:
        st_config.set_option("server.address", "")
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
        at.run()
        assert any("every network interface" in e.value for e in at.error)
        assert not at.sidebar.selectbox  # no dataset picker, no page
    finally:
        st_config.set_option("server.address", old)


def test_link_to_unknown_dataset_says_so(workspace_home):
    from streamlit.testing.v1 import AppTest

    from conftest import ROOT

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=90)
    at.query_params["dataset"] = "no-such-data"
    at.run()
    assert not at.exception
    import html

    assert any("no-such-data" in html.unescape(w.value) and "bundled sample instead" in w.value for w in at.warning)


def test_formats_lists_every_limit_with_its_number():
    from conftest import ROOT
    from evalcore.io import source, text
    from evalcore.metrics.base import MAX_ALIGN_TOKENS
    from evalcore.core.problems import MAX_ABS_SCORE

    doc = (ROOT / "docs" / "formats.md").read_text(encoding="utf-8")
    table = doc[doc.index("Every limit, with its number"):]
    for value in (f"{text.MAX_FIELD_CHARS:,} characters", f"{source.MAX_FILE_BYTES // 2**20} MB",
                  f"{source.MAX_TOTAL_BYTES // 2**20} MB", f"{source.MAX_RATIO}×", f"±{MAX_ABS_SCORE:.0e}".replace("+0", ""),
                  f"{workspace.MAX_NAME_BYTES} UTF-8 bytes", f"{workspace.LOCK_TIMEOUT:.0f} s",
                  f"{MAX_ALIGN_TOKENS:,} tokens"):
        assert value in table, value
