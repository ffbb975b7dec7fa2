"""The metric-detective lab: break real translations on purpose and see which metrics notice
(docs/methods.md §12; docs/teaching.md, "The metric-detective lab").

Each *perturbation family* (:data:`FAMILIES`) turns an output into a worse one in one known way
(copy the source, omit a clause, insert a hallucinated phrase, change a number, negate, swap two
named entities, shuffle the word order, leave a word untranslated, repeat a stretch) or into one
that differs in punctuation and casing only. The idea is that of challenge sets and
perturbation checks of metrics (Sai et al. 2021, "Perturbation CheckLists for Evaluating NLG
Evaluation Metrics", EMNLP; Amrhein, Moghe & Guillou 2022, "ACES: Translation Accuracy Challenge
Sets for Evaluating Machine Translation Metrics", WMT): a metric that does not lower its score
for a wrong translation has been fooled.

* Every family is deterministic for a (seed, system, segment) (a generator seeded by SHA-256);
  language-aware where it must be (negation, hallucinated phrases, scripts written without
  spaces). A family that cannot apply to an output (no number to change, no negation rule for
  the language, one clause only, ...) skips it and says why: :func:`perturb` returns the reason,
  :func:`perturb_outputs` keeps a row per skipped output, :func:`skip_counts` counts them.
* A metric *catches* a perturbed output when its score, oriented so that higher is better
  (:meth:`evalcore.scoring.settings.Settings.orient`: TER negated), drops by more than Δ:
  ``orient(score(original)) − orient(score(perturbed)) > Δ``, both against the same references.
  The catch rate of (family, metric) is the share of the outputs the family applied to that the
  metric catches (:func:`catch_table`: columns ``perturbation, metric, catch_rate, n``).
* Δ, the drop humans notice: :func:`delta_for` — a calibrated value when one is given (the hook
  for ``calibrate``'s Δ80), else the stated default of the metric's scale (:data:`DEFAULT_DELTAS`:
  1 point on sacreBLEU's 0–100 scale, 1 % of the range of the others).

For ``punctuation_casing`` the meaning is kept: there a "catch" is a false alarm, and a low rate is
the good one (:data:`MEANING_KEPT`).

Nothing here imports streamlit.
"""
from __future__ import annotations

import hashlib
import random
import re
import unicodedata
from dataclasses import dataclass
from typing import Callable, Mapping, Sequence, cast

import numpy as np
import pandas as pd

from ..core.dataset import Dataset
from ..scoring.settings import Settings

#: outputs drawn per dataset when no sample size is given (every family is applied to each)
DEFAULT_SAMPLE = 300
#: families whose perturbation keeps the meaning: a drop there is a false alarm
MEANING_KEPT = ("punctuation_casing",)
#: scripts written without spaces between words: their "words" are runs of two characters
NO_SPACE_LANGUAGES = ("zh", "ja", "th", "lo", "km", "my")
CATCH_COLUMNS = ["perturbation", "metric", "catch_rate", "n"]


# --------------------------------------------------------------------------- Δ
#: The default Δ per metric scale (methods §12.3): 1 point on sacreBLEU's 0–100 scale (BLEU,
#: chrF, TER: the "+1 BLEU" heuristic Kocmi et al. 2024 §1 start from), and the same 1 % of the
#: range elsewhere: NIST (0 to about 10-15 in practice) 0.1, MetricX (0-25) 0.25, every other
#: metric (0-1) 0.01. A stand-in until a calibration against humans gives the metric's own Δ.
DEFAULT_DELTAS: tuple[tuple[str, float], ...] = (
    ("bleu", 1.0), ("chrf", 1.0), ("ter", 1.0), ("nist", 0.1), ("metricx", 0.25))
OTHER_DELTA = 0.01


def delta_for(metric: str, calibrated: Mapping[str, float] | None = None) -> tuple[float, str]:
    """(Δ, where it comes from) for ``metric``: ``calibrated[metric]`` when given (the hook for
    the Δ80 that ``calibrate`` estimates from human judgements: the drop humans notice 80 % of
    the time), else the default of the metric's scale (:data:`DEFAULT_DELTAS`)."""
    if calibrated and metric in calibrated:
        value = float(calibrated[metric])
        if not np.isfinite(value) or value < 0:
            raise ValueError(f"Δ for {metric} must be a number ≥ 0, not {calibrated[metric]!r}")
        return value, "given"
    low = metric.lower()
    for prefix, value in DEFAULT_DELTAS:
        if low == prefix or low.startswith(prefix + "-") or low.startswith(prefix + "+") or low.startswith(prefix + ":"):
            return value, "default (1 % of the metric's scale)"
    return OTHER_DELTA, "default (1 % of a 0-1 scale)"


