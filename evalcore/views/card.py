"""The evaluation card: one self-contained HTML file that carries an analysis of one language
pair — the verdicts (methods §21), the tables with their CIs, static figures, the settings, the
metric signatures, the SHA-256 of every input file, the command that re-creates it, the tool
version and every number as embedded JSON (``<script type="application/json"
id="evalcore-card">``) — and its check, :func:`verify_card`, which recomputes every number from
the data and names each one that differs and each input file that changed.

:func:`build_card` computes the card as a plain dict (what a page's "Share this analysis" and
the ``card`` command both call); :func:`render_card` writes it as HTML: tables readable without
JavaScript (there is none), every text from the data escaped with :func:`html.escape`, figures
as inline SVG (:mod:`evalcore.present.card_svg`), no URL anywhere, so it opens offline.
Nothing here imports streamlit.
"""
from __future__ import annotations

import hashlib
import html
import json
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np
import pandas as pd

from .. import __version__
from ..core.dataset import Dataset
from ..scoring.settings import DEFAULTS, Settings
from .queries import Query

CARD_FORMAT = "evalcore-card/1"
JSON_ID = "evalcore-card"
#: numbers that agree to this (relative to max(1, |x|)) are equal (floating-point noise only)
TOLERANCE = 1e-9
#: bootstrap resamples of the card's CIs (the Systems page's default)
N_BOOT = 200


