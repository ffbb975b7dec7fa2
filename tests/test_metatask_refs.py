"""The primary reference of every recipe and language pair is mt-metrics-eval's own choice
(``meta_info.DATA[test set][lp].std_ref``, the oracle in ../shared/oracles/mt-metrics-eval)."""
from __future__ import annotations

import sys

import pytest

from conftest import SHARED_DATA

ORACLE = SHARED_DATA.parent / "oracles" / "mt-metrics-eval"


def _meta_info():
    if not ORACLE.exists():
        pytest.skip(f"mt-metrics-eval oracle {ORACLE} is absent")
    if str(ORACLE) not in sys.path:
        sys.path.insert(0, str(ORACLE))
    from mt_metrics_eval import meta_info  # dataclasses only: no apache_beam needed

    return meta_info


@pytest.mark.parametrize("name", ["wmt22", "wmt23", "wmt24", "wmt25"])
def test_primary_reference_is_mtme_std_ref(name):
    from evalcore.analysis.metatask_tasks import TASKS

    data = _meta_info().DATA[name]
    task = TASKS[name]
    got = {lp: task.ref_for(lp) for lp in data}
    want = {lp: info.std_ref for lp, info in data.items()}
    assert got == want
    assert all(lp in data for lp in task.lps)  # the recipe's own pairs are in its test set
