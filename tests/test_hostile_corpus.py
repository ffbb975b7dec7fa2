"""The hostile corpus (tests/hostile/, written by tests/hostile/make_corpus.py; the big cases are
generated here at test time): each case runs through the CLI in a child process
(``python -m evalcore ...``) with its expected outcome: a clean error naming file and line
(exit 2, no traceback), a warning, or accepted with the same numbers as the clean case.

The workspace cases are real processes too: a save killed between writing and renaming, a
file planted into a saved dataset, a disk that fills up (a small tmpfs, mounted where the
machine allows; skipped with the reason otherwise).
"""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import ROOT

HOSTILE = ROOT / "tests" / "hostile"
sys.path.insert(0, str(HOSTILE))
import make_corpus  # noqa: E402

CHILD_ENV = {"OPENBLAS_NUM_THREADS": "1", "PYTHONHASHSEED": "0"}


def cli(*args, home=None, timeout=300):
    env = dict(os.environ, **CHILD_ENV)
    if home is not None:
        env.update(EVALCORE_HOME=str(home), EVALCORE_CACHE=str(Path(home) / "cache"))
    return subprocess.run([sys.executable, "-m", "evalcore", *map(str, args)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=timeout)


def py(code: str, home, timeout=300):
    env = dict(os.environ, EVALCORE_HOME=str(home), EVALCORE_CACHE=str(Path(home) / "cache"), **CHILD_ENV)
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    return make_corpus.make_big(tmp_path_factory.mktemp("hostile_big"))


def case_path(name, big):
    return big[name] if name in big else HOSTILE / name


def test_committed_corpus_is_what_the_script_writes():
    for name, files in make_corpus.small_cases().items():
        for fname, content in files.items():
            want = content if isinstance(content, bytes) else content.encode("utf-8")
            assert (HOSTILE / name / fname).read_bytes() == want, f"{name}/{fname}: rerun make_corpus.py"


# (case, command, expected exit code, texts the output must hold)
ERRORS = [
    ("runaway_quote", "validate", ["outputs.tsv, line 4:", "never closed"]),
    ("newline_in_system_name", "validate", ["outputs.tsv, line 7:", "control character", "'sys\\nB'"]),
    ("ragged_system_scores", "validate", ["system_scores.tsv, line 2:", "has 3 fields but the header has 4"]),
    ("empty_system_scores", "validate", ["system_scores.tsv:", "file is empty"]),
    ("score_1e300", "validate", ["judgements.tsv, line 7:", "'1e300'", "±1e+09"]),
    ("mtme_sys_1e300", "validate", ["human-scores/es-en.da.sys.score, line 2:", "'1e300'", "±1e+09"]),
    ("utf16_outputs", "validate", ["outputs.tsv:", "UTF-16"]),
    ("wide_header", "validate", ["segments.tsv, line 1:", "duplicate column name(s) c17"]),
    ("long_field", "validate", ["outputs.tsv, line 2:", "longer than 1,000,000 characters",
                                "outputs.tsv, line 5:", "has 5 fields"]),
    ("zip_same_name", "validate", ["members 'outputs.tsv' and 'outputs.tsv' have the same name"]),
    ("zip_case_clash", "validate", ["members 'outputs.tsv' and 'OUTPUTS.TSV' have the same name"]),
]


@pytest.mark.parametrize("case, command, expected", ERRORS, ids=[c[0] for c in ERRORS])
def test_refused_with_file_and_line(case, command, expected, big):
    r = cli(command, case_path(case, big))
    out = r.stdout + r.stderr
    assert r.returncode == 2, out[-2000:]
    assert "Traceback" not in out
    for text in expected:
        assert text in out, (text, out[-2000:])


WARNED = [
    ("cyrillic_lookalike", ["WARNING: outputs.tsv, line 7: system names 'sysA', 'sys\\u0410', 'sysA\\u200d' "
                            "look the same"]),
    ("mqm_critical", ["WARNING: mqm_annotations.tsv, line 3: severity 'Critical' (line 3) has no MQM weight"]),
    ("field_200k", ["valid"]),
]


@pytest.mark.parametrize("case, expected", WARNED, ids=[c[0] for c in WARNED])
def test_accepted_with_a_warning(case, expected, big):
    r = cli("validate", case_path(case, big))
    assert r.returncode == 0, r.stderr[-2000:]
    for text in expected:
        assert text in r.stdout + r.stderr


def _table(stdout: str) -> list[str]:
    return [ln for ln in stdout.splitlines() if ln.startswith("es-en\t")]


def test_bom_and_crlf_give_the_same_numbers():
    clean = cli("correlate", HOSTILE / "clean", "--human", "da", "--metrics", "bleu,chrf")
    other = cli("correlate", HOSTILE / "crlf_bom", "--human", "da", "--metrics", "bleu,chrf")
    assert clean.returncode == other.returncode == 0, other.stderr
    assert len(_table(clean.stdout)) == 2 and _table(clean.stdout) == _table(other.stdout)


def test_scores_with_unknown_segments_reported():
    some = cli("correlate", HOSTILE / "clean", "--human", "da", "--scores", HOSTILE / "scores" / "scores_some_unknown.tsv")
    assert some.returncode == 0, some.stderr
    assert "scores_some_unknown.tsv, line 22: 1 score row(s) name segment id(s) not in the dataset" in some.stderr
    # the other rows are used: system means 0.93-0.1k against da 93-15k: Pearson 1 (exact linear map)
    (row,) = _table(some.stdout)
    assert row.split("\t")[4] == "1.000000"
    none = cli("correlate", HOSTILE / "clean", "--human", "da", "--scores", HOSTILE / "scores" / "scores_all_unknown.tsv")
    assert none.returncode == 2 and "Traceback" not in none.stderr
    assert "scores_all_unknown.tsv, line 2: 20 score row(s)" in none.stderr and "'seg-1'" in none.stderr


# ---------------------------------------------------------------------- workspace, real processes
SAVE = """
from evalcore.io import workspace
from evalcore.io import load_collection
coll = load_collection({src!r})
print(workspace.save(coll, {name!r}, replace=True))
"""


def test_killed_save_leaves_the_old_dataset(tmp_path):
    home = tmp_path / "home"
    r = py(SAVE.format(src=str(HOSTILE / "clean"), name="kept"), home)
    assert r.returncode == 0, r.stderr
    before = py("from evalcore.io import workspace; print(workspace.load_saved('kept')['es-en'].content_hash())", home)
    # the process dies after writing the new files, before they replace the old ones
    kill = py(f"""
        import os
        from evalcore.io import workspace
        from evalcore.io import load_collection
        workspace._verify_round_trip = lambda *a: os._exit(9)
        workspace.save(load_collection({str(HOSTILE / 'cyrillic_lookalike')!r}), 'kept', replace=True)
        """, home)
    assert kill.returncode == 9
    after = py("from evalcore.io import workspace; print([m['name'] for m in workspace.list_saved()]); "
               "print(workspace.load_saved('kept')['es-en'].content_hash())", home)
    assert after.returncode == 0, after.stderr
    assert after.stdout.splitlines() == ["['kept']", before.stdout.strip()]
    assert not [p.name for p in (home / "datasets").iterdir() if p.name.startswith(".") and p.name != ".locks"]


def test_planted_file_refused_in_another_process(tmp_path):
    home = tmp_path / "home"
    assert py(SAVE.format(src=str(HOSTILE / "clean"), name="tamper"), home).returncode == 0
    (home / "datasets" / "tamper" / "tags.tsv").write_text("lp\tsystem\tseg_id\ttag\nes-en\tsysA\t1\tidiom\n",
                                                           encoding="utf-8")
    r = py("""
        from evalcore.io import workspace
        from evalcore.core.problems import DataError
        print([m.get('broken', False) for m in workspace.list_saved()])
        try:
            workspace.load_saved('tamper')
        except DataError as exc:
            print(exc.report.errors[0])
        """, home)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "[True]" and lines[1].startswith("ERROR: tags.tsv: is in the saved dataset 'tamper' but not in")


@pytest.fixture
def small_disk(tmp_path):
    """A 2 MiB tmpfs (root only); skipped with the reason where it cannot be mounted."""
    mnt = tmp_path / "tmpfs"
    mnt.mkdir()
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(mnt)], capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here ({(r.stderr or r.stdout).strip() or r.returncode})")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], capture_output=True)


