"""The hostile corpus: writes the small case folders of tests/hostile/ (committed) and, at test
time, the big ones (:func:`make_big`) into a temporary folder.

Run ``python tests/hostile/make_corpus.py`` to rewrite the small files after changing a case.
Every case is a tidy TSV folder (or a file) derived from one clean base: 4 systems, 5 segments,
one reference set, segment-level ``da`` judgements; :data:`tests.test_hostile_corpus.CASES`
says what the CLI must do with each.
"""
from __future__ import annotations

import shutil
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
SYSTEMS = ["sysA", "sysB", "sysC", "sysD"]
SEGS = [1, 2, 3, 4, 5]
WORDS = ["the cat sat on the mat", "a dog ran in the park", "rain falls on the hills",
         "she reads a long book", "we walk to the old town"]
# each system drops one more word than the previous: a clear quality order
QUALITY = {s: k for k, s in enumerate(SYSTEMS)}


def _out_text(system: str, i: int) -> str:
    words = WORDS[i - 1].split()
    return " ".join(words[: max(1, len(words) - QUALITY[system])])


def base_files(systems=SYSTEMS) -> dict[str, str]:
    seg = "lp\tseg_id\tsource\n" + "".join(f"es-en\t{i}\tfuente {i}\n" for i in SEGS)
    ref = "lp\tseg_id\tref_id\ttext\n" + "".join(f"es-en\t{i}\trefA\t{WORDS[i - 1]}\n" for i in SEGS)
    out = "lp\tsystem\tseg_id\ttext\n" + "".join(
        f"es-en\t{s}\t{i}\t{_out_text(s, i)}\n" for s in systems for i in SEGS)
    jud = "lp\tsystem\tseg_id\trater\tjudgement\tscore\n" + "".join(
        f"es-en\t{s}\t{i}\tr1\tda\t{90 - 15 * QUALITY[s] + i}\n" for s in systems for i in SEGS)
    return {"segments.tsv": seg, "references.tsv": ref, "outputs.tsv": out, "judgements.tsv": jud}


def _write(folder: Path, files: dict[str, str | bytes]) -> None:
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    for name, content in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))


