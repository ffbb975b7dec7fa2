"""Loading a tidy campaign (`validate`) beside a plain pandas read of the same TSVs, in one run.

    python benchmarks/bench_load.py /tmp/synth10k /tmp/synth100k
    python benchmarks/bench_load.py --make 10000 --make 100000     # write the campaigns first

Each side runs in a fresh child process (``nice`` is inherited): the child imports what it needs
(start-up is not counted), then times only the work in CPU seconds (``time.process_time``):

* evalcore: ``python -m evalcore validate FOLDER`` as the CLI runs it (:func:`evalcore.cli.main`),
  i.e. read, check every problem, assemble, summarise;
* pandas: ``pandas.read_csv(f, sep="\\t")`` of every ``*.tsv`` of the folder (what a user would
  write instead, with no checks at all).

``--code A B`` times several checkouts (a before and an after) on the same data in one run.
Peak RSS is each child's own ``ru_maxrss`` (``os.wait4``), start-up included. Prints a
markdown table with the ratio evalcore / pandas. The campaigns are the synthetic generator's
(``python -m evalcore.io.synth --refs 4 --systems 10``): ``--make N`` writes N segments into
``/tmp/synthNk`` unless it exists.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

EVALCORE = r"""
import io, json, sys, time, contextlib
import pandas
import evalcore.io, evalcore.io.tidy, evalcore.io.assemble, evalcore.core.capabilities
import evalcore.commands.validate
from evalcore.cli import main
with contextlib.redirect_stdout(io.StringIO()):  # start-up: the parser, lazy imports (not counted)
    main(["validate", sys.argv[2]])
t = time.process_time()
buf = io.StringIO()
with contextlib.redirect_stdout(buf):
    rc = main(["validate", sys.argv[1]])
cpu = time.process_time() - t
print(json.dumps({"cpu": cpu, "rc": rc, "valid": buf.getvalue().rstrip().endswith("valid")}))
"""

PANDAS = r"""
import json, sys, time
from pathlib import Path
import pandas as pd
t = time.process_time()
rows = sum(len(pd.read_csv(f, sep="\t")) for f in sorted(Path(sys.argv[1]).glob("*.tsv")))
cpu = time.process_time() - t
print(json.dumps({"cpu": cpu, "rc": 0, "rows": rows}))
"""


def run_child(code: str, folder: str, root: str | Path = ROOT, warm: str = "") -> dict:
    """Run ``code`` in a fresh interpreter: its JSON line, plus its own peak RSS in MB (reaped with
    ``os.wait4``; its output goes through temporary files)."""
    import tempfile

    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", PYTHONPATH=str(root))
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        p = subprocess.Popen([sys.executable, "-c", code, folder, warm], cwd=root, env=env, stdout=out, stderr=err)
        _, status, usage = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if p.returncode != 0:
            raise SystemExit(f"child failed ({p.returncode}):\n{err.read()[-3000:]}")
        res = json.loads(out.read().strip().splitlines()[-1])
    res["rss_mb"] = usage.ru_maxrss / 1024
    return res


def make(n: int) -> str:
    folder = Path(f"/tmp/synth{n // 1000}k")
    if not (folder / "outputs.tsv").exists():
        subprocess.run([sys.executable, "-m", "evalcore.io.synth", "--segments", str(n), "--refs", "4",
                        "--systems", "10", "--out", str(folder)], cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    return str(folder)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folders", nargs="*", help="tidy TSV folders to load")
    ap.add_argument("--make", type=int, action="append", default=[], help="write a synthetic N × 4 refs × 10 systems")
    ap.add_argument("--repeat", type=int, default=1, help="runs per side (the best CPU time is shown)")
    ap.add_argument("--code", nargs="*", default=[str(ROOT)],
                    help="evalcore checkouts to time side by side (e.g. a before and an after)")
    a = ap.parse_args(argv)
    folders = [make(n) for n in a.make] + a.folders
    if not folders:
        ap.error("give a folder or --make N")
    import tempfile

    print("| data | files (MB) | checkout | evalcore validate CPU-s | peak RSS (MB) | pandas read CPU-s | "
          "peak RSS (MB) | ratio CPU | ratio RSS |")
    print("|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        warm = str(Path(tmp) / "warm")  # a tiny campaign: the child's start-up run
        subprocess.run([sys.executable, "-m", "evalcore.io.synth", "--segments", "20", "--refs", "1", "--systems", "2",
                        "--out", warm], cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
        for folder in folders:
            mb = sum(f.stat().st_size for f in Path(folder).glob("*.tsv")) / 2**20
            pd_ = [run_child(PANDAS, folder) for _ in range(a.repeat)]
            p = min(r["cpu"] for r in pd_)
            pr = max(r["rss_mb"] for r in pd_)
            for code in a.code:
                ev = [run_child(EVALCORE, folder, code, warm) for _ in range(a.repeat)]
                if not all(r["rc"] == 0 and r["valid"] for r in ev):
                    raise SystemExit(f"{folder}: validate did not report the data valid")
                e = min(r["cpu"] for r in ev)
                er = max(r["rss_mb"] for r in ev)
                print(f"| {folder} | {mb:.0f} | {code} | {e:.2f} | {er:.0f} | {p:.2f} | {pr:.0f} | {e / p:.2f}× | "
                      f"{er / pr:.2f}× |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