# --------------------------------------------------------------------------- text units
def _rng(*parts) -> random.Random:
    digest = hashlib.sha256("\x00".join(str(p) for p in parts).encode("utf-8")).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def graphemes(text: str) -> list[str]:
    """``text`` as user-perceived characters (:func:`evalcore.analysis.text_units.graphemes`:
    extended grapheme clusters), so no family ever cuts an accent, a conjunct or an emoji."""
    from .text_units import graphemes as clusters

    return clusters(text)


def _no_space(lang: str) -> bool:
    return lang in NO_SPACE_LANGUAGES


def units(text: str, lang: str) -> list[str]:
    """Word-like units: whitespace-separated words, or for :data:`NO_SPACE_LANGUAGES` runs of two
    non-space graphemes (no word segmenter is assumed)."""
    if not _no_space(lang):
        return text.split()
    g = [c for c in graphemes(text) if not c.isspace()]
    return ["".join(g[i:i + 2]) for i in range(0, len(g), 2)]


def _join(parts: Sequence[str], lang: str) -> str:
    return ("" if _no_space(lang) else " ").join(parts)


# --------------------------------------------------------------------------- families
@dataclass(frozen=True)
class Segment:
    """What a family sees: the output, the source, the target and source languages."""
    output: str
    source: str
    tgt: str
    src: str
    refs: tuple[str, ...] = ()


Outcome = tuple  # (perturbed text or None, reason when None)


