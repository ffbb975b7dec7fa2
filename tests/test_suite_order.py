"""The order of the test files (tests/conftest.py): the most costly first, by tests/costs.tsv, so
that pytest-xdist's `--dist loadfile` starts long files first and its workers finish together.
Expected orders and sums below are worked by hand."""
from __future__ import annotations

from pathlib import Path

from conftest import COSTS, ROOT, order_by_cost, read_costs
from file_costs import file_costs


class _Item:
    def __init__(self, file: str, name: str):
        self.path = Path("/x/tests") / file
        self.name = name


def test_files_go_most_costly_first_and_keep_their_inner_order():
    items = [_Item("test_a.py", "a1"), _Item("test_a.py", "a2"), _Item("test_b.py", "b1"),
             _Item("test_c.py", "c1"), _Item("test_d.py", "d1"), _Item("test_d.py", "d2"),
             _Item("test_e.py", "e1"), _Item("test_f.py", "f1"), _Item("test_f.py", "f2"),
             _Item("test_g.py", "g1")]
    # listed: a 1 s, b 9 s, d 9 s, e 3 s (b and d tie: collection order); then the unlisted
    # files, f (2 items) before c and g (1 item each, collection order)
    order_by_cost(items, {"test_a.py": 1.0, "test_b.py": 9.0, "test_d.py": 9.0, "test_e.py": 3.0})
    assert [i.name for i in items] == ["b1", "d1", "d2", "e1", "a1", "a2", "f1", "f2", "c1", "g1"]


def test_no_recorded_costs_leaves_the_collection_order():
    items = [_Item("test_z.py", "z"), _Item("test_a.py", "a")]
    order_by_cost(items, {})
    assert [i.name for i in items] == ["z", "a"]


def test_costs_are_summed_per_file_from_a_durations_log():
    log = """
============================= slowest durations ==============================
12.50s call     tests/test_big.py::test_one[x-1]
2.00s setup    tests/test_big.py::test_one[x-1]
0.25s teardown tests/test_small.py::test_two
3.00s call     tests/sub/test_small.py::TestK::test_three
(12 durations < 0.005s hidden.  Use -vv to show these durations.)
"""
    assert file_costs(log) == {"test_big.py": 14.5, "test_small.py": 3.25}


def test_the_recorded_costs_name_existing_test_files_and_xdist_keeps_the_order():
    costs = read_costs(COSTS)
    assert costs, COSTS
    missing = sorted(name for name in costs if not (ROOT / "tests" / name).exists())
    assert not missing, f"{COSTS} lists test files that no longer exist: {missing}"
    assert all(s >= 0 for s in costs.values())
    # without --no-loadscope-reorder, xdist re-sorts the files by their number of tests
    # (a heavy file with one test would start last)
    line = next(x for x in (ROOT / "scripts" / "test.sh").read_text().splitlines() if "pytest -q -n" in x)
    assert "--dist loadfile" in line and "--no-loadscope-reorder" in line, line
