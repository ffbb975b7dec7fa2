"""Class annotation: students judge a saved dataset's outputs (DA or ESA) and their judgements
go straight into it, beside the experts' (docs/formats.md, "Class annotations"; docs/teaching.md).

* :func:`assignment` — which outputs a student judges: ``n`` items, of which a shared pool of
  ``round(overlap · n)`` is the same for every student (so any two students share at least that
  many items: inter-annotator agreement needs them), the rest drawn per student; deterministic
  for a (seed, student name). Items come in blocks of one segment's outputs (several systems of
  one source, as on a WMT screen), so each student's scores also give pairwise labels
  (Callison-Burch 2009 §4) and Schulze ballots.
* Quality control as in WMT's direct assessment (Graham et al. 2013, "Continuous measurement
  scales in human evaluation of machine translation"; Kocmi et al. 2024, WMT24 findings; methods §5.14):
  a *degraded copy* of an output already in the student's list (:func:`degrade`: some words
  dropped, a stretch of words shuffled; the "bad reference") should score lower than the
  original; a *repeat* of an item should score about the same. :func:`task_sequence` places them
  after their original; :func:`qc_report` checks them per rater. Ranking screens get the same two
  kinds (:func:`rank_sequence`: a degraded copy on the screen beside its original, which should be
  ranked worse; a repeated screen, which should order the pairs the same way); :func:`rank_qc_report`.
* :func:`save_judgement` appends one judgement to the saved dataset through
  :func:`evalcore.io.workspace.append` (under the dataset's lock, a line of the rater's own journal
  file, atomic swap; merged into the tables when the dataset loads): another rater's rows are never
  touched, and a save costs the same on a small and a large dataset. Ordinary items become ordinary judgement
  rows (criterion ``class_da`` / ``class_esa``; ESA spans in the ``esa_spans`` extra table, the
  JSON of ``esa_spans_json``: :mod:`evalcore.io.spans`); *every* save, quality-control ones
  included, is also a row of the extra table ``annotation_log`` — the QC items live only there,
  so they never reach an analysis of the judgements.
* :func:`check_rater` refuses names that are empty, too long or hold control or invisible
  formatting characters (line breaks, bidirectional marks); other text (``<script>``, ``=2+2``)
  is kept as typed and escaped wherever it is shown.

Nothing here imports streamlit.
"""
from __future__ import annotations

import hashlib
import itertools
import json
import math
import random
import time
import unicodedata
from dataclasses import dataclass
from typing import Any, Sequence, cast

import numpy as np
import pandas as pd

from ..core.dataset import Dataset
from ..io import journal

#: protocol -> the criterion name of its judgement rows (apart from the experts' criteria)
CRITERIA = {"da": "class_da", "esa": "class_esa", "mqm": "class_mqm", "rank": "class_rank"}
PROTOCOLS = tuple(CRITERIA)
LOG_EXTRA = "annotation_log"
PLAN_EXTRA = "annotation_plan"
ESA_EXTRA = "esa_spans"
#: the class's MQM-lite error rows (the columns of the experts' ``mqm_errors``: evalcore.io.mqm)
MQM_EXTRA = "class_mqm_errors"
LOG_COLUMNS = ["rater", "protocol", "kind", "system", "seg_id", "score", "esa_spans_json", "shown_text",
               "saved_at", "mqm_errors_json", "ranks_json"]
KINDS = ("item", "bad_copy", "repeat")
MAX_RATER_CHARS = 40
ESA_SEVERITIES = ("minor", "major")
#: MQM-lite: the top-level error categories of MQM (Lommel et al. 2014; Freitag et al. 2021, Table 10:
#: Accuracy, Fluency, Terminology, Style, Locale convention, Other, and Non-translation, which
#: is always major), each error minor or major. Critical is left out: the project's MQM weights
#: (:data:`evalcore.human.mqm.MQM_WEIGHTS`, methods §5.7) give it no weight.
MQM_CATEGORIES = ("Accuracy", "Fluency", "Terminology", "Style", "Locale convention", "Non-translation", "Other")
MQM_SEVERITIES = ("minor", "major")
#: a repeat counts as consistent when its score is within this many points of the first: 10 on the
#: 0-100 scale of DA and ESA; for MQM-lite one major error (weight 5)
REPEAT_TOLERANCE = 10.0
MQM_REPEAT_TOLERANCE = 5.0
#: relative ranking: how many outputs of one segment a screen shows (the teacher chooses)
MIN_RANK_OUTPUTS, MAX_RANK_OUTPUTS = 2, 5
#: a ranking repeat counts as consistent when at least this share of its pairs of outputs is ordered
#: the same way (better, worse or tied) as on the first screen: P(A) ≥ 2/3, i.e. κ ≥ 0.5 with the
#: chance agreement 1/3 of pairwise labels (Callison-Burch 2009 §4; methods §5.3, §5.14)
RANK_REPEAT_AGREEMENT = 2.0 / 3.0


def repeat_tolerance(protocol: str) -> float:
    """The repeat tolerance of ``protocol`` (:data:`REPEAT_TOLERANCE`, :data:`MQM_REPEAT_TOLERANCE`)."""
    return MQM_REPEAT_TOLERANCE if protocol == "mqm" else REPEAT_TOLERANCE


@dataclass(frozen=True)
class Plan:
    """The teacher's settings, saved with the dataset (extra table ``annotation_plan``) so that
    every student's page and the Class page use the same."""
    items_per_student: int = 20
    overlap: float = 0.5
    qc: bool = True
    show_reference: bool = True
    seed: int = 0
    #: relative ranking: outputs of one segment per screen (2-5)
    rank_outputs: int = 3
    #: adaptive order (every protocol): after the shared items, each student's own segments come
    #: where the class's ranking is least certain (:func:`adaptive_items`; methods §27)
    adaptive: bool = False

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame({"key": ["items_per_student", "overlap", "qc", "show_reference", "seed", "rank_outputs",
                                     "adaptive"],
                             "value": [str(self.items_per_student), repr(float(self.overlap)), str(int(self.qc)),
                                       str(int(self.show_reference)), str(self.seed), str(self.rank_outputs),
                                       str(int(self.adaptive))]},
                            dtype=str)


@dataclass(frozen=True)
class Task:
    """One thing a student is shown: ``kind`` (item, bad_copy, repeat), the output's system and
    segment, and ``text``: what is shown (the output, or its degraded copy)."""
    kind: str
    system: str
    seg_id: str
    text: str


