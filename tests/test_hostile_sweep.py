"""The traceback sweep: every case of the hostile corpus (tests/hostile/, the big cases written by
make_corpus.make_big and the import files) through every command of the CLI and every upload
path of the dashboard. A case may be refused or accepted; what may never happen is an exception
escaping as a traceback. Commands run in this process (``evalcore.cli.main``): an exception
that escapes fails the test by itself; an exit code other than 0, 1 (a failed distributed task)
and 2 (a data problem) fails it too, as does a 'Traceback' in the output.
"""
from __future__ import annotations

import contextlib
import io
import sys

import pytest

from conftest import ROOT

HOSTILE = ROOT / "tests" / "hostile"
sys.path.insert(0, str(HOSTILE))
import make_corpus  # noqa: E402

#: one invocation of every command, {p} the dataset, {o} an output path in a temporary folder
COMMANDS = {
    "validate": "{p}",
    "card": "{p} --metrics chrf,meteor --bootstrap 50 --out {o}.html",  # meteor: the aligned kernels
    "verify-card": "{o}.html {p}",  # the card written by `card` on the same case just before
    "detective": "{p}",
    "calibrate": "{p} --metrics chrf",
    "detect": "{p} --task error-free --metrics chrf",
    "plan": "{p}",
    "adaptive": "{p} --runs 2 --budget 0.5",
    "stability": "{p} --human da",
    "score": "{p} --metrics chrf --out {o}",
    "correlate": "{p} --human da --metrics chrf --out {o}",
    "compare": "{p} --a sysA --b sysB",
    "comprehension": "{p}",
    "experts": "{p} --gold r1 --metric ",
    "export-judgements": "{p} --out {o}",
    "export-mtme": "{p} --out {o}",
    "judges": "{p}",
    "learn": "{p} --kind humanlike",
    "metatask": "{p} --task wmt22 --metrics chrf",
    "qarla": "{p} --metrics chrf",
    "queen": "{p} --set chrf",
    "rank": "{p} --human da --metrics chrf",
    "references": "{p}",
    "search": "{p} --metrics chrf",
    "spans": "{p}",
}


def test_every_command_is_swept():
    from evalcore.cli import build_parser

    sub = next(a for a in build_parser()._actions if a.dest == "command")
    assert set(sub.choices) - {"import-judgements"} == set(COMMANDS)  # import-judgements: its own sweep


#: commands that need data the corpus does not have (reading-comprehension answers, error spans,
#: a WMT meta-evaluation folder, 5+ systems or 10+ judged segments): a clean refusal is their right
#: answer on every case
NEEDS_OTHER_DATA = {"comprehension", "spans", "metatask", "calibrate", "detect", "plan", "adaptive"}


def _rich(files: dict) -> dict:
    """A case with what the QARLA, reference and expert commands need: a second reference set
    (refB: the refA texts with their first word repeated) and a second rater (r2)."""
    out = dict(files)
    ref = out["references.tsv"]
    out["references.tsv"] = ref + "".join(f"es-en\t{i}\trefB\t{w.split()[0]} {w}\n"
                                          for i, w in zip(make_corpus.SEGS, make_corpus.WORDS))
    jud = out["judgements.tsv"]
    out["judgements.tsv"] = jud + "".join(ln.replace("\tr1\t", "\tr2\t") + "\n"
                                          for ln in jud.splitlines()[1:])
    return out


@pytest.fixture(scope="module")
def cases(tmp_path_factory):
    small = {name: HOSTILE / name for name in make_corpus.small_cases()}
    root = tmp_path_factory.mktemp("sweep_big")
    big = make_corpus.make_big(root)
    rich = {}
    for name in ("clean", "cyrillic_lookalike", "mqm_critical"):  # accepted cases, made rich
        rich[f"rich_{name}"] = root / f"rich_{name}"
        make_corpus._write(rich[f"rich_{name}"], _rich(make_corpus.small_cases()[name]))
    return {**small, **rich, **{k: v for k, v in big.items() if k not in ("wide_header", "long_field")}}