def fill(folder: Path) -> None:
    fd = os.open(folder / "filler", os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        while True:
            os.write(fd, b"\0" * 4096)
    except OSError:
        pass
    finally:
        os.close(fd)


def test_disk_full_during_score_out(small_disk):
    target = small_disk / "scores.tsv"
    fill(small_disk)
    r = cli("score", HOSTILE / "clean", "--metrics", "chrf", "--level", "segment", "--out", target)
    assert r.returncode == 2, r.stderr[-2000:]
    assert "Traceback" not in r.stderr and "No space left on device" in r.stderr
    assert f"nothing was written to {target}" in r.stderr
    assert sorted(p.name for p in small_disk.iterdir()) == ["filler"]  # no partial file, no temporary


def test_disk_full_during_save_keeps_the_old_dataset(small_disk):
    home = small_disk / "home"
    assert py(SAVE.format(src=str(HOSTILE / "clean"), name="full"), home).returncode == 0
    before = py("from evalcore.io import workspace; print(workspace.load_saved('full')['es-en'].content_hash())", home)
    fill(small_disk)
    r = py(SAVE.format(src=str(HOSTILE / "cyrillic_lookalike"), name="full"), home)
    assert r.returncode != 0 and "No space left on device" in r.stderr
    (small_disk / "filler").unlink()
    after = py("from evalcore.io import workspace; print(workspace.load_saved('full')['es-en'].content_hash())", home)
    assert after.stdout == before.stdout and after.returncode == 0
    assert not [p.name for p in (home / "datasets").iterdir() if p.name.startswith(".") and p.name != ".locks"]
