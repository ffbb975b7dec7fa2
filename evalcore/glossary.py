"""Plain-language definitions of the terms the dashboard uses, for hover help and each page's
"Terms on this page" box. Each entry says what the term means in one or two sentences and
where the full definition is (docs/methods.md sections, papers by author and year).
"""
from __future__ import annotations

GLOSSARY: dict[str, str] = {
    "segment": "One source sentence or paragraph of the test set, with its system outputs, its references and "
               "its human judgements.",
    "reference set": "One human translation of the whole test set (ref-A, ref-B, …). A segment may have several "
                     "references, one per reference set that covers it.",
    "signature": "A compact record of how a score was computed (metric, options, tokenizer, number of references, "
                 "version), in sacreBLEU's format: quote it with the number (Post 2018).",
    "tokenizer": "How texts are split into words before word-level metrics (BLEU, TER, WER, …) count matches. "
                 "sacreBLEU's defaults: zh for Chinese, ja-mecab for Japanese, ko-mecab for Korean, 13a otherwise.",
    "human-likeness": "Can a metric tell a human translation from a machine one? Measured without any human "
                      "judgement, from several references per segment (Amigó et al. 2006; methods §1).",
    "human acceptability": "Does a metric agree with people's judgements of quality? Measured by correlation with "
                           "human scores (methods §3).",
    "held-out reference": "For human-likeness, each reference is taken out in turn and scored, like every system "
                          "output, against the references that remain (methods §1.1).",
    "ORANGE": "How often a held-out human reference scores at least as high as one given system output under the "
              "metric; 0.5 for a random metric (Amigó et al. 2006; Lin & Och 2004; methods §1.1, §2).",
    "KING": "How often a held-out human reference scores at least as high as every system output of its segment; "
            "a random metric gets 1/(number of outputs + 1) (Amigó et al. 2006; methods §1.1, §1.3).",
    "QUEEN": "For a candidate translation, the share of reference triples (r, r', r'') where the candidate is at "
             "least as close to r as r' is to r'' under every metric of a set (Amigó et al. 2005; methods §1.2).",
    "metric set": "Several metrics used together inside QUEEN: a candidate must look human under all of them. The "
                  "search adds a metric only if KING of the set rises (methods §1.4).",
    "tie rate": "The share of comparisons where the reference and an output get exactly the same score; with ties "
                "counted as wins (the default), many ties inflate ORANGE and KING (methods §1.1).",
    "micro / macro average": "Micro pools every case; macro averages within each segment first. They differ when "
                             "segments have different numbers of references or outputs (methods §1.1).",
    "pooled QUEEN": "With fewer than three references in a segment, the reference pairs of every segment are pooled "
                    "to compare against (methods §1.2).",
    "system level": "One score per system (a corpus score from summed statistics for metrics; the mean over "
                    "segments for human scores), correlated across systems.",
    "segment level": "One score per (system, segment), correlated across segments, grouped by item or system "
                     "(methods §3.1).",
    "judged segments only": "Score each system only on the segments the humans judged for it, so metric and human "
                            "scores cover the same text (the CLI's --judged-only).",
    "human translations as systems": "Score the reference sets not chosen as references like systems, against the "
                                     "same chosen references; BLEU's correlation can flip (Freitag et al. 2021; "
                                     "methods §3.2).",
    "tie calibration": "The metric-difference threshold below which two metric scores count as a tie, chosen to "
                       "maximise acc23 or τ_23; every acc23/τ_23 output states the ε it used (Deutsch et al. 2023; "
                       "methods §3.3).",
    "stored metric scores": "Metric scores a dataset carries (mt-metrics-eval's metric-scores/ files), offered as "
                            "stored:NAME and used as stored, never recomputed; BLEU without the prefix is evalcore's "
                            "own BLEU from the texts (docs/formats.md).",
    "significance clusters": "Metrics ranked by correlation and grouped so that metrics in one cluster are not "
                             "significantly different from each other (permutation or Williams test; methods §3.6).",
    "bootstrap CI": "A confidence interval from recomputing the statistic on many resamples (of segments, systems "
                    "or both) drawn with replacement (methods §3.8).",
    "paired bootstrap / approximate randomisation": "Tests of whether two systems differ, exactly as sacreBLEU runs "
                                                    "them (Koehn 2004; Riezler & Maxwell 2005; methods §3.9).",
    "z-normalisation": "Each rater's scores minus their mean, divided by their standard deviation, so strict and "
                       "lenient raters become comparable (Graham et al. 2013; methods §5.2).",
    "percentile normalisation": "Each score replaced by its mid-rank among the rater's own scores "
                                "(Kulesza & Shieber 2004; methods §5.1).",
    "kappa": "Agreement between two raters' pairwise preferences beyond chance (methods §5.3).",
    "Krippendorff's alpha": "Agreement of numeric scores across raters; undefined when no item has two raters "
                            "(Krippendorff 2011; methods §5.9).",
    "Schulze ranking": "A ranking of systems from many partial ballots (each rater's judgements of one segment) that "
                       "respects majorities; it needs ballots comparing at least two systems (methods §5.4).",
    "MQM": "Multidimensional Quality Metrics: experts mark errors with a category and a severity; the score is minus "
           "the weighted error count (Freitag et al. 2021; methods §5.7).",
    "ESA": "Error Span Annotation: raters mark error spans and give a 0–100 score (Kocmi et al. 2024; methods §5.8).",
    "DA": "Direct Assessment: a 0–100 quality score per output from crowd raters, usually z-normalised per rater.",
    "HTER": "TER of an output against a human post-edit of it: how much editing it needed (Snover et al. 2006; "
            "methods §5.6).",
    "BEER": "A metric trained to rank translations as humans do, from character n-gram, word and word-order "
            "features (Stanojević & Sima'an 2014; methods §6.1).",
    "Detect MT": "A reference that is much closer to one machine output than to the other references may have been "
                 "post-edited from machine translation (Callison-Burch 2009; methods §5.11).",
    "SPA": "Soft pairwise accuracy: 1 minus the mean gap between the human and the metric p-values that one system "
           "beats another, over all pairs of systems (Thompson et al. 2024; methods §3.13).",
    "metrics task": "The WMT recipe that ranks metrics: several sub-tasks (pairs, levels, statistics), their values "
                    "averaged with weights after mapping each to [0, 1], and the average rank (methods §3.13).",
    "significance cluster": "Systems or metrics that cannot be told apart by a significance test share a cluster; "
                            "a new cluster starts where every item above differs from every item below "
                            "(methods §3.6, §3.12).",
}



def _statistics() -> None:
    """One entry per statistic of :mod:`evalcore.stats.registry` (its term and definition), so a
    new statistic gets its hover help without editing this file."""
    from ..stats.registry import REGISTRY, names

    names()  # (statistics registered by plugin modules too)
    for stat in REGISTRY.values():
        GLOSSARY.setdefault(stat.term, stat.definition)


_statistics()


def define(term: str) -> str:
    """The definition of ``term`` (case-insensitive); KeyError names the known terms."""
    for key, text in GLOSSARY.items():
        if key.lower() == term.lower():
            return text
    raise KeyError(f"no glossary entry for {term!r}; known: {', '.join(GLOSSARY)}")


def entries(terms) -> list[tuple[str, str]]:
    """``[(term, definition), …]`` for the given terms, in order."""
    return [(t, define(t)) for t in terms]
