"""Result objects instead of ``DataFrame.attrs``: evalcore returns its notes, warnings and the
values that go with a table in :mod:`evalcore.core.results` dataclasses (Streamlit sends a frame's
attrs to the browser as JSON, where a NaN or an object breaks the page)."""
from __future__ import annotations

import ast
import math
import pickle
import sys
from pathlib import Path

import pandas as pd
import pytest

from conftest import ROOT
from evalcore.core.results import Curve, Detailed, Normalised, Ranked, Result, Subset


def attrs_uses(root: Path) -> list[str]:
    """``path:line`` of every ``x.attrs`` (and ``getattr(x, "attrs")``) in the .py files under root."""
    found = []
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr == "attrs":
                found.append(f"{path.relative_to(root)}:{node.lineno}")
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                  and node.func.id in ("getattr", "setattr", "hasattr") and len(node.args) >= 2
                  and isinstance(node.args[1], ast.Constant) and node.args[1].value == "attrs"):
                found.append(f"{path.relative_to(root)}:{node.lineno}")
    return found


@pytest.mark.parametrize("folder", ["evalcore", "pages"])
def test_no_dataframe_attrs_side_channel(folder):
    """Notes, warnings and support counts travel in result objects, never in ``DataFrame.attrs``."""
    assert attrs_uses(ROOT / folder) == []


def test_the_attrs_check_finds_a_planted_use(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "ok.py").write_text("def f(df):\n    return df.assign(x=1)\n")
    (tmp_path / "pkg" / "bad.py").write_text("def f(df):\n    df.attrs['note'] = 'x'\n    return df\n")
    (tmp_path / "pkg" / "sneaky.py").write_text("def f(df):\n    return getattr(df, 'attrs')\n")
    assert attrs_uses(tmp_path / "pkg") == ["bad.py:2", "sneaky.py:2"]


def test_results_module_is_the_bottom_layer():
    """evalcore/core/results.py imports pandas and the standard library only (every layer may use it)."""
    tree = ast.parse((ROOT / "evalcore" / "core" / "results.py").read_text(encoding="utf-8"))
    mods = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            mods |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, "no relative import in evalcore/core/results.py"
            mods.add(node.module.split(".")[0])
    assert mods - set(sys.stdlib_module_names) - {"__future__"} == {"pandas"}


def test_results_pickle_and_hash_by_identity():
    """st.cache_data and the pages' memo pickle what a producer returns; a DataFrame field must not
    make comparison or hashing ask for a DataFrame's truth value."""
    t = pd.DataFrame({"system": ["a", "b"], "score": [1.0, float("nan")]})
    objs = [Result(t, notes=["n1"], warnings=("w1",), method="m"),
            Curve(t, reference_agreement=float("nan"), k_max=3),
            Normalised(t, excluded_raters=[{"rater": "r"}], summary=t),
            Ranked(t, support={"ballots": 3}), Subset(t, n_compared=7),
            Detailed(t, detail=t.head(1), segments=["1", "2"])]
    for r in objs:
        back = pickle.loads(pickle.dumps(r))
        assert type(back) is type(r)
        pd.testing.assert_frame_equal(back.table, r.table)
        assert back.notes == r.notes and back.warnings == r.warnings and back.method == r.method
        assert r == r and r != back and hash(r) == hash(r)  # identity: no DataFrame comparison
    assert objs[0].notes == ("n1",) and objs[0].messages() == ("w1", "n1")  # lists become tuples
    assert math.isnan(pickle.loads(pickle.dumps(objs[1])).reference_agreement)
    assert pickle.loads(pickle.dumps(objs[2])).excluded_raters == ({"rater": "r"},)
    assert pickle.loads(pickle.dumps(objs[5])).segments == ("1", "2")
    with pytest.raises(AttributeError):
        objs[0].notes = ("changed",)  # frozen