def run(argv):
    from evalcore.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in argv])
    return code, out.getvalue() + err.getvalue()


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_no_case_ends_in_a_traceback(command, cases, tmp_path):
    failures = []
    for name, path in cases.items():
        if path.suffix == ".json":
            continue  # not a dataset: the import sweep below
        out = tmp_path / f"{command}-{name}"
        if command == "verify-card":  # a card of this case to verify (none when card refuses the case)
            run(["card", path, "--metrics", "chrf", "--bootstrap", "50", "--out", f"{out}.html"])
        argv = [command] + [a.format(p=path, o=out) for a in COMMANDS[command].split(" ")]
        argv = [a for a in argv if a != ""] + ([""] if COMMANDS[command].endswith(" ") else [])
        try:
            code, text = run(argv)
        except SystemExit as exc:  # argparse
            code, text = exc.code, ""
        if code not in (0, 1, 2) or "Traceback" in text:
            failures.append(f"{name}: exit {code}: {text[-500:]}")
        if name == "rich_clean" and code != 0 and command not in NEEDS_OTHER_DATA:
            failures.append(f"{name}: the invocation itself fails (exit {code}), so the sweep tests nothing: "
                            f"{text[-500:]}")
    assert not failures, "\n".join(failures)


IMPORTS = HOSTILE / "imports"


def test_every_import_file_ends_cleanly(cases):
    specs = [f"comet-json:{f}" for f in sorted(IMPORTS.glob("*.json"))] + \
            [f"metricx-jsonl:{f}" for f in sorted(IMPORTS.glob("*.jsonl"))] + \
            [f"pymarian-tsv:{IMPORTS / 'pymarian_5e9.txt'}={IMPORTS / 'pymarian_input.tsv'}",
             f"comet-json:{cases['deeply_nested.json']}", f"metricx-jsonl:{cases['deeply_nested.json']}"]
    for spec in specs:
        code, text = run(["score", HOSTILE / "clean", "--metrics", "ext", "--import-scores", spec + "@ext"])
        assert code in (0, 2) and "Traceback" not in text, (spec, text[-800:])
    from evalcore.metrics.byo import unregister_external

    unregister_external()


def _platform_files(cases):
    """Hostile platform exports (name, bytes): Appraise and Pearmut, and every import file and
    dataset file read as one."""
    files = [("deep.jsonl", cases["deeply_nested.json"].read_bytes()),
             ("deep.csv", b"u,s,1,TGT,eng,ces,50,d,False,\"" + b"[" * 5000 + b"\",1,2\n"),
             ("big_field.csv", b"u,s,1,TGT,eng,ces,50," + b"x" * 1_100_000 + b",False,1,2\n"),
             ("empty.jsonl", b"\n"), ("empty.csv", b"")]
    for f in sorted(IMPORTS.iterdir()):
        files.append((f.stem + ".jsonl", f.read_bytes()))
        files.append((f.stem + ".csv", f.read_bytes()))
    return files


def test_import_judgements_sweep(cases, tmp_path):
    from evalcore.io.judgement_io import FORMATS

    for name, data in _platform_files(cases):
        f = tmp_path / name
        f.write_bytes(data)
        for fmt in FORMATS:
            code, text = run(["import-judgements", f, "--format", fmt, "--out", tmp_path / "j.tsv"])
            assert code in (0, 2) and "Traceback" not in text, (name, fmt, text[-800:])


def _files_of(path):
    if path.is_file():
        return {path.name: path.read_bytes()}
    return {str(p.relative_to(path)): p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file()}


def test_every_upload_path(cases):
    """The Data page's two upload paths: a dataset (files or a zip, with an Appraise/Pearmut export
    among them) and CoNLL-U parses. Only the errors the page shows as a report or a message may
    come out (DataError, ValueError, OSError): anything else would be the page's 'Import failed'
    with a traceback folded away."""
    from evalcore.core.problems import DataError
    from evalcore.io import FileSource, load_collection, load_dataset
    from evalcore.io.judgement_io import with_platform_judgements
    from evalcore.syntax import register_conllu

    clean = _files_of(HOSTILE / "clean")
    uploads = {name: _files_of(path) for name, path in cases.items()}
    for name, data in _platform_files(cases):  # an export uploaded with the tidy files
        uploads[f"with {name}"] = {**{k: v for k, v in clean.items() if k != "judgements.tsv"}, name: data}
    for name, files in uploads.items():
        try:
            src = FileSource.from_uploads(files)
            src, _ = with_platform_judgements(src)
            load_collection(src)
        except (DataError, ValueError, OSError):
            pass
    ds = load_dataset(HOSTILE / "clean")
    for name, files in uploads.items():
        for fname, data in files.items():
            try:
                register_conllu(ds, [(data, fname)])
            except (DataError, ValueError, OSError):
                pass