@dataclass(frozen=True)
class RankTask:
    """One relative-ranking screen (Callison-Burch et al. 2009 §3): the outputs of ``systems`` for
    segment ``seg_id``, in the order shown (``texts``). ``kind``: ``item``, or a quality-control
    screen (methods §5.14): ``repeat`` (an item screen again, reshuffled) or ``bad_copy``, where
    position ``degraded`` shows a degraded copy of the output of ``systems[degraded]`` (that
    system's own output is on the screen too). ``system`` names the screen in the annotation log:
    the JSON list of the systems, sorted; for a ``bad_copy`` the degraded output's system, as
    the log rows of a DA degraded copy."""
    seg_id: str
    systems: tuple[str, ...]
    texts: tuple[str, ...]
    kind: str = "item"
    degraded: int = -1

    @property
    def system(self) -> str:
        if self.kind == "bad_copy" and 0 <= self.degraded < len(self.systems):
            return self.systems[self.degraded]
        return json.dumps(sorted(self.systems), ensure_ascii=False)

    def real(self) -> list[int]:
        """Positions showing a system's own output (all but :attr:`degraded`)."""
        return [i for i in range(len(self.systems)) if i != self.degraded]


# --------------------------------------------------------------------------- rater names
def check_rater(name) -> str:
    """The rater name as it will be stored (surrounding spaces removed, NFC), or ``ValueError``
    saying what is wrong: empty, longer than :data:`MAX_RATER_CHARS` characters, or holding a
    control character (line break, tab, ...) or an invisible formatting character
    (right-to-left marks, zero-width spaces: they make two names look alike or reorder a table).
    Markup and formula characters are allowed: they are escaped wherever the name is shown."""
    if not isinstance(name, str):
        raise ValueError("the rater name must be text")
    text = unicodedata.normalize("NFC", name.strip())
    if not text:
        raise ValueError("type a rater name (your name or a nickname): it is empty")
    if len(text) > MAX_RATER_CHARS:
        raise ValueError(f"the rater name is {len(text)} characters long; use at most {MAX_RATER_CHARS}")
    bad = sorted({c for c in text if unicodedata.category(c) in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp")})
    if bad:
        listed = ", ".join(f"U+{ord(c):04X} ({unicodedata.name(c, 'control character').lower()})" for c in bad)
        raise ValueError(f"the rater name holds {len(bad)} control or invisible character(s): {listed}; "
                         "use letters, digits, spaces and punctuation only")
    return text


# --------------------------------------------------------------------------- assignment
def items(dataset: Dataset) -> list[tuple[str, str]]:
    """Every (system, seg_id) with a non-empty output, in the dataset's segment and system order."""
    texts = dataset.sys_texts()
    out = []
    for i, seg in enumerate(dataset.seg_ids):
        for system in dataset.systems:
            t = texts[system][i]
            if isinstance(t, str) and t.strip():
                out.append((system, str(seg)))
    return out


def _rng(*parts) -> random.Random:
    """A generator seeded by the SHA-256 of ``parts`` (the same on every machine and Python)."""
    digest = hashlib.sha256("\x00".join(str(p) for p in parts).encode("utf-8")).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def _blocks(pool: Sequence[tuple[str, str]], rng: random.Random) -> list[tuple[str, str]]:
    """The items of ``pool`` in segment blocks: segments in a random order, systems shuffled
    within each segment."""
    by_seg: dict[str, list] = {}
    for it in pool:
        by_seg.setdefault(it[1], []).append(it)
    segs = list(by_seg)
    rng.shuffle(segs)
    out = []
    for s in segs:
        block = list(by_seg[s])
        rng.shuffle(block)
        out += block
    return out


def n_shared(n: int, overlap: float) -> int:
    """Items of the shared pool: ``round(overlap · n)`` (``overlap`` in [0, 1])."""
    return int(round(min(max(float(overlap), 0.0), 1.0) * n))


def assignment(all_items: Sequence[tuple[str, str]], n: int, overlap: float, seed: int,
               student: str) -> list[tuple[str, str]]:
    """The ``n`` items (system, seg_id) of ``student`` (fewer when the dataset has fewer).

    The first :func:`n_shared` items of a permutation of ``all_items`` seeded by ``seed`` alone
    (segment blocks) are every student's; the rest are drawn from the other items by a
    permutation seeded by (``seed``, ``student``). So every pair of students shares at least
    ``n_shared(n, overlap)`` items, and the same name always gets the same list.

    Returned in the order shown, in segment blocks: **the shared pool first**, its segments in
    the one order of the class (systems shuffled per student within a segment), then the
    student's own items in an order of their own; a segment with shared and own items is one
    block, shared items first. So any two students have judged the same outputs after the first
    few items (:func:`items_until_agreement`), whatever their pace; with the shared pool last or
    mixed in, two students who had done 9 and 8 items could share none."""
    if not 0 <= float(overlap) <= 1:
        raise ValueError(f"overlap must be between 0 and 1, not {overlap}")
    n = max(0, min(int(n), len(all_items)))
    k = n_shared(n, overlap)
    common = _blocks(all_items, _rng("shared", seed))
    shared = common[:k]
    taken = set(shared)
    rest = [it for it in all_items if it not in taken]
    own = _blocks(rest, _rng("own", seed, student))[:n - k]
    order = _rng("order", seed, student)
    by_seg: dict[str, tuple[list, list]] = {}
    for it in shared:  # the class's order of the shared segments
        by_seg.setdefault(it[1], ([], []))[0].append(it)
    own_segs = list(dict.fromkeys(g for _, g in own if g not in by_seg))
    order.shuffle(own_segs)
    for g in own_segs:
        by_seg[g] = ([], [])
    for it in own:
        by_seg[it[1]][1].append(it)
    out: list[tuple[str, str]] = []
    for mine, extra in by_seg.values():
        order.shuffle(mine)
        order.shuffle(extra)
        out += mine + extra
    return out


def items_until_agreement(all_items: Sequence[tuple[str, str]], n: int, overlap: float, seed: int,
                          need: int = 2) -> int | None:
    """How many items of :func:`assignment` every student must have done before any two of them
    have judged ``need`` outputs of one segment in common (two: one pairwise label for κ and two
    items for Krippendorff's α; for relative ranking an item is a whole screen, ``need=1``), or
    None when the shared pool has no segment with ``need`` items.

    The shared segments come first in one order; within a segment of ``s`` shared items each
    student's order is their own, so two students' first ``j`` items of it share at least
    ``2j − s`` (pigeonhole): ``j = ⌈(s + need)/2⌉`` guarantees ``need``, after the ``b`` items of
    the shared segments before it. Quality-control items are not counted."""
    n = max(0, min(int(n), len(all_items)))
    k = n_shared(n, overlap)
    sizes: dict[str, int] = {}
    for _, g in _blocks(all_items, _rng("shared", seed))[:k]:
        sizes[g] = sizes.get(g, 0) + 1
    before = 0
    for s in sizes.values():
        if s >= need:
            return before + -(-(s + need) // 2)
        before += s
    return None


def degrade(text: str, seed=0) -> str:
    """A degraded copy of ``text`` (WMT's "bad reference", Graham et al. 2013; methods §5.14): about a
    quarter of the words dropped (at least one), then a stretch of about a third of the rest
    shuffled. Deterministic for a (text, seed); always differs from ``text`` when it has two
    or more words (one word: returned unchanged — :func:`task_sequence` never picks those)."""
    words = text.split()
    if len(words) < 2:
        return text
    rng = _rng("degrade", seed, text)
    k = max(1, len(words) // 4)
    drop = set(rng.sample(range(len(words)), k))
    kept = [w for i, w in enumerate(words) if i not in drop]
    span = min(len(kept), max(2, len(kept) // 3))
    if span >= 2:
        a = rng.randrange(0, len(kept) - span + 1)
        part = kept[a:a + span]
        rng.shuffle(part)
        kept[a:a + span] = part
    return " ".join(kept)


def qc_count(n: int) -> int:
    """Quality-control items of each kind for a list of ``n`` items: one per ten, at least one
    from five items on (none below: a short list has nothing to spare)."""
    return 0 if n < 5 else max(1, n // 10)


def adaptive_items(dataset: Dataset, plan: Plan, chosen: Sequence[tuple[str, str]], protocol: str
                   ) -> list[tuple[str, str]]:
    """``chosen`` (an :func:`assignment`) in the adaptive order (methods §27): the items up to the
    last shared one as they are, then the student's own segment blocks where the class's
    judgements of ``protocol`` so far leave the order of the systems least certain
    (:func:`evalcore.analysis.adaptive.pair_block_weights`: the uncertain pairs of systems a block
    would pair, :func:`~evalcore.analysis.adaptive.order_blocks`).
    The same items: only their order changes, as the class's judgements come in."""
    from .adaptive import order_blocks, pair_block_weights

    all_items = items(dataset)
    shared = set(_blocks(all_items, _rng("shared", plan.seed))[:n_shared(min(plan.items_per_student,
                                                                              len(all_items)), plan.overlap)])
    fixed = max((i + 1 for i, it in enumerate(chosen) if it in shared), default=0)
    crit = CRITERIA[protocol]
    j = dataset.judgements
    j = j[j["judgement"] == crit]
    blocks: dict[str, list[str]] = {}
    for s, g in chosen[fixed:]:
        blocks.setdefault(str(g), []).append(str(s))
    return order_blocks(chosen, fixed, pair_block_weights(j, all_items, blocks))


def task_sequence(dataset: Dataset, plan: Plan, student: str, protocol: str = "da") -> list[Task]:
    """What ``student`` is shown, in order: the :func:`assignment` (with ``plan.adaptive``, in the
    order of :func:`adaptive_items` for ``protocol``), and with ``plan.qc`` per
    :func:`qc_count` a degraded copy and a repeat of items of that list (outputs of four or
    more words), each placed a few positions after its original (deterministic per student)."""
    texts = dataset.sys_texts()
    pos = {str(s): i for i, s in enumerate(dataset.seg_ids)}
    chosen = assignment(items(dataset), plan.items_per_student, plan.overlap, plan.seed, student)
    if plan.adaptive and protocol != "rank":
        chosen = adaptive_items(dataset, plan, chosen, protocol)
    seq = [Task("item", s, g, cast(str, texts[s][pos[g]])) for s, g in chosen]  # items() have outputs
    if not plan.qc:
        return seq
    rng = _rng("qc", plan.seed, student)
    k = qc_count(len(seq))
    fit = [i for i, t in enumerate(seq) if len(t.text.split()) >= 4]
    picks = rng.sample(fit, min(len(fit), 2 * k))
    extra = []  # (position after which to insert, task)
    for j, i in enumerate(picks):
        t = seq[i]
        if j % 2 == 0:
            extra.append((i, Task("bad_copy", t.system, t.seg_id, degrade(t.text, (plan.seed, student)))))
        else:
            extra.append((i, Task("repeat", t.system, t.seg_id, t.text)))
    out = list(seq)
    for i, task in sorted(extra, key=lambda e: -e[0]):
        at = min(len(out), i + 1 + rng.randrange(1, 4))
        out.insert(at, task)
    return out


# --------------------------------------------------------------------------- reading
def plan_of(dataset: Dataset) -> Plan:
    """The plan saved with the dataset, or the defaults."""
    t = dataset.extras.get(PLAN_EXTRA)
    if t is None or not len(t):
        return Plan()
    kv = dict(zip(t["key"].astype(str), t["value"].astype(str)))
    d = Plan()
    try:
        return Plan(items_per_student=int(kv.get("items_per_student", d.items_per_student)),
                    overlap=float(kv.get("overlap", d.overlap)), qc=kv.get("qc", "1") == "1",
                    show_reference=kv.get("show_reference", "1") == "1", seed=int(kv.get("seed", d.seed)),
                    rank_outputs=int(kv.get("rank_outputs", d.rank_outputs)),
                    adaptive=kv.get("adaptive", "0") == "1")
    except ValueError:
        return d


def log_of(dataset: Dataset) -> pd.DataFrame:
    """Every class save of the dataset (the ``annotation_log`` table, score as float)."""
    t = dataset.extras.get(LOG_EXTRA)
    if t is None:
        return pd.DataFrame({c: pd.Series(dtype="float64" if c == "score" else "object") for c in LOG_COLUMNS})
    t = t[[c for c in LOG_COLUMNS if c in t]].copy()
    t["score"] = pd.to_numeric(t["score"], errors="coerce")
    return t.reset_index(drop=True)


def done_keys(dataset: Dataset, rater: str, protocol: str) -> set[tuple[str, str, str]]:
    """(kind, system, seg_id) already saved by ``rater`` under ``protocol``."""
    log = log_of(dataset)
    mine = log[(log["rater"] == rater) & (log["protocol"] == protocol)]
    return set(zip(mine["kind"], mine["system"], mine["seg_id"]))


def rank_choice(dataset: Dataset, k: int, seed: int) -> dict[str, tuple[str, ...]]:
    """Per segment with two or more non-empty outputs, the ``k`` systems (fewer when it has fewer)
    that every student ranks on that segment's screen: drawn by a generator seeded by (``seed``,
    segment), so every student who gets the segment ranks the same outputs (their rankings can be
    compared); in the dataset's system order."""
    if not MIN_RANK_OUTPUTS <= int(k) <= MAX_RANK_OUTPUTS:
        raise ValueError(f"a ranking screen shows {MIN_RANK_OUTPUTS} to {MAX_RANK_OUTPUTS} outputs, not {k}")
    texts = dataset.sys_texts()
    out = {}
    for i, seg in enumerate(dataset.seg_ids):
        avail = [s for s in dataset.systems if isinstance(t := texts[s][i], str) and t.strip()]
        if len(avail) >= MIN_RANK_OUTPUTS:
            pick = set(_rng("rank", seed, seg).sample(avail, min(int(k), len(avail))))
            out[str(seg)] = tuple(s for s in avail if s in pick)
    return out


def adaptive_screens(dataset: Dataset, plan: Plan, chosen: Sequence[tuple[str, str]],
                     choice: dict[str, tuple[str, ...]]) -> list[tuple[str, str]]:
    """Ranking screens (``chosen``: ("", seg_id) of :func:`assignment`) in the adaptive order
    (methods §27): the screens up to the last shared one as they are, then the student's own
    screens in descending :func:`evalcore.analysis.adaptive.pair_block_weights` of their systems
    (``choice``), on the class's rankings so far read as scores = −rank (lower rank is better;
    within a screen only the order counts, and the fit's segment effect takes each screen's
    mean). The same screens: only their order changes."""
    from .adaptive import order_blocks, pair_block_weights

    all_items = [("", g) for g in choice]
    shared = set(_blocks(all_items, _rng("shared", plan.seed))[:n_shared(min(plan.items_per_student,
                                                                              len(all_items)), plan.overlap)])
    fixed = max((i + 1 for i, it in enumerate(chosen) if it in shared), default=0)
    j = dataset.judgements
    j = j[j["judgement"] == CRITERIA["rank"]]
    j = j.assign(score=-j["score"])
    population = [(s, g) for g, systems in choice.items() for s in systems]
    blocks = {str(g): list(choice[str(g)]) for _, g in chosen[fixed:]}
    return order_blocks(chosen, fixed, pair_block_weights(j, population, blocks))


def rank_sequence(dataset: Dataset, plan: Plan, student: str) -> list[RankTask]:
    """The ranking screens of ``student``: ``plan.items_per_student`` segments chosen by
    :func:`assignment` with ``plan.overlap`` (a shared pool every student ranks, the rest per
    student), each showing the outputs of :func:`rank_choice` in an order shuffled per student and
    segment (no position bias shared by the class).

    With ``plan.qc``, as :func:`task_sequence` does for scores (:func:`qc_count` of each kind, each
    placed one to three screens after its original; methods §5.14): a ``bad_copy`` screen — an
    item screen with a degraded copy (:func:`degrade`) of one of its outputs of four or more
    words added, or, on a screen of :data:`MAX_RANK_OUTPUTS`, put in place of another output —
    and a ``repeat`` screen — an item screen again, its outputs shuffled again."""
    choice = rank_choice(dataset, plan.rank_outputs, plan.seed)
    texts = dataset.sys_texts()
    pos = {str(s): i for i, s in enumerate(dataset.seg_ids)}
    out = []
    chosen = assignment([("", g) for g in choice], plan.items_per_student, plan.overlap, plan.seed, student)
    if plan.adaptive:
        chosen = adaptive_screens(dataset, plan, chosen, choice)
    for _, seg in chosen:
        systems = list(choice[seg])
        _rng("rank-order", plan.seed, student, seg).shuffle(systems)
        # rank_choice picks outputs that exist
        out.append(RankTask(seg, tuple(systems), tuple(cast(str, texts[s][pos[seg]]) for s in systems)))
    if not plan.qc:
        return out
    rng = _rng("rank-qc", plan.seed, student)
    k = qc_count(len(out))
    fit = [i for i, t in enumerate(out) if any(len(x.split()) >= 4 for x in t.texts)]
    picks = rng.sample(fit, min(len(fit), 2 * k))
    extra = []  # (position after which to insert, screen)
    for j, i in enumerate(picks):
        t = out[i]
        shown = list(zip(t.systems, t.texts, [False] * len(t.systems)))
        if j % 2 == 0:
            x = rng.choice([n for n, txt in enumerate(t.texts) if len(txt.split()) >= 4])
            bad = (t.systems[x], degrade(t.texts[x], (plan.seed, student)), True)
            if len(shown) < MAX_RANK_OUTPUTS:
                shown.append(bad)
            else:  # a full screen: the copy takes another output's place
                shown[rng.choice([n for n in range(len(shown)) if n != x])] = bad
        rng.shuffle(shown)
        deg = next((n for n, e in enumerate(shown) if e[2]), -1)
        extra.append((i, RankTask(t.seg_id, tuple(e[0] for e in shown), tuple(e[1] for e in shown),
                                  "bad_copy" if j % 2 == 0 else "repeat", deg)))
    for i, task in sorted(extra, key=lambda e: -e[0]):
        at = min(len(out), i + 1 + rng.randrange(1, 4))
        out.insert(at, task)
    return out


def sequence(dataset: Dataset, plan: Plan, student: str, protocol: str) -> list:
    """The student's tasks under ``protocol``: :func:`rank_sequence` for ``rank``, else :func:`task_sequence`."""
    return rank_sequence(dataset, plan, student) if protocol == "rank" else task_sequence(dataset, plan, student,
                                                                                           protocol)


def agreement_after(dataset: Dataset, plan: Plan, protocol: str) -> int | None:
    """:func:`items_until_agreement` for ``protocol`` under ``plan``: items (outputs; for
    relative ranking screens) every student does before any two can be compared."""
    if protocol == "rank":
        segs = [("", g) for g in rank_choice(dataset, plan.rank_outputs, plan.seed)]
        return items_until_agreement(segs, plan.items_per_student, plan.overlap, plan.seed, need=1)
    return items_until_agreement(items(dataset), plan.items_per_student, plan.overlap, plan.seed)


@dataclass(frozen=True)
class Progress:
    """Where a student stands under the plan in force (:func:`progress`): ``done`` tasks saved,
    ``todo`` the tasks left in the order shown, ``total`` = done + left."""
    done: int
    todo: tuple
    total: int


def _unit(kind: str, system: str, seg_id: str, protocol: str) -> tuple:
    """What makes a task done: (kind, system, segment); for relative ranking (kind, segment)
    (a screen is one segment's; which outputs it shows depends on the plan)."""
    return (kind, str(seg_id)) if protocol == "rank" else (kind, str(system), str(seg_id))


def progress(dataset: Dataset, plan: Plan, rater: str, protocol: str) -> Progress:
    """The one count of a student's progress, shared by the Annotate and Class pages.

    Every task ``rater`` saved under ``protocol`` (the annotation log) stays done whatever the
    plan says now: a change of overlap, seed, items per student or screen size changes what is
    still to do, never what was done. What is left: the plan's :func:`sequence` without the saved
    tasks, its items cut to the plan's number of items less the items already saved (so the
    student's items number ``items_per_student``, or what they saved if more), and its quality-
    control tasks of each kind cut to the plan's count less those saved, kept only when their
    original is among the student's items. A relative-ranking screen counts as done for its
    segment (the plan's choice of outputs may have changed since)."""
    seq = sequence(dataset, plan, rater, protocol)
    log = log_of(dataset)
    mine = log[(log["rater"] == rater) & (log["protocol"] == protocol)]
    done = {_unit(k, s, g, protocol) for k, s, g in zip(mine["kind"], mine["system"], mine["seg_id"])}

    def origin(u: tuple) -> tuple:
        return u[1:]

    units = [_unit(t.kind, t.system, t.seg_id, protocol) for t in seq]
    budget = {kind: sum(t.kind == kind for t in seq) - sum(u[0] == kind for u in done) for kind in KINDS}
    have = {origin(u) for u in done if u[0] == "item"}
    todo = []
    for t, u in zip(seq, units):  # items first: the quality-control tasks need their original kept
        if t.kind == "item" and u not in done and budget["item"] > 0:
            budget["item"] -= 1
            have.add(origin(u))
            todo.append(t)
    keep = {id(t) for t in todo}
    for t, u in zip(seq, units):
        if t.kind != "item" and u not in done and origin(u) in have and budget[t.kind] > 0:
            budget[t.kind] -= 1
            keep.add(id(t))
    left = tuple(t for t in seq if id(t) in keep)
    return Progress(len(done), left, len(done) + len(left))


def next_task(dataset: Dataset, plan: Plan, rater: str, protocol: str) -> tuple:
    """(the first task left or None when all are done, tasks done, tasks in all) by
    :func:`progress`: a :class:`Task`, or a :class:`RankTask` for ``protocol="rank"``."""
    p = progress(dataset, plan, rater, protocol)
    return (p.todo[0] if p.todo else None), p.done, p.total


# --------------------------------------------------------------------------- validation
def check_spans(spans, text: str) -> list[dict]:
    """ESA spans as stored (:mod:`evalcore.io.spans`: character offsets into ``text``, end
    exclusive, severity minor/major, ``error_type`` null), or ``ValueError`` naming every bad span."""
    out: list[dict[str, Any]] = []
    bad: list[str] = []
    for k, sp in enumerate(spans or [], start=1):
        a, b, sev = sp.get("start_i"), sp.get("end_i"), str(sp.get("severity", "")).lower()
        if sev not in ESA_SEVERITIES:
            bad.append(f"span {k}: severity must be minor or major, not {sp.get('severity')!r}")
        elif a == "missing" and b == "missing":
            out.append({"start_i": "missing", "end_i": "missing", "severity": sev, "error_type": None})
        elif type(a) is not int or type(b) is not int or not 0 <= a < b <= len(text):
            bad.append(f"span {k}: [{a}, {b}) is not a span of the {len(text)}-character output")
        else:
            out.append({"start_i": a, "end_i": b, "severity": sev, "error_type": None})
    if bad:
        raise ValueError("; ".join(bad))
    return out


def check_mqm_spans(spans, text: str) -> list[dict]:
    """MQM-lite errors as stored: ``start_i``/``end_i`` (character offsets into ``text``, end
    exclusive, as ESA's), ``severity`` (minor/major, lower case) and ``category`` (one of
    :data:`MQM_CATEGORIES`; Non-translation only as major, as in Freitag et al. 2021), or
    ``ValueError`` naming every bad error."""
    out: list[dict[str, Any]] = []
    bad: list[str] = []
    for k, sp in enumerate(spans or [], start=1):
        a, b, sev = sp.get("start_i"), sp.get("end_i"), str(sp.get("severity", "")).lower()
        cat = sp.get("category")
        if sev not in MQM_SEVERITIES:
            bad.append(f"error {k}: severity must be minor or major, not {sp.get('severity')!r}")
        elif cat not in MQM_CATEGORIES:
            bad.append(f"error {k}: category must be one of {', '.join(MQM_CATEGORIES)}, not {cat!r}")
        elif cat == "Non-translation" and sev != "major":
            bad.append(f"error {k}: a non-translation is always a major error")
        elif type(a) is not int or type(b) is not int or not 0 <= a < b <= len(text):
            bad.append(f"error {k}: [{a}, {b}) is not a span of the {len(text)}-character output")
        else:
            out.append({"start_i": a, "end_i": b, "severity": sev, "category": cat})
    if bad:
        raise ValueError("; ".join(bad))
    return out


def mqm_error_rows(system: str, seg_id: str, rater: str, text: str, errors: Sequence[dict]) -> list[dict]:
    """The rows of :data:`MQM_EXTRA` for one judged output (checked errors of
    :func:`check_mqm_spans`): one per error with the columns of the experts' MQM error table
    (category, severity, weight, span_in ``target``, span_start, span_end, span_text; every
    value text), or one ``No-error`` row when there is none (MQM's "rated, nothing found")."""
    from ..human.mqm import mqm_error_weight

    key = {"system": system, "seg_id": seg_id, "rater": rater}
    if not errors:
        return [{**key, "category": "No-error", "severity": "no-error", "weight": "0.0", "span_in": "",
                 "span_start": "", "span_end": "", "span_text": ""}]
    return [{**key, "category": e["category"], "severity": e["severity"],
             "weight": repr(float(mqm_error_weight(e["category"], e["severity"]) or 0.0)), "span_in": "target",
             "span_start": str(e["start_i"]), "span_end": str(e["end_i"]), "span_text": text[e["start_i"]:e["end_i"]]}
            for e in errors]


def mqm_lite_score(errors: Sequence[dict]) -> float:
    """The MQM score of one output's errors: the project's one MQM scorer
    (:func:`evalcore.human.mqm.mqm_scores`, Freitag et al. 2021 §3.3; methods §5.7) with its
    default weights — minor 1, major 5, major Non-translation 25 — so 0 without errors and
    −(Σ weights) otherwise (higher is better)."""
    from ..human.mqm import mqm_scores

    rows = pd.DataFrame(mqm_error_rows("s", "1", "r", "", [{**e, "start_i": 0, "end_i": 0} for e in errors]))
    return float(mqm_scores(rows)["score"].iloc[0])


def word_offsets(text: str) -> list[tuple[int, int]]:
    """Character [start, end) of each whitespace-separated word of ``text``."""
    out, i = [], 0
    for w in text.split():
        a = text.index(w, i)
        out.append((a, a + len(w)))
        i = a + len(w)
    return out


def unit_offsets(text: str) -> list[tuple[int, int]]:
    """Character [start, end) of each unit a student can mark: whitespace-separated words, and in
    scripts written without spaces each character (grapheme) of that script
    (:func:`evalcore.analysis.text_units.mark_units`): a span built from them never cuts a
    character, in any script."""
    from .text_units import mark_units

    return mark_units(text)


def words_to_span(text: str, first: int, last: int, severity: str) -> dict:
    """The ESA span covering units ``first``..``last`` (0-based, inclusive; :func:`unit_offsets`:
    words, or characters of scripts written without spaces) of ``text``."""
    off = unit_offsets(text)
    if not 0 <= first <= last < len(off):
        raise ValueError(f"words {first + 1}-{last + 1}: the output has {len(off)} words")
    return {"start_i": off[first][0], "end_i": off[last][1], "severity": severity, "error_type": None}


# --------------------------------------------------------------------------- writing
_with = journal.with_tables
_replace = journal.with_pair


def _has_outputs(ds: Dataset, systems: Sequence[str], seg_id: str) -> bool:
    """Whether ``ds`` has an output of every system of ``systems`` for segment ``seg_id``
    (vectorised: a save checks this on every call)."""
    out = ds.outputs
    hit = out.loc[out["seg_id"].astype(str).to_numpy() == str(seg_id), "system"]
    return set(systems) <= set(hit.astype(str))


def save_plan(name: str, lp: str, plan: Plan) -> str:
    """Store the teacher's :class:`Plan` with language pair ``lp`` of the saved dataset ``name``."""
    from ..io import workspace

    if not 0 <= plan.overlap <= 1 or plan.items_per_student < 1:
        raise ValueError("items per student must be at least 1 and overlap between 0 and 1")
    if not MIN_RANK_OUTPUTS <= plan.rank_outputs <= MAX_RANK_OUTPUTS:
        raise ValueError(f"a ranking screen shows {MIN_RANK_OUTPUTS} to {MAX_RANK_OUTPUTS} outputs, "
                         f"not {plan.rank_outputs}")

    def change(coll):
        if lp not in coll:
            raise ValueError(f"the saved dataset {name!r} has no language pair {lp!r}")
        return _replace(coll, lp, _with(coll[lp], extras={PLAN_EXTRA: plan.to_frame()}))

    return workspace.update(name, change)


def save_judgement(name: str, lp: str, rater: str, protocol: str, task: Task, score: float | None,
                   spans: Sequence[dict] | None = None) -> str:
    """Append one judgement of ``task`` by ``rater`` to the saved dataset ``name`` (language pair
    ``lp``) and return the stored name; raises ``ValueError`` (bad rater name, protocol, score or
    span, unknown output, a task this rater already saved) before anything is written. MQM-lite
    (``protocol="mqm"``): ``spans`` are the errors (:func:`check_mqm_spans`) and the score is
    computed from them (:func:`mqm_lite_score`); ``score`` is None or that same value.

    Under the dataset's lock (:func:`evalcore.io.workspace.append`) the newest version is loaded and
    checked, then the rows — a log row always; for an ``item`` also the judgement row (criterion
    :data:`CRITERIA` [protocol]) and, for ESA, the spans row, for MQM-lite the error rows
    (:func:`mqm_error_rows`) — are appended to the rater's own
    journal file (:mod:`evalcore.io.journal`): the rest of the dataset is not rewritten, and
    another rater's rows are never touched."""
    from ..io import workspace

    rater = check_rater(rater)
    if protocol not in CRITERIA:
        raise ValueError(f"unknown protocol {protocol!r}; known: {', '.join(PROTOCOLS)}")
    if protocol == "rank":
        raise ValueError("a ranking is saved with save_ranking")
    if task.kind not in KINDS:
        raise ValueError(f"unknown task kind {task.kind!r}")
    if protocol != "mqm":
        if score is None:
            raise ValueError(f"the score must be a number from 0 to 100, not {score!r}")
        try:
            score = float(score)
        except (TypeError, ValueError):
            raise ValueError(f"the score must be a number from 0 to 100, not {score!r}") from None
        if not (math.isfinite(score) and 0 <= score <= 100):
            raise ValueError(f"the score must be a number from 0 to 100, not {score!r}")
    spans_json = mqm_json = ""
    errors: list[dict] = []
    if protocol == "esa":
        spans_json = json.dumps(check_spans(spans, task.text), ensure_ascii=False)
    elif protocol == "mqm":
        errors = check_mqm_spans(spans, task.text)
        mqm_json = json.dumps(errors, ensure_ascii=False)
        computed = mqm_lite_score(errors)
        if score is not None and float(score) != computed:
            raise ValueError(f"an MQM-lite score is computed from the errors ({computed:g}), not chosen: "
                             f"{score!r} differs")
        score = computed
    elif spans:
        raise ValueError("error spans belong to ESA and MQM-lite; DA has a score only")

    def check(coll):
        if lp not in coll:
            raise ValueError(f"the saved dataset {name!r} has no language pair {lp!r}")
        ds = coll[lp]
        if not _has_outputs(ds, [task.system], task.seg_id):
            raise ValueError(f"no output of system {task.system!r} for segment {task.seg_id!r} in {name!r}")
        if (task.kind, task.system, task.seg_id) in done_keys(ds, rater, protocol):
            raise ValueError(f"{rater} has already saved this {task.kind.replace('_', ' ')} "
                             f"({task.system}, segment {task.seg_id}) under {protocol.upper()}")

    rows: dict[str, list[dict]] = {LOG_EXTRA: [{
        "rater": rater, "protocol": protocol, "kind": task.kind, "system": task.system,
        "seg_id": task.seg_id, "score": repr(score), "esa_spans_json": spans_json,
        "shown_text": task.text if task.kind == "bad_copy" else "",
        "saved_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        **({"mqm_errors_json": mqm_json} if protocol == "mqm" else {})}]}
    if task.kind == "item":
        rows["judgements"] = [{"system": task.system, "seg_id": task.seg_id, "rater": rater,
                               "judgement": CRITERIA[protocol], "score": score}]
        if protocol == "esa":
            rows[ESA_EXTRA] = [{"system": task.system, "seg_id": task.seg_id, "rater": rater,
                                "esa_spans_json": spans_json, "file": "annotation_log", "line": ""}]
        elif protocol == "mqm":
            rows[MQM_EXTRA] = mqm_error_rows(task.system, task.seg_id, rater, task.text, errors)
    return workspace.append(name, rater, lp, rows, check)


def check_ranks(ranks, n: int) -> list[int]:
    """The ranks of the ``n`` outputs of a screen as stored (1 = best; ties allowed, as in WMT's
    relative ranking: two outputs may share a rank), or ``ValueError`` naming every bad one."""
    ranks = list(ranks or [])
    if len(ranks) != n:
        raise ValueError(f"give a rank to each of the {n} outputs, not {len(ranks)}")
    bad = [f"output {k}: {r!r}" for k, r in enumerate(ranks, start=1)
           if isinstance(r, bool) or not isinstance(r, (int, np.integer)) or not 1 <= r <= n]
    if bad:
        raise ValueError(f"ranks are whole numbers from 1 (best) to {n}: {'; '.join(bad)}")
    return [int(r) for r in ranks]


def save_ranking(name: str, lp: str, rater: str, task: RankTask, ranks: Sequence[int]) -> str:
    """Append one relative ranking (Callison-Burch et al. 2009 §3: the outputs of one segment
    ranked against each other, ties allowed) by ``rater`` to the saved dataset ``name`` and return
    the stored name; ``ranks[i]`` is the rank of ``task.systems[i]`` (1 = best). Raises
    ``ValueError`` (bad rater name or ranks, unknown output, a screen this rater already saved)
    before anything is written.

    Saved as the project's ranking judgements: one judgement row per output, criterion
    ``class_rank``, score = its rank (lower is better, as ranks are on the Judges page with
    *lower is better*), one screen per (rater, segment); and one ``annotation_log`` row
    (system: :attr:`RankTask.system`, ``ranks_json``: system -> rank of its own output). A
    quality-control screen (``bad_copy``, ``repeat``) is that log row only, as a DA one: for a
    ``bad_copy`` the row's score is the rank given to the degraded copy and ``shown_text`` its
    text. Appended to the rater's journal as :func:`save_judgement` does."""
    from ..io import workspace

    rater = check_rater(rater)
    ranks = check_ranks(ranks, len(task.systems))
    if task.kind not in KINDS:
        raise ValueError(f"unknown task kind {task.kind!r}")
    if (task.kind == "bad_copy") != (0 <= task.degraded < len(task.systems)):
        raise ValueError("a degraded-copy screen (and only it) shows one degraded copy of an output on it")
    real = [task.systems[i] for i in task.real()]
    if len(set(real)) != len(real) or len(task.systems) < MIN_RANK_OUTPUTS or (
            task.kind == "bad_copy" and task.systems[task.degraded] not in real):
        raise ValueError("a ranking screen shows two or more different outputs")

    def check(coll):
        if lp not in coll:
            raise ValueError(f"the saved dataset {name!r} has no language pair {lp!r}")
        ds = coll[lp]
        missing = [s for s in dict.fromkeys(task.systems) if not _has_outputs(ds, [s], task.seg_id)]
        if missing:
            raise ValueError(f"no output of system(s) {', '.join(map(repr, missing))} for segment "
                             f"{task.seg_id!r} in {name!r}")
        if (task.kind, task.system, task.seg_id) in done_keys(ds, rater, "rank"):
            what = "these outputs" if task.kind == "item" else f"this {task.kind.replace('_', ' ')} screen"
            raise ValueError(f"{rater} has already ranked {what} of segment {task.seg_id}")

    bad = task.kind == "bad_copy"
    rows: dict[str, list[dict]] = {
        LOG_EXTRA: [{"rater": rater, "protocol": "rank", "kind": task.kind, "system": task.system,
                     "seg_id": task.seg_id, "score": repr(float(ranks[task.degraded])) if bad else "",
                     "esa_spans_json": "", "shown_text": task.texts[task.degraded] if bad else "",
                     "saved_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                     "ranks_json": json.dumps({task.systems[i]: ranks[i] for i in task.real()}, ensure_ascii=False)}]}
    if task.kind == "item":  # quality-control screens live only in the log
        rows["judgements"] = [{"system": s, "seg_id": task.seg_id, "rater": rater, "judgement": CRITERIA["rank"],
                               "score": float(r)} for s, r in zip(task.systems, ranks)]
    return workspace.append(name, rater, lp, rows, check)


# --------------------------------------------------------------------------- reports
def class_raters(dataset: Dataset) -> list[str]:
    """The raters of the class (those with a row in the annotation log), in order of first save."""
    return list(dict.fromkeys(log_of(dataset)["rater"]))


def progress_table(dataset: Dataset) -> pd.DataFrame:
    """Per (rater, protocol): tasks saved, tasks in all under the saved plan (both by
    :func:`progress`, as the Annotate page counts), the share done, and when they last saved."""
    log = log_of(dataset)
    plan = plan_of(dataset)
    rows = []
    for key, g in log.groupby(["rater", "protocol"], sort=False):
        rater, protocol = cast("tuple[str, str]", key)  # the log's two string columns
        p = progress(dataset, plan, rater, protocol)  # the Annotate page's count
        done, total = p.done, p.total
        rows.append({"rater": rater, "protocol": protocol, "saved": done, "assigned": total,
                     "done": done / total if total else float("nan"), "last_save": g["saved_at"].max()})
    return pd.DataFrame(rows, columns=["rater", "protocol", "saved", "assigned", "done", "last_save"])


def qc_report(log: pd.DataFrame, tolerance: float = REPEAT_TOLERANCE) -> pd.DataFrame:
    """Per (rater, protocol) quality control (Graham et al. 2013; WMT DA; methods §5.14):

    * ``n_bad``: degraded copies whose original the rater also scored; ``bad_lower``: how many
      scored strictly lower than their original; ``p_bad``: one-sided sign test that degraded
      copies score lower (ties left out; a simple stand-in for the Wilcoxon test of Graham et
      al.; NaN without a non-tied pair);
    * ``n_repeat``: repeats with their first judgement; ``repeat_consistent``: within
      ``tolerance`` points of it; ``repeat_mad``: their mean absolute difference;
    * ``passed``: every degraded copy lower and every repeat consistent (None when nothing to check).
    """
    from scipy.stats import binomtest

    cols = ["rater", "protocol", "n_bad", "bad_lower", "p_bad", "n_repeat", "repeat_consistent", "repeat_mad",
            "passed"]
    rows = []
    for (rater, protocol), g in log.groupby(["rater", "protocol"], sort=False):
        orig = g[g["kind"] == "item"].groupby(["system", "seg_id"])["score"].first()
        bad = g[g["kind"] == "bad_copy"]
        rep = g[g["kind"] == "repeat"]
        pb = [(float(orig[k]), float(s)) for k, s in zip(zip(bad["system"], bad["seg_id"]), bad["score"]) if k in orig]
        pr = [(float(orig[k]), float(s)) for k, s in zip(zip(rep["system"], rep["seg_id"]), rep["score"]) if k in orig]
        lower = sum(b < o for o, b in pb)
        higher = sum(b > o for o, b in pb)
        p = binomtest(lower, lower + higher, 0.5, alternative="greater").pvalue if lower + higher else float("nan")
        consistent = sum(abs(o - r) <= tolerance for o, r in pr)
        mad = float(np.mean([abs(o - r) for o, r in pr])) if pr else float("nan")
        passed = None if not pb and not pr else (lower == len(pb) and consistent == len(pr))
        rows.append({"rater": rater, "protocol": protocol, "n_bad": len(pb), "bad_lower": lower, "p_bad": p,
                     "n_repeat": len(pr), "repeat_consistent": consistent, "repeat_mad": mad, "passed": passed})
    return pd.DataFrame(rows, columns=cols)


def rank_pair_labels(ranks: dict) -> dict[tuple[str, str], str]:
    """The pairwise labels of one ranking (``ranks``: system -> rank, 1 = best): for every pair of
    systems (a, b) with a < b by name, ``>`` when a is ranked better (a lower rank number), ``<``
    when worse, ``=`` when tied (Callison-Burch 2009 §4: A > B, A < B, A = B; methods §5.3)."""
    out = {}
    for a, b in itertools.combinations(sorted(ranks), 2):
        ra, rb = float(ranks[a]), float(ranks[b])
        out[(a, b)] = ">" if ra < rb else "<" if ra > rb else "="
    return out


def rank_qc_report(log: pd.DataFrame) -> pd.DataFrame:
    """Per (rater, protocol) quality control of ranking screens (methods §5.14), from the
    ``rank`` rows of the annotation log:

    * ``n_bad``: degraded-copy screens; ``bad_worse``: how many have the degraded copy ranked
      strictly worse (a larger rank number) than its original on the same screen — a tie is a
      fail; ``p_bad``: one-sided sign test that copies are ranked worse (ties left out; NaN
      without an untied screen), as :func:`qc_report`;
    * ``n_repeat``: repeat screens whose first screen the rater also ranked; ``repeat_pairs``:
      the pairs of outputs on them; ``repeat_p_agree``: the share of those pairs ordered the same
      way on both screens (``>``, ``<`` or ``=``: a tie agrees only with a tie; :func:`rank_pair_labels`);
      ``repeat_consistent``: repeats with at least :data:`RANK_REPEAT_AGREEMENT` of their pairs
      agreeing; ``intra_kappa``: the intra-annotator κ = (P(A) − 1/3)/(1 − 1/3) over those pairs
      (:func:`evalcore.human.agreement.agreement`, ``intra``, P(E) = 1/3: the κ of Callison-Burch
      2009 §4, computed on one rater's two rankings of a screen as WMT's intra-annotator agreement);
    * ``passed``: every degraded copy ranked worse and every repeat consistent (None when nothing
      to check)."""
    from scipy.stats import binomtest

    from ..human.agreement import agreement, pairwise_labels

    cols = ["rater", "protocol", "n_bad", "bad_worse", "p_bad", "n_repeat", "repeat_consistent", "repeat_pairs",
            "repeat_p_agree", "intra_kappa", "passed"]
    rows = []
    for (rater, protocol), g in log.groupby(["rater", "protocol"], sort=False):
        ranks = [json.loads(x) if isinstance(x, str) and x else {} for x in g["ranks_json"]]
        first: dict = {}
        for kind, system, seg, rk in zip(g["kind"], g["system"], g["seg_id"], ranks):
            if kind == "item":
                first.setdefault((system, seg), rk)
        worse = better = n_bad = 0
        for kind, system, score, rk in zip(g["kind"], g["system"], g["score"], ranks):
            if kind == "bad_copy" and system in rk and score == score:
                n_bad += 1
                worse += float(score) > float(rk[system])
                better += float(score) < float(rk[system])
        p = binomtest(worse, worse + better, 0.5, alternative="greater").pvalue if worse + better else float("nan")
        n_rep = consistent = agree = pairs = 0
        screens = []
        for kind, system, seg, rk in zip(g["kind"], g["system"], g["seg_id"], ranks):
            if kind != "repeat" or (system, seg) not in first:
                continue
            a, b = rank_pair_labels(first[(system, seg)]), rank_pair_labels(rk)
            same = sum(a[k] == b.get(k) for k in a)
            n_rep += 1
            pairs += len(a)
            agree += same
            consistent += bool(a) and same / len(a) >= RANK_REPEAT_AGREEMENT - 1e-12
            for screen, r in (("first", first[(system, seg)]), ("repeat", rk)):
                screens += [{"judgement": "class_rank", "rater": rater, "seg_id": seg, "system": s,
                             "score": float(v), "screen": f"{screen}:{system}"} for s, v in r.items()]
        kappa = float("nan")
        if screens:
            kappa = agreement(pairwise_labels(pd.DataFrame(screens), higher_is_better=False, screen_col="screen"),
                              "intra")["kappa"]
        passed = None if not n_bad and not n_rep else (worse == n_bad and consistent == n_rep)
        rows.append({"rater": rater, "protocol": protocol, "n_bad": n_bad, "bad_worse": worse, "p_bad": p,
                     "n_repeat": n_rep, "repeat_consistent": consistent, "repeat_pairs": pairs,
                     "repeat_p_agree": agree / pairs if pairs else float("nan"), "intra_kappa": kappa,
                     "passed": passed})
    return pd.DataFrame(rows, columns=cols)
