"""Tidy TSV loading, validation of bad input (every problem at once), writing, persistence, CLI."""
from __future__ import annotations

import io
import subprocess
import sys
import zipfile

import pandas as pd
import pytest

from conftest import ROOT, shared
from evalcore.io import workspace
from evalcore.io import FileSource, load_collection, load_dataset, write_tidy
from evalcore.core.problems import DataError

GOOD = {
    "segments.tsv": "lp\tseg_id\tdoc_id\tsource\nes-en\t1\td1\tHola mundo\nes-en\t2\td1\tBuenos días\n",
    "references.tsv": "lp\tseg_id\tref_id\ttext\nes-en\t1\tA\tHello world\nes-en\t1\tB\tHi world\n"
                      "es-en\t2\tA\tGood morning\n",
    "outputs.tsv": "lp\tsystem\tseg_id\ttext\nes-en\ts1\t1\tHello world\nes-en\ts1\t2\t\n",
    "judgements.tsv": "lp\tsystem\tseg_id\trater\tjudgement\tscore\nes-en\ts1\t1\tr1\tadequacy\t5\n"
                      "es-en\tB\t1\tr1\tadequacy\t4\nes-en\tghost\t2\tr1\tadequacy\t3\n",
}


def write(folder, files):
    folder.mkdir(parents=True, exist_ok=True)
    for name, content in files.items():
        (folder / name).write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    return folder


def errors_of(folder) -> list[str]:
    with pytest.raises(DataError) as exc:
        load_collection(folder)
    return [str(p) for p in exc.value.report.errors]


def test_good_dataset_loads_with_warnings(tmp_path):
    ds = load_dataset(write(tmp_path / "d", GOOD))
    assert ds.lp == "es-en" and ds.seg_ids == ["1", "2"]
    assert ds.ref_ids == ["A", "B"] and ds.systems == ["s1"]
    assert ds.ref_texts()["B"] == ["Hi world", None]  # a segment may lack a reference set
    assert ds.sys_texts()["s1"] == ["Hello world", ""]
    assert list(ds.refs_per_segment()) == [2, 1]
    assert ds.judgements["score"].tolist() == [5.0, 4.0, 3.0]
    assert ds.is_reference("B") and not ds.is_reference("s1")
    warnings = " ".join(str(w) for w in ds.warnings)
    assert "'s1'" in warnings and "empty" in warnings and "line 3" in warnings  # empty output kept, named
    assert "ghost" in warnings  # judged but no text: kept with a warning
    assert "'B'" in warnings and "covers 1 of 2" in warnings


def test_lp_optional_with_one_pair(tmp_path):
    files = {k: "\n".join("\t".join(f for i, f in enumerate(line.split("\t")) if i > 0)
                          for line in v.rstrip("\n").split("\n")) + "\n" for k, v in GOOD.items()}
    ds = load_dataset(write(tmp_path / "d", files))
    assert ds.lp == "" and ds.n_segments == 2 and len(ds.judgements) == 3


def test_every_problem_reported_at_once(tmp_path):
    files = dict(GOOD)
    files["segments.tsv"] += "es-en\t2\td1\tduplicate id\n"
    files["references.tsv"] += "es-en\t9\tA\tunknown segment\n"
    files["outputs.tsv"] = files["outputs.tsv"].replace("seg_id\ttext", "seg_id\ttxt")
    files["judgements.tsv"] += "es-en\ts1\t2\tr1\tadequacy\tgood\n"
    errs = errors_of(write(tmp_path / "d", files))
    joined = "\n".join(errs)
    assert "segments.tsv, line 4" in joined and "duplicate segment" in joined
    assert "references.tsv" in joined and "'9'" in joined and "line 5" in joined
    assert "outputs.tsv, line 1" in joined and "missing column(s) text" in joined
    assert "judgements.tsv" in joined and "'good'" in joined and "line 5" in joined
    assert len(errs) == 4


def test_field_count_and_unclosed_quote(tmp_path):
    files = dict(GOOD)
    files["references.tsv"] += "es-en\t2\tB\tone\textra\n"
    errs = errors_of(write(tmp_path / "d", files))
    assert any("references.tsv, line 5" in e and "5 fields but the header has 4" in e for e in errs)


def test_encodings(tmp_path):
    files = dict(GOOD)
    files["outputs.tsv"] = ("lp\tsystem\tseg_id\ttext\nes-en\ts1\t1\tcaf\xe9 con leche\n").encode("cp1252")
    errs = errors_of(write(tmp_path / "a", files))
    assert any("outputs.tsv, line 2" in e and "not valid UTF-8" in e and "Windows-1252" in e for e in errs)
    files["outputs.tsv"] = b"lp\tsystem\tseg_id\ttext\nes-en\ts1\t1\tok\x00\n"
    errs = errors_of(write(tmp_path / "b", files))
    assert any("outputs.tsv, line 2" in e and "NUL" in e for e in errs)
    files["outputs.tsv"] = "lp\tsystem\tseg_id\ttext\nes-en\ts1\t1\tok\n".encode("utf-16")
    errs = errors_of(write(tmp_path / "c", files))
    assert any("UTF-16" in e for e in errs)
    # BOM and CRLF are accepted
    files["outputs.tsv"] = b"\xef\xbb\xbf" + "lp\tsystem\tseg_id\ttext\r\nes-en\ts1\t1\tcaf\xe9\r\n".encode("utf-8")
    ds = load_dataset(write(tmp_path / "d", files))
    assert ds.sys_texts()["s1"][0] == "caf\xe9"


