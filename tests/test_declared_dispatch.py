"""Commands dispatch on what the statistics registry declares, never on a statistic's name
(issue "registries that do not reach up"): ``correlate --lp all`` pools a statistic over the
language pairs when its registry entry says so (``Statistic.pools_language_pairs``)."""
from __future__ import annotations

import ast

from conftest import ROOT

from evalcore.stats.registry import REGISTRY, get


def test_pooling_over_language_pairs_is_declared_by_the_statistic():
    """Kocmi et al. (2021) pool the pairwise accuracy over every pair of systems of every
    language pair; no other registered statistic is pooled that way."""
    get("accuracy")  # (loads the plugins)
    assert {n for n, s in REGISTRY.items() if s.pools_language_pairs} == {"accuracy"}


def test_correlate_compares_no_method_with_a_statistic_name():
    """No ``args.method == "<name>"`` (or !=, in) in the correlate command: it reads the registry."""
    tree = ast.parse((ROOT / "evalcore" / "commands" / "correlate.py").read_text(encoding="utf-8"))
    names = set(REGISTRY) | {"accuracy", "pearson", "kendall", "spa"}
    offenders = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            method = any(isinstance(x, ast.Attribute) and x.attr == "method" for x in sides)
            literal = [x.value for x in ast.walk(node) if isinstance(x, ast.Constant) and x.value in names]
            if method and literal:
                offenders.append(f"correlate.py:{node.lineno}: {ast.unparse(node)}")
    assert not offenders, "\n".join(offenders)
