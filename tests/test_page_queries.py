"""Every page caches the one way: a frozen query dataclass (a subclass of
evalcore.views.queries.Query, owned by the page's view module) is its cache key, and
``pages.common.cached(view_fn, query, data)`` is the only cache a page calls. Every query carries
the one shared :class:`evalcore.scoring.settings.Settings`."""
from __future__ import annotations

import dataclasses
import inspect
import re

import pytest

from conftest import ROOT

PAGES = sorted(p for p in (ROOT / "pages").glob("*.py") if p.name not in ("__init__.py", "registry.py"))
#: the pages that compute something worth caching (Classroom, Learned, Playground and Annotate
#: compute per click or per keystroke and keep nothing between runs)
COMPUTING = ["systems", "campaign", "compare", "divergence", "judges", "experts", "references", "metatask",
             "human_likeness", "likeness_vs_acceptability", "queen_vs_human", "learn", "data"]


def _code(path) -> str:
    """The file without comments and docstrings' prose mattering: comments stripped."""
    return "\n".join(line.split("#", 1)[0] for line in path.read_text(encoding="utf-8").splitlines())


def test_no_page_has_its_own_cache():
    offenders = []
    for path in PAGES + [ROOT / "app.py"]:
        if path.name == "common.py":
            continue
        code = _code(path)
        for pat in (r"st\.cache_data", r"st\.cache_resource", r"\bmemo\(", r"\bmemo_object\(", r"\bcache_key\("):
            if re.search(pat, code):
                offenders.append(f"{path.name}: {pat}")
    assert not offenders, offenders


def test_common_keeps_only_the_one_cached_helper():
    code = _code(ROOT / "pages" / "common.py")
    assert not re.search(r"def (memo|memo_object|_memo|_memo_object|cache_key)\(", code)
    assert re.search(r"^def cached\(view_fn, query, data=None", code, re.M)


@pytest.mark.parametrize("page", COMPUTING)
def test_computing_pages_use_cached_with_named_view_functions(page):
    code = _code(ROOT / "pages" / f"{page}.py")
    calls = re.findall(r"\bcached\(\s*([^,\s]+)", code)
    assert calls, f"{page}.py computes without the cached helper"
    assert not [c for c in calls if c.startswith("lambda")], calls
    # every view function a page caches is a view-model function of a view module
    # (``<module>_view.<function>``, imported as ``from evalcore.views import <module> as <module>_view``)
    import importlib

    assert all(re.fullmatch(r"\w+_view\.\w+", c) for c in calls), calls
    for c in calls:
        alias, fn = c.split(".")
        module = importlib.import_module(f"evalcore.views.{alias[:-len('_view')]}")
        assert callable(getattr(module, fn)), c


def _view_modules():
    import importlib
    import pkgutil

    from evalcore import views

    return [importlib.import_module(f"evalcore.views.{m.name}") for m in pkgutil.iter_modules(views.__path__)]


def test_no_central_query_hub():
    """A page is a slice: the query base holds only what every query shares (no page's query
    class and no view-model function), and each view module owns its page's query."""
    from evalcore.views import queries as Q

    own = [n for n, obj in vars(Q).items() if inspect.isclass(obj) and obj.__module__ == Q.__name__]
    assert own == ["Query"], own
    assert len((ROOT / "evalcore" / "views" / "queries.py").read_text(encoding="utf-8").splitlines()) <= 300


def _queries():
    from evalcore.views import queries as Q

    return [obj for mod in _view_modules() for _, obj in inspect.getmembers(mod, inspect.isclass)
            if dataclasses.is_dataclass(obj) and obj.__module__ == mod.__name__ and issubclass(obj, Q.Query)]


def test_every_query_is_frozen_hashable_and_a_stable_key():
    from evalcore.views import queries as Q

    qs = _queries()
    assert len(qs) >= 14  # one per computing page (some share CriterionQuery / SpansQuery / Query)
    from evalcore.scoring.settings import DEFAULTS, Settings

    s13 = DEFAULTS.with_(tokenizer="13a")
    for cls in qs:
        q = cls("abc123", s13)
        assert Q.check_query(q) is q
        assert hash(q) == hash(cls("abc123", s13)) and q == cls("abc123", s13)
        with pytest.raises(dataclasses.FrozenInstanceError):
            q.dataset = "other"  # type: ignore[misc]
        other = dataclasses.replace(q, settings=s13.with_(tokenizer="char"))
        assert Q.query_key(other) != Q.query_key(q)  # the tokenizer is part of every key
        assert q.tokenize == "13a" and other.tokenize == "char"
        assert Q.query_key(q) == repr(cls("abc123", s13)) and cls.__name__ in Q.query_key(q)
        # the one carrier: every shared choice is in the query's Settings, none beside it
        fields = {f.name: f.type for f in dataclasses.fields(cls)}
        assert fields.get("settings") in (Settings, "Settings"), cls
        assert "tokenize" not in fields and "tokenizer" not in fields, cls
        assert Q.query_key(dataclasses.replace(q, settings=s13.with_(judged_only=False))) != Q.query_key(q)


