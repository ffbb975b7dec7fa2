"""The full-size campaign run (100k segments), as a user would do it: the synthetic 100k segments × 10
systems × 4 references written to disk, then ``python -m evalcore score DATA --metrics lexical
--level both --scheduler local:2 --out F`` timed from outside (one line)::

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_full.py --segments 100000 --scheduler local:2

* The data set is written once by ``python -m evalcore.io.synth --segments N --refs 4 --systems 10
  --no-judgements --out DIR`` (``--data-dir``, default ``/tmp/evalcore-synth-N``; reused when it is
  already there) — the generator of :mod:`evalcore.io.synth`, seed 0.
* The command runs in a child process; this script samples the process tree every
  ``--interval`` seconds (psutil): the driver (the command's process), the Dask nannies and the
  worker processes. Reported: wall time, CPU seconds (user + system) of the driver and of the
  workers (last sample of each process, so a process's final half-second may be missing; the
  total of the whole tree is exact: ``RUSAGE_CHILDREN`` of this script), the peak resident memory
  of each process (``VmHWM`` from ``/proc``, the kernel's own high-water mark, read at every
  sample; the driver's exactly from ``wait4``), the largest sum of the tree's RSS seen at one
  sample (with when it was seen, each process's share and the last progress line), the output's rows and size, and ``uptime`` before and after (the machine may be shared:
  CPU times are the figures to compare, wall time measures the load too).
* ``--scheduler none`` runs the same command in-process (one core).
* ``--json FILE`` writes the figures, and the sampled timeline (seconds, driver MB, workers' MB,
  last progress line) for finding where the memory goes.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def hwm_mb(pid: int) -> float:
    """The kernel's peak RSS of a live process (``VmHWM``), MB; 0 when gone."""
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def ensure_data(n: int, folder: Path) -> float:
    """Write the synthetic data set when absent; seconds spent (0 when reused)."""
    if (folder / "outputs.tsv").exists():
        return 0.0
    t = time.perf_counter()
    subprocess.run([sys.executable, "-m", "evalcore.io.synth", "--segments", str(n), "--refs", "4", "--systems", "10",
                    "--no-judgements", "--out", str(folder)], check=True, cwd=ROOT)
    return time.perf_counter() - t


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--segments", type=int, default=100_000)
    ap.add_argument("--scheduler", default="local:2")
    ap.add_argument("--metrics", default="lexical")
    ap.add_argument("--data-dir", type=Path)
    ap.add_argument("--out", type=Path, help="score TSV (default: a file beside the data, deleted at the end)")
    ap.add_argument("--keep-out", action="store_true")
    ap.add_argument("--interval", type=float, default=0.5)
    ap.add_argument("--json", type=Path)
    a = ap.parse_args(argv)
    data = a.data_dir or Path(f"/tmp/evalcore-synth-{a.segments}")
    gen_s = ensure_data(a.segments, data)
    out = a.out or data.with_name(data.name + "-scores.tsv")
    cmd = [sys.executable, "-m", "evalcore", "score", str(data), "--metrics", a.metrics, "--level", "both",
           "--scheduler", a.scheduler, "--out", str(out)]
    res: dict = {"command": " ".join(cmd), "segments": a.segments, "cells": a.segments * 10,
                 "generate_s": gen_s, "uptime_start": uptime()}
    print(f"# {res['command']}\n# {res['uptime_start']}", flush=True)
    c0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    env = dict(os.environ, OPENBLAS_NUM_THREADS=os.environ.get("OPENBLAS_NUM_THREADS", "1"))
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stderr=subprocess.PIPE, text=True)
    root = psutil.Process(proc.pid)
    seen: dict[int, dict] = {}  # pid -> role, cpu, hwm
    peak_tree = 0.0
    peak_at: dict = {}
    timeline: list = []  # (s, driver MB, workers' MB, last progress line)
    lines: list[str] = []

    import threading

    def drain():
        for line in proc.stderr:
            lines.append(line)

    th = threading.Thread(target=drain, daemon=True)
    th.start()
    while proc.poll() is None:
        try:
            procs = [root] + root.children(recursive=True)
        except psutil.NoSuchProcess:
            break
        total = 0.0
        parts: list[tuple[str, int]] = []
        for p in procs:
            try:
                with p.oneshot():
                    ct = p.cpu_times()
                    rss = p.memory_info().rss / 2**20
                    cmdline = " ".join(p.cmdline())
            except (psutil.NoSuchProcess, psutil.AccessDenied):
                continue
            total += rss
            d = seen.setdefault(p.pid, {"role": _role(p, root, cmdline), "cpu_s": 0.0, "peak_rss_mb": 0.0})
            parts.append((d["role"], round(rss)))
            d["cpu_s"] = max(d["cpu_s"], ct.user + ct.system)
            d["peak_rss_mb"] = max(d["peak_rss_mb"], hwm_mb(p.pid), rss)
        last = next((ln for ln in reversed(lines) if ln.strip()), "").replace("\r", " ").strip()[-80:]
        timeline.append((round(time.perf_counter() - t0, 1), sum(r for role, r in parts if role == "driver"),
                         sum(r for role, r in parts if role == "worker"), last))
        if total > peak_tree:
            peak_tree = total
            peak_at = {"t_s": round(time.perf_counter() - t0, 1), "rss_mb": parts,
                       "last_progress": last}
        time.sleep(a.interval)
    _, status, ru = os.wait4(proc.pid, 0) if proc.returncode is None else (proc.pid, 0, None)
    wall = time.perf_counter() - t0
    th.join(timeout=5)
    proc.wait()
    c1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    tree_cpu = (c1.ru_utime - c0.ru_utime) + (c1.ru_stime - c0.ru_stime)
    if ru is not None:
        seen.setdefault(proc.pid, {"role": "driver"})
        seen[proc.pid]["cpu_s"] = ru.ru_utime + ru.ru_stime
        seen[proc.pid]["peak_rss_mb"] = ru.ru_maxrss / 1024
    by_role: dict[str, list] = {}
    for d in seen.values():
        by_role.setdefault(d["role"], []).append(d)
    res.update(
        returncode=proc.returncode, wall_s=wall, cpu_tree_s=tree_cpu,
        cpu_driver_s=sum(d["cpu_s"] for d in by_role.get("driver", [])),
        cpu_workers_s=sum(d["cpu_s"] for d in by_role.get("worker", [])),
        cpu_other_s=sum(d["cpu_s"] for r, ds in by_role.items() if r not in ("driver", "worker") for d in ds),
        peak_rss_driver_mb=max((d["peak_rss_mb"] for d in by_role.get("driver", [])), default=0.0),
        peak_rss_workers_mb=sorted((round(d["peak_rss_mb"]) for d in by_role.get("worker", [])), reverse=True),
        peak_rss_tree_sampled_mb=peak_tree, peak_tree_at=peak_at, uptime_end=uptime(),
    )
    res["cpu_per_cell_ms"] = res["cpu_tree_s"] / res["cells"] * 1e3
    if out.exists():
        with open(out, "rb") as fh:
            res["out_rows"] = sum(buf.count(b"\n") for buf in iter(lambda: fh.read(1 << 24), b"")) - 1
        res["out_mb"] = out.stat().st_size / 2**20
        if not a.keep_out and a.out is None:
            out.unlink()
    res["stderr_tail"] = [ln.rstrip()[-300:] for ln in lines if "\r" not in ln][-8:]
    print(json.dumps(res, indent=1))
    res["timeline"] = timeline
    if a.json:
        a.json.write_text(json.dumps(res, indent=1))
    return 0 if proc.returncode == 0 else 1


def _role(p, root, cmdline: str) -> str:
    """driver (the command), worker (a Dask worker process, spawned by the driver's nannies) or
    other (multiprocessing's resource tracker)."""
    if p.pid == root.pid:
        return "driver"
    return "worker" if "spawn_main" in cmdline else "other"


if __name__ == "__main__":
    sys.exit(main())