def small_cases() -> dict[str, dict[str, str | bytes]]:
    b = base_files()
    cases = {"clean": b}
    # the same data with a byte-order mark and CRLF line ends: the same numbers
    cases["crlf_bom"] = {k: b"\xef\xbb\xbf" + v.replace("\n", "\r\n").encode() for k, v in b.items()}
    # an unquoted text that begins with a quotation mark and never closes (outputs.tsv line 4)
    cases["runaway_quote"] = {**b, "outputs.tsv": b["outputs.tsv"].replace("\tcat sat", "\t\"cat sat", 1)
                              .replace("es-en\tsysA\t3\train falls on the hills", "es-en\tsysA\t3\t\"rain falls")}
    # a system name with a line break (quoted, system column last): refused at input
    bad_name = '"sys' + chr(10) + 'B"'
    out = "lp\tseg_id\ttext\tsystem\n" + "".join(
        f"es-en\t{i}\t{_out_text(s, i)}\t{bad_name if s == 'sysB' else s}\n" for s in SYSTEMS for i in SEGS)
    cases["newline_in_system_name"] = {**b, "outputs.tsv": out,
                                       "judgements.tsv": base_files(["sysA", "sysC", "sysD"])["judgements.tsv"]}
    # look-alike names: Cyrillic A, a zero-width joiner
    lookalike = {k: v.replace("sysB", "sys\u0410") for k, v in b.items()}
    cases["cyrillic_lookalike"] = {**lookalike, "outputs.tsv": lookalike["outputs.tsv"] + "".join(
        f"es-en\tsysA\u200d\t{i}\t{_out_text('sysA', i)}\n" for i in SEGS)}
    # an MQM severity the weights do not define
    cases["mqm_critical"] = {**b, "mqm_annotations.tsv": (
        "lp\tsystem\tseg_id\trater\tcategory\tseverity\n"
        "es-en\tsysA\t1\tr1\tAccuracy/Mistranslation\tMajor\n"
        "es-en\tsysB\t2\tr1\tAccuracy/Omission\tCritical\n")}
    # system-level scores: ragged, empty
    cases["ragged_system_scores"] = {**b, "system_scores.tsv": "lp\tsystem\tjudgement\tscore\nes-en\tsysA\tda\n"}
    cases["empty_system_scores"] = {**b, "system_scores.tsv": ""}
    # an absurd score in a tidy file (line 7) and in an mt-metrics-eval sys.score (line 2)
    cases["score_1e300"] = {**b, "judgements.tsv": b["judgements.tsv"].replace("\tda\t76\n", "\tda\t1e300\n", 1)}
    mtme = {"sources/es-en.txt": "".join(f"fuente {i}\n" for i in SEGS),
            "references/es-en.refA.txt": "".join(w + "\n" for w in WORDS),
            "human-scores/es-en.da.sys.score": "sysA\t0.5\nsysB\t1e300\nsysC\t0.1\n"}
    for s in SYSTEMS[:3]:
        mtme[f"system-outputs/es-en/{s}.txt"] = "".join(_out_text(s, i) + "\n" for i in SEGS)
    cases["mtme_sys_1e300"] = mtme
    # control characters in system names of mt-metrics-eval score files: a sys.score (SOH, line 2),
    # a seg.score (a terminal escape, lines 11-15) and a metric score file (DEL, line 1)
    seg = "".join(f"{s if s != 'sysC' else 'sys' + chr(27) + 'C'}\t{0.1 * i}\n" for s in SYSTEMS[:3] for i in SEGS)
    cases["mtme_control_names"] = {
        **{k: v for k, v in mtme.items() if not k.startswith("human-scores/")},
        "human-scores/es-en.da.sys.score": "sysA\t0.5\nsys" + chr(1) + "B\t0.3\nsysC\t0.1\n",
        "human-scores/es-en.da.seg.score": seg,
        "metric-scores/es-en/BLEU-refA.sys.score": "sys" + chr(127) + "A\t30.0\nsysB\t20.0\nsysC\t10.0\n"}
    # WMT's annotation-per-line ESA JSONL: a good line, a cut-off line (2), an inverted span (3)
    good = ('{"langs": "es-en", "line_id": 1, "src": "fuente 1", "tgt": "the cat sat", "system": "sysA", '
            '"annotator": "r1", "esa_score": "80", "esa_spans": [{"start_i": 4, "end_i": 7, "severity": "minor"}]}')
    cases["jsonl_bad_spans"] = {"esa.jsonl": good + "\n" + good[:50] + "\n"
                                + good.replace('"start_i": 4, "end_i": 7', '"start_i": 9, "end_i": 2') + "\n"}
    # a UTF-16 file
    cases["utf16_outputs"] = {**b, "outputs.tsv": b["outputs.tsv"].encode("utf-16")}
    # stored metric scores (mt-metrics-eval metric-scores/): a system listed twice (line 3, was
    # averaged), a system the data does not have (sysZ, line 4, was dropped)
    mtme_ok = {k: v for k, v in mtme.items() if not k.startswith("human-scores/")}
    mtme_ok["human-scores/es-en.da.sys.score"] = "sysA\t0.5\nsysB\t0.3\nsysC\t0.1\n"
    cases["mtme_metric_twice"] = {**mtme_ok, "metric-scores/es-en/BLEU-refA.sys.score":
                                  "sysA\t30.0\nsysB\t20.0\nsysA\t10.0\nsysC\t15.0\n"}
    cases["mtme_metric_unknown"] = {**mtme_ok, "metric-scores/es-en/BLEU-refA.sys.score":
                                    "sysA\t30.0\nsysB\t20.0\nsysC\t15.0\nsysZ\t99.0\n"}
    cases["mtme_human_unknown"] = {**mtme_ok, "human-scores/es-en.da.sys.score":
                                   "sysA\t0.5\nsysQ\t0.9\nsysB\t0.3\nsysC\t0.1\n"}
    # a folder whose outputs.tsv starts with a secret (a password-file line): never echoed
    cases["secret_header"] = {**b, "outputs.tsv": "root:$6$S3CRETHASH:19000:0:99999:7:::\nsecond line\n"}
    return cases