def test_check_query_refuses_what_cannot_be_a_key():
    from evalcore.views import queries as Q

    @dataclasses.dataclass
    class Loose:
        dataset: str

    @dataclasses.dataclass(frozen=True)
    class WithList(Q.Query):
        metrics: list = dataclasses.field(default_factory=list)

    with pytest.raises(TypeError, match="frozen"):
        Q.check_query(Loose("h"))
    with pytest.raises(TypeError, match="WithList.metrics"):
        Q.check_query(WithList("h", Q.DEFAULTS, ["bleu"]))
    with pytest.raises(TypeError, match="dataclass"):
        Q.check_query(("h", "13a"))


def test_view_model_functions_take_data_and_query():
    """Every function of a view module whose second parameter is annotated with a query class
    has the shape ``f(data, query)`` or ``f(data, query, progress=None)``: what ``cached`` calls."""
    names = {cls.__name__ for cls in _queries()} | {"Query"}
    checked = 0
    for mod in _view_modules():
        for name, fn in inspect.getmembers(mod, inspect.isfunction):
            if fn.__module__ != mod.__name__ or name.startswith("_"):
                continue
            params = list(inspect.signature(fn).parameters.values())
            if len(params) < 2 or str(params[1].annotation).strip("'") not in names:
                continue
            assert len(params) in (2, 3), (mod.__name__, name, [p.name for p in params])
            if len(params) == 3:
                assert params[2].name == "progress", (mod.__name__, name)
            checked += 1
    assert checked >= 40


def test_a_dataset_must_match_its_query():
    from evalcore.io import load_dataset
    from evalcore.views import queries as Q

    ds = load_dataset(ROOT / "sample_data" / "teaching_es_en")
    Q.check_data(ds, Q.Query(ds.content_hash()))
    with pytest.raises(ValueError, match="another dataset"):
        Q.check_data(ds, Q.Query("not-its-hash"))


def test_view_model_values_equal_the_views():
    """A view-model function called with a query gives what the view gives with the same explicit
    arguments, the query's tokenizer included (13a vs char differ)."""
    import pandas as pd

    from evalcore.io import load_dataset
    from evalcore.scoring.settings import DEFAULTS
    from evalcore.views import systems as V
    from evalcore.views.systems import system_table

    ds = load_dataset(ROOT / "sample_data" / "teaching_es_en")
    crit = ds.criteria[0]
    got = {}
    for tok in ("13a", "char"):
        q = V.SystemsQuery(ds.content_hash(), DEFAULTS.with_(tokenizer=tok), ("bleu",), (crit,), None, "raw", 0, "bootstrap")
        got[tok] = V.systems_table(ds, q)
        want = system_table(ds, ["bleu"], [crit], None, False, "raw", 0, "bootstrap",
                            settings=DEFAULTS.with_(tokenizer=tok, judged_only=False))
        pd.testing.assert_frame_equal(got[tok], want)
    m13, mch = (got[t][got[t]["kind"] == "metric"]["score"].to_numpy() for t in ("13a", "char"))
    assert (abs(m13 - mch) > 1e-6).any()


def test_sidebar_tokenizer_reaches_a_qarla_page_explicitly():
    """The Human-likeness page with the sidebar's tokenizer set to char: its ORANGE/KING table and
    signatures are those of the view called with ``tokenize="char"`` (the tokenizer travels in the
    page's query, not in a hidden setting), and differ from 13a's."""
    from streamlit.testing.v1 import AppTest

    from evalcore.io import load_dataset
    from evalcore.scoring.settings import DEFAULTS
    from evalcore.views.human_likeness import figure1_table

    ds = load_dataset(ROOT / "sample_data" / "teaching_es_en")
    got = {}
    for tok in ("char", "13a"):
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
        for k, v in {"tokenize_es-en": tok, "hl_metrics": ["bleu"], "hl_boot": 0}.items():
            at.session_state[k] = v
        at.run()
        at.switch_page("pages/human_likeness.py")
        at.run()
        assert not at.exception, [e.message for e in at.exception]
        table = next(df.value for df in at.dataframe if "king" in df.value.columns).set_index("metric")
        want = figure1_table(ds, ["bleu"], settings=DEFAULTS.with_(tokenizer=tok)).set_index("metric")
        assert abs(float(table.loc["bleu", "king"]) - float(want.loc["bleu", "king"])) < 1e-12
        assert abs(float(table.loc["bleu", "orange"]) - float(want.loc["bleu", "orange"])) < 1e-12
        assert f"tok:{tok}" in table.loc["bleu", "signature"]
        got[tok] = float(table.loc["bleu", "orange"])
    assert got["char"] != got["13a"]