def test_several_language_pairs(tmp_path):
    files = {k: v + v.split("\n", 1)[1].replace("es-en", "fr-en") for k, v in GOOD.items()}
    folder = write(tmp_path / "d", files)
    coll = load_collection(folder)
    assert sorted(coll) == ["es-en", "fr-en"]
    with pytest.raises(ValueError, match="several language pairs"):
        load_dataset(folder)
    assert load_dataset(folder, lp="fr-en").lp == "fr-en"


def test_quoted_fields_with_tabs_and_newlines(tmp_path):
    files = dict(GOOD)
    files["outputs.tsv"] = 'lp\tsystem\tseg_id\ttext\nes-en\ts1\t1\t"a\tb ""q"" \nnext"\nes-en\ts1\t2\tplain\n'
    files["judgements.tsv"] = "lp\tsystem\tseg_id\trater\tjudgement\tscore\nes-en\ts1\tX\tr\ta\t1\n"
    errs = errors_of(write(tmp_path / "d", files))
    # the quoted newline shifts physical lines: the bad judgement is on line 2 of its own file
    assert any("judgements.tsv, line 2" in e for e in errs)
    files["judgements.tsv"] = GOOD["judgements.tsv"]
    ds = load_dataset(write(tmp_path / "e", files))
    assert ds.sys_texts()["s1"][0] == 'a\tb "q" \nnext'


def test_zip_upload_and_guards(tmp_path):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, content in GOOD.items():
            zf.writestr(f"mydata/{name}", content)
    ds = load_dataset(FileSource.from_uploads({"mydata.zip": buf.getvalue()}))
    assert ds.n_segments == 2 and ds.systems == ["s1"]
    evil = io.BytesIO()
    with zipfile.ZipFile(evil, "w") as zf:
        zf.writestr("../../etc/evil.tsv", "x")
    with pytest.raises(DataError, match="escapes"):
        FileSource.from_uploads({"evil.zip": evil.getvalue()})
    with pytest.raises(DataError, match="upload limit"):
        FileSource.from_uploads({"big.tsv": b"x" * 2000}, max_file_bytes=1000)
    with pytest.raises(DataError, match="not a valid zip"):
        FileSource.from_uploads({"broken.zip": b"PK\x03\x04garbage"})


def test_write_roundtrip_and_workspace_persistence(tmp_path, workspace_home):
    coll = load_collection(write(tmp_path / "d", GOOD))
    ds = coll["es-en"]
    out = write_tidy(ds, tmp_path / "out")
    again = load_dataset(out)
    assert again.content_hash() == ds.content_hash()
    name = workspace.save(coll, "my data/../x", source="test")
    assert "/" not in name and ".." not in name
    # a "restart": a new Python process lists and reloads it
    code = ("from evalcore.io import workspace; m = workspace.list_saved(); "
            "c = workspace.load_saved(m[0]['name']); print(m[0]['name'], c['es-en'].content_hash())")
    env = {"EVALCORE_HOME": str(workspace_home), "PATH": "/usr/bin:/bin"}
    res = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    assert res.stdout.split() == [name, ds.content_hash()]
    workspace.delete(name)
    assert workspace.list_saved() == []


def test_crash_mid_save_keeps_previous(tmp_path, workspace_home, monkeypatch):
    coll = load_collection(write(tmp_path / "d", GOOD))
    workspace.save(coll, "keep")
    before = workspace.load_saved("keep")["es-en"].content_hash()
    import evalcore.io.tidy as tidy

    def boom(*a, **k):
        raise OSError("disk full")
    monkeypatch.setattr(tidy, "_atomic_write_tsv", boom)
    with pytest.raises(OSError):
        workspace.save(coll, "keep")
    assert workspace.load_saved("keep")["es-en"].content_hash() == before
    assert [m["name"] for m in workspace.list_saved()] == ["keep"]  # no half-written entry listed


