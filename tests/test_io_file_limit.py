"""The per-file size limit (EVALCORE_MAX_FILE_MB): set for real campaigns, and a message that
names the setting when a file is over it."""
from __future__ import annotations

import math
import os
import subprocess
import sys

import pytest

from conftest import ROOT
from evalcore.core.problems import DataError
from evalcore.io import load_collection, source
from evalcore.io.synth import main as synth_main

def _folder(tmp_path, n_bytes: int):
    """A tidy folder whose outputs.tsv is exactly ``n_bytes`` long (rows of 1,000-character texts)."""
    head = b"lp\tsystem\tseg_id\ttext\n"
    rows, size, i = [], len(head), 0
    while size < n_bytes:
        i += 1
        prefix = f"en-de\tS\t{i}\t".encode()
        text = min(1000, n_bytes - size - len(prefix) - 1)
        rows.append(prefix + b"w" * max(text, 0) + b"\n")
        size += len(rows[-1])
    (tmp_path / "outputs.tsv").write_bytes(head + b"".join(rows))
    assert (tmp_path / "outputs.tsv").stat().st_size == n_bytes
    seg = "".join(f"en-de\t{k}\n" for k in range(1, i + 1))
    (tmp_path / "segments.tsv").write_text("lp\tseg_id\n" + seg, encoding="utf-8")
    return tmp_path


def test_a_file_over_the_limit_is_refused_naming_the_setting(tmp_path, monkeypatch):
    monkeypatch.setattr(source, "MAX_FILE_BYTES", 2 * 1024 * 1024)
    folder = _folder(tmp_path, 3 * 1024 * 1024 + 5)
    size = (folder / "outputs.tsv").stat().st_size
    with pytest.raises(DataError) as exc:
        load_collection(folder, journals=False)
    (p,) = exc.value.report.problems
    assert p.file == "outputs.tsv"
    assert f"{size:,} bytes" in p.message and f"{2 * 1024 * 1024:,} bytes (2 MB" in p.message
    assert f"EVALCORE_MAX_FILE_MB={math.ceil(size / 2**20)} or more" in p.message


def test_the_cli_exits_2_with_the_message(tmp_path, monkeypatch, capsys):
    from evalcore.cli import main

    monkeypatch.setattr(source, "MAX_FILE_BYTES", 1024 * 1024)
    folder = _folder(tmp_path, 1024 * 1024 + 1)
    assert main(["validate", str(folder)]) == 2
    err = capsys.readouterr().err
    assert "outputs.tsv" in err and "EVALCORE_MAX_FILE_MB=2 or more" in err


def test_a_file_under_the_limit_loads(tmp_path, monkeypatch):
    monkeypatch.setattr(source, "MAX_FILE_BYTES", 2 * 1024 * 1024)
    ds = load_collection(_folder(tmp_path, 1024 * 1024), journals=False)["en-de"]
    assert len(ds.outputs) == ds.n_segments > 1000


def test_the_default_admits_a_100k_campaign_of_long_segments(tmp_path):
    """The default (no EVALCORE_MAX_FILE_MB) is over the largest file of a 100k-segment ×
    10-system campaign of 50-word segments, estimated as 100 times that of 1,000 segments."""
    assert synth_main(["--segments", "1000", "--refs", "1", "--systems", "10", "--out", str(tmp_path),
                       "--no-judgements", "--mean-len", "50"]) == 0
    largest = max(f.stat().st_size for f in tmp_path.glob("*.tsv"))
    env = {k: v for k, v in os.environ.items() if k != "EVALCORE_MAX_FILE_MB"}
    out = subprocess.run([sys.executable, "-c", "from evalcore.io import source; print(source.MAX_FILE_BYTES)"],
                         cwd=ROOT, env=env, capture_output=True, text=True, check=True).stdout
    default = int(out)
    assert default > 100 * largest * 1.5  # with room to spare
    assert 100 * largest > 200 * 1024 * 1024  # (the former default of 200 MB refused it)


@pytest.mark.parametrize("raw, want_mb, warns", [("64", 64, False), ("", 1024, False), ("abc", 1024, True),
                                                 ("-5", 1024, True), ("1.5", 1024, True)])
def test_file_limit_setting_that_is_not_a_number_warns_and_uses_the_default(monkeypatch, raw, want_mb, warns):
    import warnings

    from evalcore.io.source import megabytes_setting

    monkeypatch.setenv("EVALCORE_MAX_FILE_MB", raw)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert megabytes_setting("EVALCORE_MAX_FILE_MB", 1024) == want_mb * 1024 * 1024
    msgs = [str(w.message) for w in caught]
    assert bool(msgs) == warns
    if warns:
        assert f"EVALCORE_MAX_FILE_MB={raw!r}" in msgs[0] and "default 1024 MB" in msgs[0]
