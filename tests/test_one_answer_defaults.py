"""The library's defaults are the shared settings' defaults: every public function of
evalcore.analysis that takes a judged-only / tokenizer / references / human-systems /
orientation / rater-aggregation choice defaults to :data:`evalcore.scoring.settings.DEFAULTS`'s
value, taken from that object (one source of truth), not a literal that happens to agree today.

How "taken from" is checked: each analysis module's source is executed afresh while
``evalcore.scoring.settings.DEFAULTS`` is replaced by settings that differ in every field; a
default written as ``DEFAULTS.<field>`` follows the replacement, a repeated literal does not."""
from __future__ import annotations

import importlib
import importlib.util
import inspect
import pkgutil

import pytest

import evalcore.analysis
import evalcore.scoring.settings as settings_module
import evalcore.stats.registry as registry_module
from conftest import SAMPLE
from evalcore.scoring.settings import DEFAULTS, Settings

#: parameter name -> the shared setting its default must come from
SHARED = {"judged_only": "judged_only", "tokenize": "tokenizer", "tokenizer": "tokenizer",
          "references": "references", "refs": "references", "ref_ids": "references",
          "include_human": "include_human_systems", "include_human_systems": "include_human_systems",
          "include_references": "include_human_systems", "orientation": "orientation",
          "rater_aggregation": "rater_aggregation",
          "settings": None}  # the whole shared Settings object: its default must be DEFAULTS itself

#: settings that differ from DEFAULTS in every field
OTHER = Settings(judged_only=not DEFAULTS.judged_only, tokenizer="intl", references=("refX",),
                 human_systems="include" if DEFAULTS.human_systems == "exclude" else "exclude",
                 orientation="raw" if DEFAULTS.orientation != "raw" else "higher-is-better",
                 rater_aggregation="rows" if DEFAULTS.rater_aggregation != "rows" else "segment-mean")

#: (module, function, parameter) whose default is deliberately not the shared one, and why
NOT_SHARED = {
    ("metatask", "run_metatask", "settings"):
        "TASK_RECIPE = DEFAULTS with every segment: a WMT metrics task's recipe scores every segment, as the "
        "official runs (metatask_settings_line; the metatask command's --judged-only is opt-in)",
    ("metatask", "run_metatask", "include_human"): "None: the task's own choice per language pair",
    ("spans", "bleu_marks", "tokenize"): "a helper on one text (no language pair); item_counts passes the "
                                         "dataset's tokenizer",
    ("spans", "metric_marks", "tokenize"): "a helper on one text (no language pair); item_counts passes the "
                                           "dataset's tokenizer",
}


def _value(settings, pname):
    """What a default of parameter ``pname`` must be under ``settings``: the object itself for a
    ``settings`` parameter, else the field it names."""
    return settings if SHARED[pname] is None else getattr(settings, SHARED[pname])


def _marker(pname):
    """The text a function resolving a None default of ``pname`` from DEFAULTS at call time has."""
    return "settings or DEFAULTS" if SHARED[pname] is None else f"DEFAULTS.{SHARED[pname]}"


def _public_functions(module):
    for name, f in inspect.getmembers(module, inspect.isfunction):
        if not name.startswith("_") and f.__module__ == module.__name__:
            yield name, f


def _shared_parameters(module):
    short = module.__name__.rsplit(".", 1)[1]
    for name, f in _public_functions(module):
        for pname, p in inspect.signature(f).parameters.items():
            if pname in SHARED and p.default is not inspect.Parameter.empty:
                yield (short, name, pname), f, p.default


def _modules():
    return [importlib.import_module(f"evalcore.analysis.{m.name}")
            for m in pkgutil.iter_modules(evalcore.analysis.__path__)]


def _fresh(module, monkeypatch):
    """``module``'s source executed again (not registered in sys.modules) with DEFAULTS replaced."""
    monkeypatch.setattr(settings_module, "DEFAULTS", OTHER)
    monkeypatch.setattr(registry_module, "REGISTRY", {})  # the module registers its statistics again
    spec = importlib.util.spec_from_file_location(module.__name__, module.__file__)
    fresh = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fresh)
    return fresh


def test_the_walk_finds_the_functions_that_compare_metrics_with_humans():
    found = {key for m in _modules() for key, _, _ in _shared_parameters(m)}
    for key in [("campaign", "campaign", "settings"), ("compare", "build", "settings"),
                ("compare", "configured_metric", "settings"), ("metatask", "run_metatask", "settings"),
                ("metatask", "run_metatask", "include_human"), ("references", "leave_one_out", "settings")]:
        assert key in found
    stale = set(NOT_SHARED) - found
    assert not stale, f"exceptions listed for parameters that no longer exist: {stale}"


def test_every_shared_default_is_the_shared_settings_value():
    wrong = []
    for m in _modules():
        for key, f, default in _shared_parameters(m):
            if key in NOT_SHARED:
                continue
            want = _value(DEFAULTS, key[2])
            if default is None and want is not None and _marker(key[2]) in inspect.getsource(f):
                continue  # None = resolved from DEFAULTS at call time (said in the function)
            if default != want:
                wrong.append(f"{key}: {default!r} (shared: {want!r})")
    assert not wrong, "library defaults that differ from the shared settings:\n" + "\n".join(wrong)


def test_the_defaults_are_taken_from_the_shared_settings_not_repeated(monkeypatch):
    """A default written as a literal equal to today's DEFAULTS fails here."""
    originals = {key: (f, default) for m in _modules() for key, f, default in _shared_parameters(m)}
    repeated = []
    for m in _modules():
        fresh = _fresh(m, monkeypatch)
        for key, f, default in _shared_parameters(fresh):
            if key in NOT_SHARED:
                continue
            want = _value(OTHER, key[2])
            if default is None and _marker(key[2]) in inspect.getsource(originals[key][0]):
                continue  # resolved from DEFAULTS at call time
            if default != want:
                repeated.append(f"{key}: {default!r} does not follow DEFAULTS")
        monkeypatch.setattr(settings_module, "DEFAULTS", DEFAULTS)
    assert not repeated, "\n".join(repeated)


def test_campaign_default_is_judged_only_as_on_the_page():
    """The library call with no options gives the Campaign page's default numbers (judged
    segments only) and says so; every segment is one explicit argument away."""
    from evalcore.analysis.campaign import campaign
    from evalcore.io import load_collection

    coll = load_collection(SAMPLE)
    default = campaign(coll, ["bleu", "chrf"])
    judged = campaign(coll, ["bleu", "chrf"], settings=DEFAULTS.with_(judged_only=True))
    every = campaign(coll, ["bleu", "chrf"], settings=DEFAULTS.with_(judged_only=False))
    assert default.correlations.equals(judged.correlations)
    assert "judged_only:True" in default.signature and "judged_only:False" in every.signature
    assert any("segments judged for" in n for n in default.notes)
    if not every.correlations.equals(judged.correlations):  # the sample's judged subset differs
        assert not default.correlations.equals(every.correlations)


@pytest.mark.parametrize("field", ["judged_only", "tokenizer", "include_human_systems"])
def test_other_differs_in_every_checked_field(field):
    assert getattr(OTHER, field) != getattr(DEFAULTS, field)
