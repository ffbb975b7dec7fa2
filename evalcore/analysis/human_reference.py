"""A human translation judged as a system, used as a second reference set (docs/methods.md §14).

WMT test sets often carry one reference (``refA``) and a second human translation among the
*systems* (``refB``, ``ref-B``, ``Human-B.0``, ``human-P``): scored and judged like MT. The pages
that need two or more reference sets per segment (ORANGE, KING and QUEEN: Amigó et al. 2005,
2006; reference quality: Callison-Burch 2009 §5.1) are empty on such a pair although the data
holds a second translation. :func:`with_system_as_reference` builds the derived dataset where that
system's outputs are a reference set; :func:`what_changes` says what the switch changes;
:func:`upload_advice` says exactly what to upload where the data has none.

Nothing here imports streamlit.
"""
from __future__ import annotations

import re

import pandas as pd

from ..core.dataset import REFERENCE_COLUMNS, Dataset

#: a system name that denotes a human translation: ``ref`` with a short id (refB, ref-B, ref_b2),
#: or ``human`` alone or followed by a separator (Human-B.0, human-P, Human A)
HUMAN_NAME = re.compile(r"^(ref[-_.]?[A-Za-z0-9]{0,3}|human([-_.\s].*)?)$", re.IGNORECASE)


def human_translation_systems(dataset: Dataset) -> list[str]:
    """Systems with text whose names say they are human translations (:data:`HUMAN_NAME`),
    in the dataset's order; a name already used by a reference set is left out."""
    texts = dataset.sys_texts()
    return [s for s in dataset.systems if HUMAN_NAME.match(str(s)) and s not in dataset.ref_ids
            and any(isinstance(t, str) and t.strip() for t in texts[s])]


def with_system_as_reference(dataset: Dataset, system: str) -> Dataset:
    """``dataset`` with the non-empty outputs of ``system`` as a reference set named ``system``
    and ``system`` no longer among the systems. Judgements, tags and extras are kept as they are:
    the system's judgements become judgements of a reference set, which every analysis treats as a
    human translation (left out of the correlations unless the settings include human systems).
    Named ``<name>+<system>-as-ref``. ``ValueError`` for an unknown system, one whose name is
    already a reference set, or one without text."""
    if system not in dataset.systems:
        raise ValueError(f"no system {system!r} with text; systems: {', '.join(dataset.systems) or 'none'}")
    if system in dataset.ref_ids:
        raise ValueError(f"{system!r} is already a reference set")
    out = dataset.outputs
    mine = out[out["system"] == system]
    mine = mine[mine["text"].astype(str).str.strip() != ""]
    if mine.empty:
        raise ValueError(f"system {system!r} has no text")
    refs = pd.concat([dataset.references[REFERENCE_COLUMNS],
                      pd.DataFrame({"seg_id": mine["seg_id"].astype(str), "ref_id": system,
                                    "text": mine["text"]})[REFERENCE_COLUMNS]], ignore_index=True)
    order = {s: i for i, s in enumerate(dataset.seg_ids)}
    ids = list(dict.fromkeys(list(dataset.ref_ids) + [system]))
    refs = refs.assign(_o=refs["seg_id"].map(order), _r=refs["ref_id"].map(ids.index)).sort_values(
        ["_o", "_r"], kind="stable").drop(columns=["_o", "_r"]).reset_index(drop=True)
    return Dataset(f"{dataset.name}+{system}-as-ref", dataset.lp, dataset.segments, refs,
                   out[out["system"] != system].reset_index(drop=True), dataset.judgements, dataset.tags,
                   dict(dataset.extras), list(dataset.warnings))


def what_changes(dataset: Dataset, system: str) -> list[str]:
    """What using ``system`` as a reference set changes, one sentence each (for the page)."""
    texts = dataset.sys_texts()[system]
    refs = dataset.ref_texts()
    n = len(dataset.seg_ids)
    both = sum(1 for i, t in enumerate(texts) if isinstance(t, str) and t.strip()
               and any(isinstance(rt := refs[r][i], str) and rt.strip() for r in dataset.ref_ids))
    judged = int((dataset.judgements["system"] == system).sum())
    return [
        f"{system} becomes reference set number {len(dataset.ref_ids) + 1}: {both} of {n} segments then have two "
        "or more reference sets, which ORANGE, KING and QUEEN (each reference held out in turn) and the "
        "reference-quality table need.",
        f"Every metric score is then computed against {len(dataset.ref_ids) + 1} reference sets where the segment "
        "has them: multi-reference BLEU, chrF and TER of every system change, and so do their correlations "
        "with the humans.",
        f"{system} is no longer scored or ranked as a system"
        + (f"; its {judged} judgement(s) stay, as judgements of a human translation (left out of the "
           "correlations unless you include human translations)." if judged else "."),
        "The original dataset is unchanged: the derived one is saved beside it under its own name.",
    ]


def upload_advice(dataset: Dataset) -> str:
    """What to upload for a second reference set when the data has no human translation among its systems."""
    lp = dataset.lp or "<lp>"
    have = ", ".join(dataset.ref_ids) or "none"
    return (f"This dataset has one reference set ({have}) and no human translation among its systems (a system named "
            f"refB, ref-B, Human-B.0 ...). Upload a second, independent human translation of the same "
            f"{dataset.n_segments} source segments on the Data page, either as a file references/{lp}.refB.txt "
            "(one line per source line, mt-metrics-eval layout) or as rows of references.tsv with the columns "
            "lp, seg_id, ref_id, text and ref_id refB (docs/formats.md); a second translation of some segments only "
            "is enough for those segments.")