def _norm(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def copy_source(s: Segment, rng: random.Random) -> Outcome:
    """The output replaced by the source: an untranslated output. Skipped where the output
    already is the source, or a reference is (a handle, a name, markup: nothing to translate;
    compared case-folded, spaces collapsed)."""
    if not s.source.strip():
        return None, "empty source"
    if _norm(s.source) == _norm(s.output):
        return None, "the output already is the source"
    if any(_norm(s.source) == _norm(r) for r in s.refs):
        return None, "a reference is the source (nothing to translate)"
    return s.source, ""


_CLAUSE = {"latin": re.compile(r"(?<=[,;:.!?])\s+"), "cjk": re.compile(r"(?<=[，、；：。！？,;:.!?])")}


def clauses(text: str, lang: str) -> list[str]:
    """``text`` cut after each comma, semicolon, colon or sentence end (full-width too for
    scripts without spaces); empty pieces left out."""
    pat = _CLAUSE["cjk" if _no_space(lang) else "latin"]
    return [p for p in pat.split(text) if p.strip()]


def omit_clause(s: Segment, rng: random.Random) -> Outcome:
    """One clause (:func:`clauses`) left out."""
    parts = clauses(s.output, s.tgt)
    if len(parts) < 2:
        return None, "one clause only (no comma, semicolon, colon or sentence break)"
    k = rng.randrange(len(parts))
    return _join([p.strip() for i, p in enumerate(parts) if i != k], s.tgt), ""


#: phrases that add content no source has (one is inserted), per target language
HALLUCINATIONS: dict[str, tuple[str, ...]] = {
    "en": ("according to unconfirmed reports", "and three people were injured"),
    "cs": ("podle nepotvrzených zpráv", "a tři lidé byli zraněni"),
    "de": ("laut unbestätigten Berichten", "und drei Menschen wurden verletzt"),
    "es": ("según informes no confirmados", "y tres personas resultaron heridas"),
    "fr": ("selon des rapports non confirmés", "et trois personnes ont été blessées"),
    "ru": ("по неподтверждённым данным", "и три человека получили ранения"),
    "uk": ("за непідтвердженими даними", "і троє людей отримали поранення"),
    "pl": ("według niepotwierdzonych doniesień", "a trzy osoby zostały ranne"),
    "it": ("secondo notizie non confermate", "e tre persone sono rimaste ferite"),
    "pt": ("segundo relatos não confirmados", "e três pessoas ficaram feridas"),
    "zh": ("据未经证实的报道，", "并有三人受伤，"),
    "ja": ("未確認の報道によると、", "そして三人が負傷し、"),
}


def hallucinate(s: Segment, rng: random.Random) -> Outcome:
    """A phrase of :data:`HALLUCINATIONS` inserted at a clause or word boundary."""
    phrases = HALLUCINATIONS.get(s.tgt)
    if not phrases:
        return None, f"no hallucinated phrase for language {s.tgt or '?'}"
    phrase = rng.choice(phrases)
    u = units(s.output, s.tgt)
    if not u:
        return None, "empty output"
    # at the start, the end, or after a unit that closes a clause (comma, full stop, ...)
    spots = [0] + [k + 1 for k, w in enumerate(u[:-1]) if w[-1] in ",;:.!?，、；：。！？"] + [len(u)]
    at = rng.choice(spots)
    return _join(u[:at] + [phrase] + u[at:], s.tgt), ""


_NUMBER = re.compile(r"[0-9０-９]+")


def change_number(s: Segment, rng: random.Random) -> Outcome:
    """One number of the output replaced by another (n + 1 … n + 9; digits kept ASCII)."""
    found = list(_NUMBER.finditer(s.output))
    if not found:
        return None, "no number"
    m = rng.choice(found)
    value = int(unicodedata.normalize("NFKC", m.group()))
    return s.output[:m.start()] + str(value + rng.randint(1, 9)) + s.output[m.end():], ""


def _words(table: Mapping[str, str]) -> tuple[re.Pattern, Mapping[str, str]]:
    return re.compile(r"(?<!\w)(" + "|".join(sorted(map(re.escape, table), key=len, reverse=True)) + r")(?!\w)",
                      re.IGNORECASE), table


#: negation rules per target language: a regex and what a match becomes
_NEG_AUX = {
    "en": (re.compile(r"\b(is|are|was|were|has|have|had|can|could|will|would|should|must|does|do|did)\b(?! not)",
                      re.IGNORECASE), lambda m: m.group(1) + " not"),
    "de": (re.compile(r"\b(ist|sind|war|waren|wird|werden|kann|können|hat|haben)\b(?! nicht)"),
           lambda m: m.group(1) + " nicht"),
    "es": (re.compile(r"(?<!no )\b(es|son|está|están|fue|era|ha|han|puede|pueden)\b"), lambda m: "no " + m.group(1)),
    "it": (re.compile(r"(?<!non )\b(è|sono|era|ha|hanno|può|possono)(?!\w)"), lambda m: "non " + m.group(1)),
    "pt": (re.compile(r"(?<!não )\b(é|são|está|estão|foi|era|tem|pode|podem)(?!\w)"), lambda m: "não " + m.group(1)),
    "fr": (re.compile(r"\b(est|sont|était|étaient|peut|peuvent)\b"), lambda m: "ne " + m.group(1) + " pas"),
    "ru": (re.compile(r"(?<!не )(?<!\w)(может|могут|был|была|было|были|будет|будут|есть)(?!\w)"),
           lambda m: "не " + m.group(1)),
    "uk": (re.compile(r"(?<!не )(?<!\w)(може|можуть|був|була|було|були|буде|будуть|є)(?!\w)"),
           lambda m: "не " + m.group(1)),
    "pl": (re.compile(r"(?<!nie )(?<!\w)(jest|są|był|była|było|byli|będzie|może|mogą|ma|mają)(?!\w)"),
           lambda m: "nie " + m.group(1)),
}
_CS = {"je": "není", "jsou": "nejsou", "byl": "nebyl", "byla": "nebyla", "bylo": "nebylo", "byli": "nebyli",
       "byly": "nebyly", "bude": "nebude", "budou": "nebudou", "má": "nemá", "mají": "nemají", "měl": "neměl",
       "může": "nemůže", "mohou": "nemohou", "lze": "nelze", "musí": "nemusí", "chce": "nechce"}
_ZH = re.compile(r"(?<![不没未])(可以|能够|应该|是|有|会|能)")
_ZH_NEG = {"有": "没有"}
_JA = (("ませんでした", None), ("ました", "ませんでした"), ("ます", "ません"), ("です", "ではありません"),
       ("である", "ではない"), ("できる", "できない"), ("している", "していない"), ("した", "しなかった"))


def _cs_negate(text: str, rng: random.Random):
    pat, table = _words(_CS)
    found = list(pat.finditer(text))
    if not found:
        return None
    m = rng.choice(found)
    w = m.group(1)
    neg = table[w.lower()]
    neg = neg[0].upper() + neg[1:] if w[0].isupper() else neg
    return text[:m.start()] + neg + text[m.end():]


def negate(s: Segment, rng: random.Random) -> Outcome:
    """One verb negated by a rule of the target language (English, German, Spanish, Italian,
    Portuguese, French, Russian, Ukrainian, Polish: a negation word beside an auxiliary or copula;
    Czech: the ``ne-`` form of a common verb; Chinese: 不/没 before 是, 有, 会, 能, 可以...;
    Japanese: the negative form of ます, です, した...)."""
    text, lang = s.output, s.tgt
    if lang == "cs":
        out = _cs_negate(text, rng)
    elif lang in _NEG_AUX:
        pat, rep = _NEG_AUX[lang]
        found = list(pat.finditer(text))
        out = None
        if found:
            m = rng.choice(found)
            out = text[:m.start()] + rep(m) + text[m.end():]
    elif lang == "zh":
        found = list(_ZH.finditer(text))
        out = None
        if found:
            m = rng.choice(found)
            out = text[:m.start()] + _ZH_NEG.get(m.group(1), "不" + m.group(1)) + text[m.end():]
    elif lang == "ja":
        hits: list = []
        taken: set[int] = set()
        for form, neg in _JA:  # longer forms first: した inside ました is not a match of its own
            for m in re.finditer(re.escape(form), text):
                span = set(range(m.start(), m.end()))
                if not span & taken:
                    taken |= span
                    if neg:  # ませんでした: already negative
                        hits.append((m.start(), m.end(), neg))
        out = None
        if hits:
            a, b, neg = rng.choice(sorted(hits))
            out = text[:a] + neg + text[b:]
    else:
        return None, f"no negation rule for language {lang or '?'}"
    if out is None or out == text:
        return None, f"no verb the {lang} negation rule knows"
    return out, ""


_CAPITALISED = re.compile(r"(?<!\w)([^\W\d_][\w'’-]*)", re.UNICODE)


def entities(text: str) -> list[tuple[int, int, str]]:
    """Capitalised words that do not begin a sentence, as a stand-in for named entities
    (cased scripts: Latin, Cyrillic, Greek; in Chinese and Japanese text the Latin-script names)."""
    out = []
    for m in _CAPITALISED.finditer(text):
        w = m.group(1)
        if not w[0].isupper() or len(w) < 2:  # an initial ("M.") is not a name
            continue
        before = text[:m.start()].rstrip()
        if not before or before[-1] in ".!?:\"“„«(" or before[-1] in "。！？":
            continue
        out.append((m.start(), m.end(), w))
    return out


def swap_entities(s: Segment, rng: random.Random) -> Outcome:
    """Two different named entities (:func:`entities`) swapped, at one occurrence each."""
    found = entities(s.output)
    names = list(dict.fromkeys(w for _, _, w in found))
    if len(names) < 2:
        return None, "fewer than two named entities (capitalised words inside a sentence)"
    a, b = rng.sample(names, 2)
    ea = next(e for e in found if e[2] == a)
    eb = next(e for e in found if e[2] == b)
    first, second = sorted([ea, eb])
    t = s.output
    return t[:first[0]] + second[2] + t[first[1]:second[0]] + first[2] + t[second[1]:], ""


def shuffle_words(s: Segment, rng: random.Random) -> Outcome:
    """The words (:func:`units`) in a random order (never the original one)."""
    u = units(s.output, s.tgt)
    if len(set(u)) < 3:
        return None, "fewer than three different words"
    order = list(u)
    for _ in range(20):
        rng.shuffle(order)
        if order != u:
            break
    return _join(order, s.tgt), ""


def untranslated_word(s: Segment, rng: random.Random) -> Outcome:
    """One output word replaced by a source word of four or more letters at about the same
    relative position (no word alignment is assumed: the replaced word is the likeliest, not a
    certain, translation of it)."""
    src = [w.strip(".,;:!?\"'()“”„«»") for w in units(s.source, s.src)]
    cands = [(i, w) for i, w in enumerate(src) if sum(c.isalpha() for c in w) >= 4]
    u = units(s.output, s.tgt)
    if not cands:
        return None, "no source word of four or more letters"
    if not u:
        return None, "empty output"
    i, w = rng.choice(cands)
    j = min(len(u) - 1, int(round(i / max(1, len(src) - 1) * (len(u) - 1))))
    if u[j].strip(".,;:!?") == w:
        return None, "the output already has the source word there"
    return _join(u[:j] + [w] + u[j + 1:], s.tgt), ""


def punctuation_casing(s: Segment, rng: random.Random) -> Outcome:
    """Punctuation and casing only: every letter lower-cased, and every punctuation mark that ends
    a word (before a space or the end; in scripts without spaces every mark) removed. The meaning
    is kept (:data:`MEANING_KEPT`)."""
    text = s.output.lower()
    if _no_space(s.tgt):
        out = "".join(c for c in text if not unicodedata.category(c).startswith("P"))
    else:
        out = re.sub(r"(?<=\S)[^\w\s]+(?=\s|$)", "", text)
    if out == s.output or not out.strip():
        return None, "no punctuation or casing to change"
    return out, ""


def repetition(s: Segment, rng: random.Random) -> Outcome:
    """A stretch of two to five words (:func:`units`) repeated right after itself."""
    u = units(s.output, s.tgt)
    if len(u) < 3:
        return None, "fewer than three words"
    k = rng.randint(2, min(5, len(u)))
    a = rng.randrange(len(u) - k + 1)
    return _join(u[:a + k] + u[a:a + k] + u[a + k:], s.tgt), ""


#: family name -> function(segment, rng) -> (text or None, reason); the order of the tables
FAMILIES: dict[str, Callable[[Segment, random.Random], Outcome]] = {
    "copy_source": copy_source, "omit_clause": omit_clause, "hallucinate": hallucinate,
    "change_number": change_number, "negate": negate, "swap_entities": swap_entities,
    "shuffle_words": shuffle_words, "untranslated_word": untranslated_word,
    "punctuation_casing": punctuation_casing, "repetition": repetition,
}


def perturb(family: str, output: str, source: str, tgt: str, src: str = "", seed=0,
            segment_refs: Sequence[str] = ()) -> Outcome:
    """(the output perturbed by ``family``, "") or (None, why the family cannot apply);
    deterministic for (``seed``, family, output, source). ``tgt``/``src``: ISO 639-1 codes;
    ``segment_refs``: the segment's reference texts (``copy_source`` skips a segment whose reference is
    the source)."""
    if family not in FAMILIES:
        raise ValueError(f"unknown perturbation {family!r}; known: {', '.join(FAMILIES)}")
    if not isinstance(output, str) or not output.strip():
        return None, "empty output"
    text, why = FAMILIES[family](Segment(output, source or "", tgt or "", src or "", tuple(segment_refs)),
                                 _rng("detective", seed, family, output, source))
    if text is not None and text == output:
        return None, "the perturbation left the output unchanged"
    return text, why


# --------------------------------------------------------------------------- over a dataset
def languages(dataset: Dataset) -> tuple[str, str]:
    """(source, target) language codes of the dataset's language pair (``en-cs``), "" unknown."""
    lp = str(dataset.lp or "")
    parts = lp.split("-")
    return (parts[0].lower(), parts[1].lower()) if len(parts) == 2 else ("", "")


def sample_outputs(dataset: Dataset, settings: Settings, sample: int | None = DEFAULT_SAMPLE,
                   seed: int = 0) -> list[tuple[str, str]]:
    """The (system, seg_id) outputs the lab perturbs: every non-empty output of a system that is
    not a reference set, whose segment has a reference (of ``settings.references``, or any) and,
    under ``settings.judged_only`` on data with human judgements (the shared default), that the
    humans judged (what they saw: the outputs a calibrated Δ speaks about); ``sample`` of them
    (None: all) drawn by a generator seeded by ``seed``, in dataset order."""
    refs = _references(dataset, settings)
    texts = dataset.sys_texts()
    in_force, _ = settings.resolve(dataset)
    judged = None
    if in_force.judged_only:
        j = dataset.judgements
        judged = set(zip(j["system"].astype(str), j["seg_id"].astype(str)))
    out = []
    for i, seg in enumerate(dataset.seg_ids):
        if not refs[i]:
            continue
        for system in dataset.systems:
            t = texts[system][i]
            if system not in dataset.ref_ids and isinstance(t, str) and t.strip() and (
                    judged is None or (str(system), str(seg)) in judged):
                out.append((system, str(seg)))
    if sample is not None and sample < len(out):
        if sample < 1:
            raise ValueError(f"the sample must hold at least one output, not {sample}")
        keep = set(_rng("sample", seed).sample(range(len(out)), int(sample)))
        out = [o for k, o in enumerate(out) if k in keep]
    return out


def _references(dataset: Dataset, settings: Settings) -> list[list[str]]:
    ids = list(settings.references) if settings.references else list(dataset.ref_ids)
    unknown = [r for r in ids if r not in dataset.ref_ids]
    if unknown:
        raise ValueError(f"no reference set {', '.join(unknown)}; the data has {', '.join(dataset.ref_ids) or 'none'}")
    texts = dataset.ref_texts()
    return [[t for r in ids if isinstance(t := texts[r][i], str) and t.strip()]
            for i in range(len(dataset.seg_ids))]


def perturb_outputs(dataset: Dataset, settings: Settings, families: Sequence[str] | None = None,
                    sample: int | None = DEFAULT_SAMPLE, seed: int = 0) -> pd.DataFrame:
    """One row per (output of :func:`sample_outputs`, family): system, seg_id, perturbation,
    original, perturbed (None when skipped), skipped (the reason, "" when applied)."""
    families = list(families or FAMILIES)
    for f in families:
        if f not in FAMILIES:
            raise ValueError(f"unknown perturbation {f!r}; known: {', '.join(FAMILIES)}")
    src_lang, tgt_lang = languages(dataset)
    pos = {str(s): i for i, s in enumerate(dataset.seg_ids)}
    sources = dataset.segments["source"].tolist()
    texts = dataset.sys_texts()
    refs = _references(dataset, settings)
    rows = []
    for system, seg in sample_outputs(dataset, settings, sample, seed):
        i = pos[seg]
        # sample_outputs draws outputs that exist
        out, src = cast(str, texts[system][i]), sources[i] if isinstance(sources[i], str) else ""
        for f in families:
            text, why = perturb(f, out, src, tgt_lang, src_lang, seed=(seed, system, seg), segment_refs=refs[i])
            rows.append({"system": system, "seg_id": seg, "perturbation": f, "original": out, "perturbed": text,
                         "skipped": why if text is None else ""})
    return pd.DataFrame(rows, columns=["system", "seg_id", "perturbation", "original", "perturbed", "skipped"])


def skip_counts(perturbed: pd.DataFrame) -> pd.DataFrame:
    """Per family and reason: how many outputs the family skipped (never silently)."""
    sk = perturbed[perturbed["skipped"] != ""]
    return (sk.groupby(["perturbation", "skipped"], sort=False).size().rename("n").reset_index()
            .rename(columns={"skipped": "reason"}))


def score_perturbations(dataset: Dataset, perturbed: pd.DataFrame, metrics: Sequence[str],
                        settings: Settings) -> pd.DataFrame:
    """The applied rows of :func:`perturb_outputs` with, per metric, its sentence score of the
    original and of the perturbed output (same references: ``settings.references`` or all) and
    the drop, oriented (``orient(original) − orient(perturbed)``; TER negated by
    ``settings.orient``): columns system, seg_id, perturbation, metric, original_score,
    perturbed_score, drop."""
    from ..metrics.base import get_metric
    from ..metrics.tokenize import resolve_tokenizer

    tok, _ = resolve_tokenizer(settings.tokenizer, dataset.lp)
    refs = _references(dataset, settings)
    pos = {str(s): i for i, s in enumerate(dataset.seg_ids)}
    done = perturbed[perturbed["skipped"] == ""].reset_index(drop=True)
    cols = ["system", "seg_id", "perturbation", "metric", "original_score", "perturbed_score", "drop"]
    if done.empty:
        return pd.DataFrame(columns=cols)
    r = [refs[pos[g]] for g in done["seg_id"]]
    # each original is scored once, however many families perturbed it
    orig_keys = list(dict.fromkeys(zip(done["system"], done["seg_id"])))
    texts = dataset.sys_texts()
    orig_texts = [cast(str, texts[s][pos[g]]) for s, g in orig_keys]  # the perturbed outputs exist
    orig_refs = [refs[pos[g]] for _, g in orig_keys]
    parts = []
    for mid in metrics:
        m = get_metric(mid, tokenize=tok)
        sign = settings.with_(orientation="higher-is-better").orient(m.meta.higher_is_better)
        base = dict(zip(orig_keys, m.sentence_scores(orig_texts, orig_refs)))
        o = np.array([base[k] for k in zip(done["system"], done["seg_id"])], dtype=float)
        p = np.asarray(m.sentence_scores(list(done["perturbed"]), r), dtype=float)
        parts.append(pd.DataFrame({"system": done["system"], "seg_id": done["seg_id"],
                                   "perturbation": done["perturbation"], "metric": mid, "original_score": o,
                                   "perturbed_score": p, "drop": sign * (o - p)}))
    return pd.concat(parts, ignore_index=True)[cols]


def catch_table(scored: pd.DataFrame, deltas: Mapping[str, float] | None = None,
                families: Sequence[str] | None = None) -> pd.DataFrame:
    """``perturbation, metric, catch_rate, n``: per family and metric, the share of the perturbed
    outputs whose oriented score dropped by more than Δ (:func:`delta_for` with ``deltas``) and
    how many outputs that is; a family that applied to no output has n = 0 and no rate (NaN).
    ``families``: the order of the rows (and families to list even when they applied to none)."""
    metrics = list(dict.fromkeys(scored["metric"]))
    fams = list(families) if families is not None else list(dict.fromkeys(scored["perturbation"]))
    rows = []
    for f in fams:
        for mid in metrics:
            d = scored[(scored["perturbation"] == f) & (scored["metric"] == mid)]["drop"].to_numpy(dtype=float)
            delta, _ = delta_for(mid, deltas)
            rows.append({"perturbation": f, "metric": mid,
                         "catch_rate": float(np.mean(d > delta)) if len(d) else float("nan"), "n": int(len(d))})
    return pd.DataFrame(rows, columns=CATCH_COLUMNS)


@dataclass(frozen=True)
class LabResult:
    """What the lab computes on one dataset: the catch table, every perturbation (applied or
    skipped), the scores, and the Δ used per metric with its origin."""
    catch: pd.DataFrame
    perturbed: pd.DataFrame
    scored: pd.DataFrame
    deltas: pd.DataFrame


def run_lab(dataset: Dataset, metrics: Sequence[str], settings: Settings, families: Sequence[str] | None = None,
            sample: int | None = DEFAULT_SAMPLE, seed: int = 0,
            deltas: Mapping[str, float] | None = None) -> LabResult:
    """:func:`perturb_outputs`, :func:`score_perturbations` and :func:`catch_table` in one call."""
    if not metrics:
        raise ValueError("choose at least one metric")
    families = list(families or FAMILIES)
    pert = perturb_outputs(dataset, settings, families, sample, seed)
    scored = score_perturbations(dataset, pert, metrics, settings)
    used = pd.DataFrame([(m, *delta_for(m, deltas)) for m in metrics], columns=["metric", "delta", "source"])
    return LabResult(catch_table(scored, deltas, families), pert, scored, used)


def fooled_board(submissions: pd.DataFrame, deltas: Mapping[str, float] | None = None) -> pd.DataFrame:
    """The class leaderboard of student-written perturbations (rows with metric, drop, and the
    student's own verdict ``meaning_changed``): per metric, how many perturbations that changed
    the meaning it was fooled by (drop ≤ Δ), out of how many, and the share; most fooled first.
    A perturbation whose author says the meaning is kept is left out (no metric should drop)."""
    cols = ["metric", "fooled", "n", "fooled_share"]
    if submissions.empty:
        return pd.DataFrame(columns=cols)
    sub = submissions[submissions["meaning_changed"].astype(bool)]
    rows = []
    for mid, g in sub.groupby("metric", sort=False):
        delta, _ = delta_for(str(mid), deltas)
        fooled = int((g["drop"].to_numpy(dtype=float) <= delta).sum())
        rows.append({"metric": mid, "fooled": fooled, "n": len(g), "fooled_share": fooled / len(g)})
    t = pd.DataFrame(rows, columns=cols)
    return t.sort_values(["fooled_share", "metric"], ascending=[False, True], kind="stable").reset_index(drop=True)


# --------------------------------------------------------------------------- class mode
SUBMISSIONS_EXTRA = "detective_submissions"
SUBMISSION_COLUMNS = ["student", "system", "seg_id", "rewrite", "meaning_changed", "saved_at"]
MAX_REWRITE_CHARS = 5000


def submissions_of(dataset: Dataset) -> pd.DataFrame:
    """The class's rewrites saved with the dataset (extra table :data:`SUBMISSIONS_EXTRA`),
    ``meaning_changed`` as bool."""
    t = dataset.extras.get(SUBMISSIONS_EXTRA)
    if t is None or not len(t):
        return pd.DataFrame({c: pd.Series(dtype="bool" if c == "meaning_changed" else "object")
                             for c in SUBMISSION_COLUMNS})
    t = t.reindex(columns=SUBMISSION_COLUMNS).copy()
    t["meaning_changed"] = t["meaning_changed"].astype(str).isin(["1", "True", "true"])
    return t


def check_rewrite(dataset: Dataset, system: str, seg_id: str, text) -> str:
    """The rewrite as stored, or ``ValueError`` saying what is wrong (empty, too long, the
    output unchanged, no such output)."""
    if not isinstance(text, str) or not text.strip():
        raise ValueError("the rewrite is empty: type your version of the translation")
    if len(text) > MAX_REWRITE_CHARS:
        raise ValueError(f"the rewrite is {len(text)} characters long; use at most {MAX_REWRITE_CHARS}")
    pos = {str(s): i for i, s in enumerate(dataset.seg_ids)}
    if system not in dataset.systems or str(seg_id) not in pos:
        raise ValueError(f"no output of system {system!r} for segment {seg_id!r}")
    original = dataset.sys_texts()[system][pos[str(seg_id)]]
    if not isinstance(original, str) or not original.strip():
        raise ValueError(f"system {system!r} has no output for segment {seg_id!r}")
    if text.strip() == original.strip():
        raise ValueError("the rewrite is the output itself: change something")
    return text


def save_submission(name: str, lp: str, student: str, system: str, seg_id: str, text: str,
                    meaning_changed: bool) -> str:
    """Append one student's rewrite to the saved dataset ``name`` (language pair ``lp``) through
    :func:`evalcore.io.workspace.append` (the student's own journal, under the dataset's lock;
    the rest of the dataset untouched); the name is checked as an annotator's
    (:func:`evalcore.analysis.annotate.check_rater`). Returns the stored name."""
    import time

    from ..io import workspace
    from .annotate import check_rater

    student = check_rater(student)

    def check(coll):
        if lp not in coll:
            raise ValueError(f"the saved dataset {name!r} has no language pair {lp!r}")
        check_rewrite(coll[lp], system, seg_id, text)

    row = {"student": student, "system": system, "seg_id": str(seg_id), "rewrite": text,
           "meaning_changed": "1" if meaning_changed else "0",
           "saved_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    return workspace.append(name, student, lp, {SUBMISSIONS_EXTRA: [row]}, check)


def score_rewrites(dataset: Dataset, rewrites: pd.DataFrame, metrics: Sequence[str], settings: Settings,
                   deltas: Mapping[str, float] | None = None) -> pd.DataFrame:
    """Each rewrite (rows with system, seg_id, rewrite, and optionally student and
    meaning_changed) scored by every metric as :func:`score_perturbations` scores a perturbation:
    columns of ``rewrites`` plus metric, original_score, rewrite_score, drop, caught (drop > Δ)."""
    cols = list(rewrites.columns) + ["metric", "original_score", "rewrite_score", "drop", "caught"]
    if rewrites.empty:
        return pd.DataFrame(columns=cols)
    pert = pd.DataFrame({"system": rewrites["system"].astype(str), "seg_id": rewrites["seg_id"].astype(str),
                         "perturbation": [f"rewrite:{k}" for k in range(len(rewrites))],
                         "original": "", "perturbed": rewrites["rewrite"].astype(str).to_numpy(), "skipped": ""})
    scored = score_perturbations(dataset, pert, metrics, settings)
    scored["k"] = scored["perturbation"].str.slice(len("rewrite:")).astype(int)
    base = rewrites.reset_index(drop=True).assign(k=range(len(rewrites)))
    out = base.merge(scored[["k", "metric", "original_score", "perturbed_score", "drop"]], on="k")
    out = out.rename(columns={"perturbed_score": "rewrite_score"}).drop(columns="k")
    out["caught"] = [d > delta_for(m, deltas)[0] for m, d in zip(out["metric"], out["drop"])]
    return out[cols]