def _comet_entries(systems=SYSTEMS, score=lambda s, i: 0.9 - 0.1 * QUALITY[s] + 0.01 * i):
    return {f"{s}.txt": [{"src": f"fuente {i}", "mt": _out_text(s, i), "ref": WORDS[i - 1], "COMET": score(s, i)}
                         for i in SEGS] for s in systems}


def import_files() -> dict[str, str]:
    """Score files computed elsewhere for the clean case (``score --import-scores``), each with
    one hostile detail; :data:`tests.test_hostile_sources.IMPORTS` says what must happen."""
    import json

    files: dict[str, str] = {}
    good = _comet_entries()
    files["comet_ok.json"] = json.dumps(good, indent=2)
    huge = _comet_entries()
    huge["sysB.txt"][2]["COMET"] = 1e308  # entry 3 of sysB: line 42 pretty-printed
    files["comet_1e308.json"] = json.dumps(huge, indent=2)
    # one line, one row whose texts match nothing (was IndexError)
    one = _comet_entries()
    one["sysA.txt"].append({"src": "fuente 9", "mt": "nothing like it", "ref": "", "COMET": 0.5})
    files["comet_one_line_unmatched.json"] = json.dumps(one)
    # a key given twice: a file key at the top, and "COMET" inside an entry (last wins, silently)
    text = json.dumps(good, indent=2)
    files["comet_file_key_twice.json"] = text[:-2] + ",\n" + text[2:]
    files["comet_score_key_twice.json"] = text.replace('"COMET": 0.9', '"COMET": 0.1, "COMET": 0.9', 1)
    # a 400-digit integer score (was OverflowError); nesting 100,000 deep: make_big
    files["comet_400_digits.json"] = text.replace('"COMET": 0.9', '"COMET": 1' + "0" * 399, 1)
    lines = [json.dumps({"source": f"fuente {i}", "hypothesis": _out_text(s, i), "reference": WORDS[i - 1],
                         "prediction": 5.0 + QUALITY[s] + 0.1 * i}) for s in SYSTEMS for i in SEGS]
    lines[6] = lines[6].replace('"prediction": 6.2', '"prediction": 1e308')  # line 7
    files["metricx_1e308.jsonl"] = "\n".join(lines) + "\n"
    pm_in = [f"fuente {i}\t{_out_text(s, i)}\t{WORDS[i - 1]}" for s in SYSTEMS for i in SEGS]
    pm = [f"{0.9 - 0.1 * QUALITY[s] + 0.01 * i:.2f}" for s in SYSTEMS for i in SEGS]
    pm[3] = "5e9"  # line 4
    files["pymarian_input.tsv"] = "\n".join(pm_in) + "\n"
    files["pymarian_5e9.txt"] = "\n".join(pm) + "\n"
    return files


def _csv(rows) -> str:
    import csv
    import io

    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    return buf.getvalue()


def platform_files() -> dict[str, str]:
    """Annotation-platform exports that import-judgements used to turn into judgements.tsv files its
    own loader refused; :data:`tests.test_hostile_sources.PLATFORM` says what must happen."""
    import json

    def appraise(user="alice", system="sysA", item="1", start="1700000000", end="1700000009"):
        return [user, system, item, "TGT", "eng", "ces", "70", "doc1", "False", start, end]

    def pearmut(user="u1", model="sysA", item="1", score=50):
        return json.dumps({"user_id": user, "item_i": 0, "item": [{"item_id": item, "tgt": {model: "x"}}],
                           "annotation": [{model: {"score": score, "error_spans": []}}]})

    return {
        "appraise_control_names.csv": _csv([appraise(), appraise(user="bob\x1b[2J"), appraise(system="sys\x01B"),
                                            appraise(item="x\u2028y")]),
        "appraise_bad_times.csv": _csv([appraise(), appraise(start="nan"), appraise(end="1e308"),
                                        appraise(start="-5")]),
        "pearmut_tab_in_model.jsonl": pearmut(model="sys\tA") + "\n",
        "pearmut_nul_in_user.jsonl": pearmut(user="u\x00") + "\n",
        "pearmut_empty.jsonl": "\n\n",
        "pearmut_400_digits.jsonl": pearmut(score=10 ** 400) + "\n",
    }


