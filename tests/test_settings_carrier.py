"""Settings is the one carrier of the shared choices above the metric layer (issue "each page a
vertical slice, one settings object"): functions in evalcore/analysis, present, views and
commands take one ``settings: Settings`` object, not a loose ``tokenize=`` / ``judged_only=``,
and ``judged_only`` is a bool wherever it is annotated.

The walk is by ``ast`` over the source (nested functions included), so a new loose parameter
fails here with its file and line. The few functions left with a ``tokenize`` parameter are
listed in :data:`ALLOWED`, each with the reason it is honest."""
from __future__ import annotations

import ast

import numpy as np
import pandas as pd
import pytest
import sacrebleu
from conftest import ROOT

from evalcore.core.dataset import Dataset
from evalcore.scoring.settings import DEFAULTS

LAYERS = ("analysis", "present", "views", "commands")
LOOSE = ("tokenize", "judged_only")
LIMIT = 10

#: (file under evalcore/, function name) -> why it may keep a loose ``tokenize``
ALLOWED = {
    ("analysis/compare.py", "_tokens"):
        "splits one text with a named tokenizer (the comparison's, resolved, or 13a for source words)",
    ("analysis/spans.py", "bleu_marks"):
        "a helper on one text (no language pair); item_counts passes the settings' tokenizer",
    ("analysis/spans.py", "metric_marks"):
        "a helper on one text (no language pair); item_counts and output_layers pass the settings' tokenizer",
    ("analysis/metatask.py", "_default_scorer"):
        "the run_metatask scorer protocol: score_table's own keywords (the metric layer's door), "
        "with the pair's resolved tokenizer",
    ("views/metatask.py", "scorer"):
        "the run_metatask scorer protocol (score_table's keywords), disk-cached for the Metrics task page",
    ("analysis/system_level.py", "cached_scores"):
        "the campaign scorer protocol (parallel.score_result's keywords, the metric layer's door): the "
        "pair's resolved tokenizer is part of the statistics cache key",
}


def _functions():
    for layer in LAYERS:
        for path in sorted((ROOT / "evalcore" / layer).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    yield path.relative_to(ROOT / "evalcore").as_posix(), node


def _loose():
    found = {}
    for rel, node in _functions():
        a = node.args
        names = [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs]
        hit = [n for n in names if n in LOOSE]
        if hit:
            found[(rel, node.name)] = (node.lineno, hit)
    return found


def test_the_walk_sees_functions_and_their_settings_parameter():
    """The walk is not vacuous: it finds the allowed helpers and functions taking ``settings``."""
    with_settings = {(rel, n.name) for rel, n in _functions()
                     if "settings" in [x.arg for x in n.args.args + n.args.kwonlyargs]}
    for key in [("analysis/compare.py", "build"), ("analysis/campaign.py", "campaign"),
                ("analysis/metatask.py", "run_metatask"), ("views/systems.py", "system_table"),
                ("views/playground.py", "match_view"), ("commands/experts.py", "tables")]:
        assert key in with_settings, key
    assert set(ALLOWED) <= set(_loose())


def test_at_most_ten_loose_tokenizer_parameters_each_with_its_reason():
    found = _loose()
    assert len(found) <= LIMIT, f"{len(found)} functions with a loose tokenize/judged_only (at most {LIMIT})"
    unlisted = [f"evalcore/{rel}:{line} {name}({', '.join(hit)}): take settings: Settings instead"
                for (rel, name), (line, hit) in sorted(found.items()) if (rel, name) not in ALLOWED]
    assert not unlisted, "\n".join(unlisted)
    judged = [f"evalcore/{rel}:{line} {name}" for (rel, name), (line, hit) in found.items() if "judged_only" in hit]
    assert not judged, "judged_only travels in Settings:\n" + "\n".join(judged)
    stale = set(ALLOWED) - set(found)
    assert not stale, f"allowed entries for functions that no longer take tokenize: {stale}"
    assert all(len(why) > 20 for why in ALLOWED.values())


def _annotations(tree):
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            a = node.args
            for arg in a.posonlyargs + a.args + a.kwonlyargs:
                if arg.arg == "judged_only" and arg.annotation is not None:
                    yield node.lineno, ast.unparse(arg.annotation)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) \
                and node.target.id == "judged_only":
            yield node.lineno, ast.unparse(node.annotation)


def test_judged_only_is_a_bool_everywhere():
    """One type: a criterion name travels as its own parameter (e.g. ``judged_for``, ``criterion``)."""
    seen, wrong = 0, []
    for path in sorted((ROOT / "evalcore").rglob("*.py")):
        for line, ann in _annotations(ast.parse(path.read_text(encoding="utf-8"))):
            seen += 1
            if ann != "bool":
                wrong.append(f"{path.relative_to(ROOT)}:{line}: judged_only: {ann}")
    assert seen >= 2  # Settings.judged_only and Comparison.judged_only at least
    assert not wrong, "\n".join(wrong)


def _tiny() -> tuple[Dataset, list[str], dict[str, list[str]]]:
    """Two systems, four segments, one reference; punctuation that 13a and char split differently."""
    segs = ["1", "2", "3", "4"]
    ref = ["The cat sat on the mat.", "It's 3-4 o'clock, isn't it?", "A dog (brown) barked.", "Hello, world!"]
    outs = {"s1": ["The cat sat on a mat.", "It is 3 - 4 o'clock, isn't it?", "A brown dog barked.", "Hello world!"],
            "s2": ["A cat is on the mat .", "It's 3-4 o'clock.", "The dog (brown) barks.", "Hello, world"]}
    return Dataset("tiny", "es-en", pd.DataFrame({"seg_id": segs, "doc_id": "d", "source": "x"}),
                   pd.DataFrame([(s, "A", r) for s, r in zip(segs, ref)], columns=["seg_id", "ref_id", "text"]),
                   pd.DataFrame([(sy, s, t) for sy, ts in outs.items() for s, t in zip(segs, ts)],
                                columns=["system", "seg_id", "text"])), ref, outs


@pytest.mark.parametrize("tok", ["13a", "char"])
def test_the_tokenizer_travels_in_settings_to_the_metric(tok, tmp_path, monkeypatch):
    """``settings.tokenizer`` reaches the metric layer: corpus BLEU per system equals sacreBLEU's
    with that tokenizer, through an analysis function (experts) and a view (the playground)."""
    monkeypatch.setenv("EVALCORE_CACHE", str(tmp_path / "cache"))
    from evalcore.analysis.experts import metric_system_scores
    from evalcore.views.playground import sentence_scores

    ds, ref, outs = _tiny()
    settings = DEFAULTS.with_(tokenizer=tok)
    got = metric_system_scores(ds, "bleu", settings)
    for system, texts in outs.items():
        want = sacrebleu.corpus_bleu(texts, [ref], tokenize=tok).score
        assert got[system] == pytest.approx(want, abs=1e-9)
        sent = sentence_scores(texts[1], [ref[1]], ["bleu"], settings)["bleu"]
        assert sent == pytest.approx(sacrebleu.sentence_bleu(texts[1], [ref[1]], tokenize=tok).score, abs=1e-9)
    other = metric_system_scores(ds, "bleu", DEFAULTS.with_(tokenizer="char" if tok == "13a" else "13a"))
    assert not np.allclose(got.sort_index().to_numpy(), other.sort_index().to_numpy())