# ---------------------------------------------------------------------------------------------
# inputs
# ---------------------------------------------------------------------------------------------
def input_files(path) -> list[dict]:
    """SHA-256 of every file the data path holds (a folder: each file below it, by relative
    path, sorted; a file: itself)."""
    p = Path(path)
    files = [p] if p.is_file() else sorted(f for f in p.rglob("*") if f.is_file())
    out = []
    for f in files:
        h = hashlib.sha256()
        with open(f, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
        out.append({"file": f.name if p.is_file() else f.relative_to(p).as_posix(), "sha256": h.hexdigest(),
                    "bytes": f.stat().st_size})
    return out


def _plain(v):
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        return float(v) if math.isfinite(float(v)) else None
    if v is None or (not isinstance(v, (str, list, tuple, dict)) and pd.isna(v)):
        return None
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if isinstance(v, dict):
        return {str(k): _plain(x) for k, x in v.items()}
    return v if isinstance(v, (str, int)) else str(v)


def _table(df: pd.DataFrame, title: str, key: Sequence[str], note: str = "") -> dict:
    """A table as plain JSON: title, key columns (what names a row), columns, rows."""
    return {"title": title, "key": list(key), "note": note, "columns": [str(c) for c in df.columns],
            "rows": [[_plain(v) for v in row] for row in df.itertuples(index=False, name=None)]}


# ---------------------------------------------------------------------------------------------
# build
# ---------------------------------------------------------------------------------------------
def card_command(lp: str, criterion: str | None, metrics: Sequence[str], n_boot: int, settings: Settings,
                 a: str | None, b: str | None) -> str:
    """The command line that re-creates the card (DATA: the data path)."""
    from shlex import quote

    parts = ["python -m evalcore card DATA"]
    if lp:
        parts.append(f"--lp {quote(lp)}")
    if criterion:
        parts.append(f"--human {quote(criterion)}")
    parts += [f"--metrics {quote(','.join(metrics))}" if metrics else "--metrics none", f"--bootstrap {int(n_boot)}"]
    if a and b:
        parts += [f"--a {quote(a)}", f"--b {quote(b)}"]
    if not settings.judged_only:
        parts.append("--all-segments")
    if settings.tokenizer:
        parts.append(f"--tokenize {quote(settings.tokenizer)}")
    if settings.include_human_systems:
        parts.append("--include-human-systems")
    if settings.references:
        parts.append(f"--refs {quote(','.join(settings.references))}")
    return " ".join(parts + ["--out card.html"])


def _criterion(dataset: Dataset, criterion: str | None) -> str | None:
    if criterion:
        if criterion not in dataset.criteria:
            raise ValueError(f"no {criterion!r} judgements; the data has {', '.join(dataset.criteria) or 'none'}")
        return criterion
    crit = dataset.criteria
    if len(crit) > 1:
        raise ValueError(f"the data has several kinds of human judgement ({', '.join(crit)}): choose one")
    return crit[0] if crit else None


def build_card(dataset: Dataset, settings: Settings = DEFAULTS, *, criterion: str | None = None,
               metrics: Sequence[str] | None = None, n_boot: int = N_BOOT, a: str | None = None,
               b: str | None = None, data_path=None, progress=None) -> dict:
    """The card of ``dataset`` under ``settings`` as a plain dict (module docstring).
    ``criterion``: the human judgements (default: the data's only kind); ``metrics``: default the
    metrics the Systems page starts from, those that cannot run left out with a note; ``a``/``b``:
    the pair of "does B beat A" (default: the best system and the runner-up); ``data_path``: the
    files whose SHA-256 the card records."""
    from ..analysis import verdict as V
    from ..analysis.system_level import metrics_vs_humans
    from ..scoring.availability import left_out_note, runnable
    from ..scoring.defaults import page_tokenizer, signature_frame
    from .systems import first_metrics, system_table

    settings, notes = settings.resolve(dataset)
    crit = _criterion(dataset, criterion)
    metrics = list(first_metrics(dataset)[0] if metrics is None else metrics)
    metrics, left = runnable(dataset, metrics, settings.tokenizer)
    if left:
        notes.append(left_out_note(left, dataset.lp))
    tok = page_tokenizer(dataset, settings.tokenizer)
    verdicts, tables = [], {}
    if crit:
        best = V.best_system(dataset, crit, settings)
        verdicts.append(best)
        notes += list(best.notes)
        if a is None or b is None:
            a, b = best.answer, best.evidence.get("runner_up")
        if a and b:
            verdicts.append(V.a_beats_b(dataset, a, b, crit))
            if metrics:
                verdicts += _metric_to_trust(dataset, a, b, metrics, crit, tok, settings, notes)
        r, _ = V.recipe_ranking(dataset, crit)
        rt = r.table()
        humans = set(V._human_names(dataset, r.systems))
        rt.insert(1, "human_translation", rt["system"].isin(humans))
        tables["ranking"] = _table(rt, f"Human ranking by {crit} ({V.HUMAN_RECIPE})", ["system"])
    if metrics or crit:
        st = system_table(dataset, metrics, [crit] if crit else [], n_boot=n_boot,
                          include_references=settings.include_human_systems, ref_ids=settings.references,
                          settings=settings.with_(tokenizer=tok), judged_for=crit or None, progress=progress)
        st = st.drop(columns=["p_value", "mark"])
        tables["system_scores"] = _table(
            st, f"System scores with {n_boot}-resample percentile bootstrap CIs over segments (seed 12345; "
                "human: mean over segments of the per-segment mean over raters)", ["measure", "system"])
    if crit and metrics:
        vs = metrics_vs_humans(dataset, metrics, crit, settings, n_boot=n_boot)
        notes += [n for n in vs["notes"] if n not in notes]
        vt = vs["table"]
        tables["metrics_vs_humans"] = _table(vt.drop(columns=["method"]), f"System-level agreement with {crit} "
                                             f"({n_boot} bootstrap resamples of the systems, seed 0)",
                                             ["metric", "statistic"])
        ranks = vs["ranks"]
        tables["metric_clusters"] = _table(ranks, "Significance clusters of the metrics (p ≤ 0.05)",
                                           ["statistic", "metric"])
        pear = vt[vt["method"] == "pearson"].set_index("metric")
        cl = ranks[ranks["statistic"] == "Pearson r"].set_index("metric")["rank"]
        pear = pear.assign(cluster=cl.reindex(pear.index)).reset_index()
        alts = {label: (g.set_index("metric")["value"], f"{label} weighs the systems' order differently from "
                        "Pearson's linear fit")
                for label, g in vt.groupby("statistic", sort=False) if label != "Pearson r"}
        if len(pear.dropna(subset=["value"])):
            verdicts.append(V.best_metric(pear, f"system-level Pearson r with {crit}", rank_column="cluster",
                                          recipe=f"correlate --human {crit} (Pearson r, Williams test clusters)",
                                          alternatives=alts))
    if crit:
        _decision_tables(dataset, crit, metrics, settings, tables, notes)
    sig = signature_frame(metrics, dataset, level="system", tokenize=tok)
    card = {
        "format": CARD_FORMAT,
        "tool": {"name": "evalcore", "version": __version__},
        "dataset": {"name": dataset.name, "lp": dataset.lp, "content_hash": dataset.content_hash(),
                    "n_segments": int(dataset.n_segments), "systems": list(dataset.systems)},
        "parameters": {"lp": dataset.lp, "criterion": crit, "metrics": list(metrics), "n_boot": int(n_boot),
                       "a": a, "b": b, "settings": {"judged_only": settings.judged_only,
                                                    "tokenizer": settings.tokenizer,
                                                    "references": list(settings.references or []) or None,
                                                    "human_systems": settings.human_systems,
                                                    "orientation": settings.orientation,
                                                    "rater_aggregation": settings.rater_aggregation}},
        "settings": {"line": settings.describe(dataset, crit if settings.judged_only else None),
                     "signature": settings.signature(), "tokenizer": tok},
        "command": card_command(dataset.lp, crit, metrics, n_boot, settings, a, b),
        "signatures": {r.metric: r.signature for r in sig.itertuples(index=False)},
        "verdicts": [_plain(v.to_dict()) for v in verdicts],
        "tables": tables,
        "notes": [str(n) for n in dict.fromkeys(notes)],
        "inputs": input_files(data_path) if data_path is not None else [],
    }
    return card


#: bootstrap resamples of the card's calibration curves (over systems, seed 0; methods §25.1)
CALIBRATION_BOOT = 200


def _decision_tables(dataset: Dataset, crit: str, metrics: Sequence[str], settings: Settings, tables: dict,
                     notes: list) -> None:
    """The decision tools' parts of the card (methods §24-§25): how firm the human ranking is
    (:func:`evalcore.analysis.stability.human_stability`, its default perturbations, seed 0), how
    many judgements to buy (:func:`evalcore.views.plan.plan_of`, the ``plan`` command's defaults) and,
    with metrics, what a metric difference means here (:func:`evalcore.analysis.calibrate.
    calibrate_datasets`: the Δ humans agree with 80/90/95 % of the time). A tool the data is too
    small for is a note saying why, never a table from too few points."""
    from ..analysis.stability import human_stability
    from ..core.problems import DataError

    try:
        stab = human_stability(dataset, crit, settings)
        tables["ranking_stability"] = _table(
            stab.table, f"How firm the human ranking by {crit} is: each system's rank under {len(stab.perturbations)} "
                        "perturbations (raters, systems and domains left out, segments resampled; seed 0)",
            ["system"])
    except (ValueError, DataError) as exc:
        notes.append(f"ranking stability not computed: {exc}")
    from . import plan as plan_view

    try:  # how many judgements to buy: the plan command's defaults, these judgements as the pilot
        pv = plan_view.plan_of(dataset, plan_view.PlanQuery(dataset.content_hash(), settings, crit))
        tables["judgement_plan"] = _table(
            plan_view.pairs_at_80(pv.plan), plan_view.headline(pv.plan, pv.pilot_n) + " Per N: the system pairs "
            "at 80 % power (200 simulated campaigns per N, WMT24's test, α = 0.05, seed 0; `evalcore plan`)", ["n"])
    except (ValueError, DataError) as exc:  # too few systems or segments: said, never simulated
        notes.append(f"judgement plan not computed: {exc}")
    if not metrics:
        return
    from ..analysis.calibrate import calibrate_datasets

    try:
        cal = calibrate_datasets([dataset], list(metrics), crit, settings, n_boot=CALIBRATION_BOOT, seed=0)
        tables["calibration"] = _table(
            cal.summary, "What a metric difference means here: the Δ at which humans agree in direction 80 / 90 / 95 % "
                         f"of the time (logistic fit through 0.5 at Δ = 0 on every system pair; {CALIBRATION_BOOT} "
                         "bootstrap resamples of the systems, seed 0)", ["metric", "lp"])
    except (ValueError, DataError) as exc:  # too few systems for a curve: said, never fitted
        why = "; ".join(p.message for p in exc.report.errors) if isinstance(exc, DataError) else str(exc)
        notes.append(f"calibration not computed: {why}")


@dataclass(frozen=True)
class CardQuery(Query):
    """What "Share this analysis" asks: the dataset and the page's shared settings (the base
    :class:`~evalcore.views.queries.Query`), its criterion, metrics and bootstrap resamples (a
    cache key: plain values only)."""

    criterion: str | None = None
    metrics: tuple[str, ...] | None = None
    n_boot: int = N_BOOT
    a: str | None = None  # the pair of "does B beat A" (the Compare page's; None: best and runner-up)
    b: str | None = None


def card_html(dataset: Dataset, q: CardQuery) -> str:
    """The card of a page's dataset and settings as HTML (no input files: a dataset loaded in the
    dashboard is named by its content hash, which ``verify-card`` compares)."""
    card = build_card(dataset, q.settings, criterion=q.criterion, metrics=q.metrics, n_boot=q.n_boot, a=q.a, b=q.b)
    return render_card(card)


def _metric_to_trust(dataset, a, b, metrics, crit, tok, settings, notes) -> list:
    """[the "metric to trust for A vs B" verdict] from the Compare page's segment table (none,
    with a note, when no segment has both a metric and a human preference)."""
    from ..analysis import compare as C
    from ..analysis.verdict import metric_to_trust

    cmp = C.build(dataset, a, b, list(metrics), [crit], settings.with_(tokenizer=tok),
                  require_judged=settings.judged_only, lengths=False)
    hib = {m: cmp.higher_is_better(f"metric:{m}") for m in cmp.metrics}
    try:
        return [metric_to_trust(cmp.segments, a, b, cmp.metrics, f"human:{crit}", hib)]
    except ValueError as exc:
        notes.append(f"no metric to trust for {a} vs {b}: {exc}")
        return []


def settings_of(card: dict) -> Settings:
    s = dict(card["parameters"]["settings"])
    s["references"] = tuple(s["references"]) if s.get("references") else None
    return Settings(**s)


# ---------------------------------------------------------------------------------------------
# render
# ---------------------------------------------------------------------------------------------
_CSS = """body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}
table{border-collapse:collapse;margin:.5em 0 1.5em;font-size:13px}th,td{border:1px solid #ccc;padding:3px 6px}
th{background:#f3f3f3;text-align:left}td.n{text-align:right;font-variant-numeric:tabular-nums}
.verdict{font-size:1.1em;border-left:4px solid #1b9e77;padding:.3em .8em;background:#f5fbf8}
.alt{color:#444}code,pre{background:#f4f4f4;padding:2px 4px;white-space:pre-wrap;word-break:break-all}
.small{font-size:12px;color:#555}"""


def _cell(v) -> str:
    if v is None:
        return '<td class="n">–</td>'
    if isinstance(v, bool):
        return f"<td>{'yes' if v else 'no'}</td>"
    if isinstance(v, float):
        return f'<td class="n">{v:.4f}</td>'
    if isinstance(v, int):
        return f'<td class="n">{v}</td>'
    return f"<td>{html.escape(str(v))}</td>"


def _html_table(t: dict) -> str:
    head = "".join(f"<th>{html.escape(c)}</th>" for c in t["columns"])
    body = "".join("<tr>" + "".join(_cell(v) for v in row) + "</tr>" for row in t["rows"])
    note = f'<p class="small">{html.escape(t["note"])}</p>' if t.get("note") else ""
    return f'<h3>{html.escape(t["title"])}</h3><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{note}'


def _figures(card: dict) -> list[str]:
    from ..present.card_svg import bars

    out = []
    tabs = card["tables"]
    best = next((v["answer"] for v in card["verdicts"] if v["question"] == "best system"), None)
    if "ranking" in tabs:
        t = tabs["ranking"]
        i, j = t["columns"].index("system"), t["columns"].index("score")
        out.append(bars([r[i] for r in t["rows"]], [r[j] for r in t["rows"]], title=t["title"].split(" (")[0]
                        + " (the recipe's score)", highlight=best))
    if "system_scores" in tabs:
        t = tabs["system_scores"]
        c = {n: k for k, n in enumerate(t["columns"])}
        for measure in dict.fromkeys(r[c["measure"]] for r in t["rows"]):
            rows = sorted((r for r in t["rows"] if r[c["measure"]] == measure and r[c["score"]] is not None),
                          key=lambda r: -r[c["score"]] if r[c["higher_is_better"]] else r[c["score"]])
            out.append(bars([r[c["system"]] for r in rows], [r[c["score"]] for r in rows],
                            [_nan(r[c["ci_lo"]]) for r in rows], [_nan(r[c["ci_hi"]]) for r in rows],
                            title=f"{measure}: score and 95% CI", highlight=best))
    if "metrics_vs_humans" in tabs:
        t = tabs["metrics_vs_humans"]
        c = {n: k for k, n in enumerate(t["columns"])}
        for stat in dict.fromkeys(r[c["statistic"]] for r in t["rows"]):
            rows = [r for r in t["rows"] if r[c["statistic"]] == stat]
            out.append(bars([r[c["metric"]] for r in rows], [_nan(r[c["value"]]) for r in rows],
                            [_nan(r[c["ci_low"]]) for r in rows], [_nan(r[c["ci_high"]]) for r in rows],
                            title=f"{stat} with the humans (95% CI)", digits=3))
    return out


def _nan(v):
    return float("nan") if v is None else v


def card_json(card: dict) -> str:
    """The card as JSON safe inside ``<script>``: ``<``, ``>`` and ``&`` written as \\u escapes."""
    text = json.dumps(card, ensure_ascii=False, sort_keys=True, allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def render_card(card: dict) -> str:
    """The card as one self-contained HTML page (module docstring)."""
    e = html.escape
    ds = card["dataset"]
    parts = ["<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">",
             f"<title>Evaluation card: {e(ds['name'])} {e(ds['lp'])}</title><style>{_CSS}</style></head><body>",
             f"<h1>Evaluation card: {e(ds['name'])} {e(ds['lp'])}</h1>",
             f"<p class=\"small\">{e(card['tool']['name'])} {e(card['tool']['version'])} · "
             f"{ds['n_segments']} segments · dataset content hash <code>{e(ds['content_hash'])}</code></p>",
             "<h2>Verdicts</h2>"]
    for v in card["verdicts"]:
        parts.append(f"<p class=\"verdict\"><b>{e(v['question'][:1].upper() + v['question'][1:])}?</b> {e(v['sentence'])}</p>")
        parts.append(f"<p class=\"small\">Recipe: {e(v['recipe'])}</p>")
        alts = v.get("alternatives") or []
        if alts:
            parts.append("<ul class=\"alt\">" + "".join(
                f"<li>Alternative, {e(x['view'])}: "
                + (f"agrees ({e(x['answer'])})." if x["agrees"] else f"{e(x['answer'])} first — {e(x['reason'])}.")
                + "</li>" for x in alts) + "</ul>")
    if card["notes"]:
        parts.append("<h2>Notes</h2><ul>" + "".join(f"<li>{e(n)}</li>" for n in card["notes"]) + "</ul>")
    parts.append(f"<h2>Settings</h2><p>{e(card['settings']['line'])}</p>"
                 f"<p class=\"small\"><code>{e(card['settings']['signature'])}</code></p>")
    parts.append("<h2>Tables</h2>")
    parts += [_html_table(t) for t in card["tables"].values()]
    parts.append("<h2>Figures</h2>")
    parts += [f"<figure>{svg}</figure>" for svg in _figures(card)]
    parts.append("<h2>Metric signatures</h2><table><tr><th>metric</th><th>signature</th></tr>" + "".join(
        f"<tr><td>{e(m)}</td><td><code>{e(s)}</code></td></tr>" for m, s in card["signatures"].items()) + "</table>")
    parts.append("<h2>Input files (SHA-256)</h2><table><tr><th>file</th><th>bytes</th><th>sha256</th></tr>" + "".join(
        f"<tr><td>{e(f['file'])}</td><td class=\"n\">{f['bytes']}</td><td><code>{e(f['sha256'])}</code></td></tr>"
        for f in card["inputs"]) + "</table>" if card["inputs"] else
        "<h2>Input files</h2><p>Made from a dataset loaded in the dashboard: it is named by its content hash "
        f"<code>{e(ds['content_hash'])}</code> (SHA-256 over its tables), which verify-card compares.</p>")
    parts.append(f"<h2>Re-create and verify</h2><pre>{e(card['command'])}</pre>"
                 f"<pre>python -m evalcore verify-card card.html DATA</pre>"
                 "<p class=\"small\">Every number of this card is in the JSON below; <code>verify-card</code> "
                 "recomputes each from the data and names any that differs and any input file that changed.</p>")
    parts.append(f"<script type=\"application/json\" id=\"{JSON_ID}\">{card_json(card)}</script></body></html>")
    return "".join(parts)


# ---------------------------------------------------------------------------------------------
# verify
# ---------------------------------------------------------------------------------------------
_SCRIPT = re.compile(r'<script type="application/json" id="' + JSON_ID + r'">(.*?)</script>', re.S)


def read_card(text: str) -> dict:
    """The card dict embedded in a card's HTML (ValueError when there is none)."""
    m = _SCRIPT.search(text)
    if not m:
        raise ValueError(f"no <script id=\"{JSON_ID}\"> with the card's numbers: not an evaluation card")
    try:
        card = json.loads(m.group(1))
    except json.JSONDecodeError as exc:
        raise ValueError(f"the card's embedded JSON is broken: {exc}") from None
    if card.get("format") != CARD_FORMAT:
        raise ValueError(f"unknown card format {card.get('format')!r} (this tool reads {CARD_FORMAT})")
    return card


def flatten(card: dict) -> dict:
    """Every value of the card by a readable name (``tables.ranking[ONLINE-W].score``), the
    inputs and tool version left out (checked apart)."""
    out: dict = {}

    def walk(prefix, v):
        if isinstance(v, dict):
            for k, x in v.items():
                walk(f"{prefix}.{k}" if prefix else str(k), x)
        elif isinstance(v, list) and v and all(not isinstance(x, (dict, list)) for x in v):
            out[prefix] = v
        elif isinstance(v, list):
            for i, x in enumerate(v):
                walk(f"{prefix}[{i}]", x)
        else:
            out[prefix] = v

    for k, v in card.items():
        if k in ("inputs", "tool", "tables"):
            continue
        if k == "verdicts":
            for x in v:
                walk(f"verdicts[{x['question']}]", x)
            continue
        walk(k, v)
    for name, t in card.get("tables", {}).items():
        key = [t["columns"].index(c) for c in t["key"]]
        for row in t["rows"]:
            rid = ",".join(str(row[i]) for i in key)
            for c, v in zip(t["columns"], row):
                out[f"tables.{name}[{rid}].{c}"] = v
    return out


def _equal(x, y) -> bool:
    if isinstance(x, bool) or isinstance(y, bool) or not isinstance(x, (int, float)) or not isinstance(y, (int, float)):
        if isinstance(x, list) and isinstance(y, list) and len(x) == len(y):
            return all(_equal(a, b) for a, b in zip(x, y))
        return x == y
    return abs(float(x) - float(y)) <= TOLERANCE * max(1.0, abs(float(x)), abs(float(y)))


def compare_cards(card: dict, recomputed: dict) -> pd.DataFrame:
    """One row per value: name, in_card, recomputed, status (equal | different | missing | new)."""
    a, b = flatten(card), flatten(recomputed)
    rows = []
    for k in list(a) + [k for k in b if k not in a]:
        if k not in b:
            rows.append((k, a[k], None, "missing"))
        elif k not in a:
            rows.append((k, None, b[k], "new"))
        else:
            rows.append((k, a[k], b[k], "equal" if _equal(a[k], b[k]) else "different"))
    return pd.DataFrame(rows, columns=["name", "in_card", "recomputed", "status"])


def compare_inputs(card: dict, data_path) -> pd.DataFrame:
    """One row per input file: file, status (equal | changed | missing | new), the two hashes."""
    was = {f["file"]: f["sha256"] for f in card.get("inputs", [])}
    if not was:  # a card made in the dashboard: the data is named by its content hash (compared as a value)
        return pd.DataFrame(columns=["file", "sha256_card", "sha256_now", "status"])
    now = {f["file"]: f["sha256"] for f in input_files(data_path)}
    rows = [(f, h, now.get(f), "equal" if now.get(f) == h else ("missing" if f not in now else "changed"))
            for f, h in was.items()]
    rows += [(f, None, h, "new") for f, h in now.items() if f not in was]
    return pd.DataFrame(rows, columns=["file", "sha256_card", "sha256_now", "status"])


def verify_card(card: dict, dataset: Dataset, data_path=None, progress=None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(the values compared, the input files compared) of ``card`` recomputed on ``dataset``
    with the card's own parameters (:func:`build_card`)."""
    p = card["parameters"]
    new = build_card(dataset, settings_of(card), criterion=p["criterion"], metrics=p["metrics"],
                     n_boot=p["n_boot"], a=p["a"], b=p["b"], data_path=data_path, progress=progress)
    values = compare_cards(card, new)
    files = compare_inputs(card, data_path) if data_path is not None else pd.DataFrame(
        columns=["file", "sha256_card", "sha256_now", "status"])
    return values, files