#: --scores files used with the clean case (correlate)
SCORES = {
    "scores_some_unknown.tsv": "metric\tsystem\tseg_id\tscore\n" + "".join(
        f"ext\t{s}\t{i}\t{0.9 - 0.1 * QUALITY[s] + 0.01 * i}\n" for s in SYSTEMS for i in SEGS)
        + "ext\tsysA\t99\t0.5\n",
    "scores_all_unknown.tsv": "metric\tsystem\tseg_id\tscore\n" + "".join(
        f"ext\t{s}\tseg-{i}\t{0.9 - 0.1 * QUALITY[s]}\n" for s in SYSTEMS for i in SEGS),
}


def write_small() -> None:
    for name, files in small_cases().items():
        _write(HERE / name, files)
    _write(HERE / "scores", SCORES)
    _write(HERE / "imports", import_files())
    _write(HERE / "platform", platform_files())


def make_big(root: Path) -> dict[str, Path]:
    """The cases too big to commit, written under ``root``; returns case -> path."""
    b = base_files()
    out = {}
    # a header of 100,003 columns with one name twice (was quadratic: 331 s)
    wide = root / "wide_header"
    cols = "\t".join(f"c{k}" for k in range(99_999))  # + lp, seg_id, source and c17 again: 100,003
    _write(wide, {**b, "segments.tsv": f"lp\tseg_id\tsource\t{cols}\tc17\n"
                  + "".join(f"es-en\t{i}\tfuente {i}" + "\t" * 100_000 + "\n" for i in SEGS)})
    out["wide_header"] = wide
    # a text of 1,000,001 characters on line 2, and a ragged line 5 after it: both reported
    long_ = root / "long_field"
    lines = b["outputs.tsv"].split("\n")
    lines[1] = "es-en\tsysA\t1\t" + "x" * 1_000_001
    lines[4] = lines[4] + "\tstray"
    _write(long_, {**b, "outputs.tsv": "\n".join(lines)})
    out["long_field"] = long_
    # a text of 200,000 characters (over Python's csv default of 131,072): accepted
    ok = root / "field_200k"
    lines = b["outputs.tsv"].split("\n")
    lines[1] = "es-en\tsysA\t1\t" + "word " * 40_000
    _write(ok, {**b, "outputs.tsv": "\n".join(lines)})
    out["field_200k"] = ok
    # zips with two members of one name
    for case, second in (("zip_same_name", "outputs.tsv"), ("zip_case_clash", "OUTPUTS.TSV")):
        path = root / f"{case}.zip"
        import warnings

        with warnings.catch_warnings(), zipfile.ZipFile(path, "w") as zf:
            warnings.simplefilter("ignore")  # zipfile warns about the duplicate name: that is the case
            for name, text in b.items():
                zf.writestr(name, text)
            zf.writestr(second, b["outputs.tsv"].replace("cat", "dog"))
        out[case] = path
    # a zip whose outputs.tsv is a symbolic link to a file of the machine (was a header problem)
    link = root / "zip_symlink.zip"
    with zipfile.ZipFile(link, "w") as zf:
        for name, text in b.items():
            if name != "outputs.tsv":
                zf.writestr(name, text)
        info = zipfile.ZipInfo("outputs.tsv")
        info.external_attr = 0o120777 << 16  # S_IFLNK | rwxrwxrwx
        zf.writestr(info, "/etc/passwd")
    out["zip_symlink"] = link
    # JSON nested 100,000 levels deep (was RecursionError)
    deep = root / "deeply_nested.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    out["deeply_nested.json"] = deep
    return out


if __name__ == "__main__":
    write_small()