def test_cli_validate(tmp_path):
    good = write(tmp_path / "good", GOOD)
    res = subprocess.run([sys.executable, "-m", "evalcore", "validate", str(good)], cwd=ROOT,
                         capture_output=True, text=True)
    assert res.returncode == 0 and "valid" in res.stdout and "segments: 2" in res.stdout
    files = dict(GOOD)
    files["judgements.tsv"] += "es-en\ts1\t7\tr1\tadequacy\tbad\n"
    bad = write(tmp_path / "bad", files)
    res = subprocess.run([sys.executable, "-m", "evalcore", "validate", str(bad)], cwd=ROOT,
                         capture_output=True, text=True)
    assert res.returncode == 2 and "Traceback" not in res.stderr
    assert "judgements.tsv" in res.stderr and "'7'" in res.stderr


@pytest.mark.parametrize("name,lps", [("wmt21_news_mqm", ["en-de", "zh-en"]), ("wmt21_ted_mqm", ["en-de", "zh-en"]),
                                      ("wmt20_mqm_scores", ["en-de", "zh-en"]), ("mlqe_pe_subset", ["en-de", "et-en"])])
def test_shared_datasets_load(name, lps):
    coll = load_collection(shared(name))
    assert sorted(coll) == lps
    for lp, ds in coll.items():
        raw = pd.read_csv(shared(name) / "judgements.tsv", sep="\t", keep_default_na=False)
        assert len(ds.judgements) == (raw["lp"] == lp).sum()
    if name == "wmt21_news_mqm":
        ende = coll["en-de"]
        assert ende.ref_ids == ["ref-A", "ref-C", "ref-D"] and len(ende.systems) == 8
        assert any("ref-B" in str(w) for w in ende.warnings)  # judged, no text
    if name == "wmt20_mqm_scores":
        assert coll["en-de"].systems == [] and len(coll["en-de"].judged) == 10


def test_parses_kept_with_a_saved_dataset(tmp_path, workspace_home):
    """Uploaded CoNLL-U parses are stored beside a saved dataset (per language pair)
    and given back after a restart; other datasets and pairs do not see them."""
    coll = load_collection(write(tmp_path / "d", GOOD))
    name = workspace.save(coll, "with-parses")
    conllu = b"# sent_id = s1:1\n1\tHello\thello\tINTJ\tUH\t_\t0\troot\t_\t_\n2\tworld\tworld\tNOUN\tNN\t_\t1\tvocative\t_\t_\n\n"
    workspace.save_parses(name, "es-en", "mine.conllu", conllu)
    assert workspace.saved_parses(name, "es-en") == [(conllu, "mine.conllu")]
    assert workspace.saved_parses(name, "fr-en") == []
    with pytest.raises(FileNotFoundError):
        workspace.save_parses("not-saved", "es-en", "x.conllu", conllu)
    from evalcore.syntax import register_conllu

    report = register_conllu(coll["es-en"], workspace.saved_parses(name, "es-en"))
    assert report.ok


def _storage_size(series: pd.Series) -> int:
    """Elements of the array a column's values really live in (following numpy's .base)."""
    a = series.to_numpy()
    while getattr(a, "base", None) is not None and isinstance(a.base, type(a)):
        a = a.base
    return a.size


def test_loaded_texts_are_compacted_and_unchanged(tmp_path):
    """The loader re-creates the text strings together (Dataset.compact_texts): the values and
    their order are those of the files (read here with the csv module), the dtype stays object,
    and each text column owns its array instead of viewing the parse's block of every column
    (which kept the lp / system / seg_id strings of every row alive)."""
    import csv

    files = {k: v + v.split("\n", 1)[1].replace("es-en", "fr-en") for k, v in GOOD.items()}
    folder = write(tmp_path / "d", files)
    coll = load_collection(folder)
    for kind, key in (("outputs", "system"), ("references", "ref_id")):
        with open(folder / f"{kind}.tsv", newline="", encoding="utf-8") as fh:
            rows = list(csv.DictReader(fh, delimiter="\t"))
        for lp, ds in coll.items():
            frame = getattr(ds, kind)
            want = [(r[key], r["seg_id"], r["text"]) for r in rows if r["lp"] == lp]
            assert list(zip(frame[key], frame["seg_id"], frame["text"])) == want
            assert frame["text"].dtype == object
            assert _storage_size(frame["text"]) == len(frame)
    ds = coll["es-en"]
    before = ds.content_hash()
    texts = ds.outputs["text"].tolist()
    ds._cache.clear()
    assert ds.compact_texts() is ds
    assert ds.outputs["text"].tolist() == texts and ds.content_hash() == before
    assert ds.sys_texts()["s1"] == ["Hello world", ""]


def test_compact_texts_leaves_missing_texts_alone():
    from evalcore.core.dataset import Dataset

    segs = pd.DataFrame({"seg_id": ["1", "2"], "doc_id": ["", ""], "source": ["a", "b"]})
    outs = pd.DataFrame({"system": ["s", "s"], "seg_id": ["1", "2"], "text": pd.Series(["x", None], dtype=object)})
    ds = Dataset(name="t", lp="", segments=segs, outputs=outs).compact_texts()
    assert ds.outputs["text"].tolist() == ["x", None]
