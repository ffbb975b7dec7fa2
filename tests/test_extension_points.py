"""Adding a metric or a correlation statistic is one file (plus its test): on a copy of the
package, one new module in ``evalcore/metrics/`` and one in ``evalcore/stats/plugins/`` are
found, registered and computed with no other file edited (docs/architecture.md, "Where things
go"). The values are checked against a hand computation and scipy."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

from scipy.stats import spearmanr

import evalcore.metrics._load_all as load_all

ROOT = Path(__file__).resolve().parent.parent

TOY_METRIC = '''
"""Toy length ratio: min(|c|, |r|) / max(|c|, |r|) in words, best over the references."""
from .base import Metric, MetricMeta, make_signature, register


@register("toy-len")
class ToyLength(Metric):
    meta = MetricMeta(id="toy-len", family="toy", description="length ratio", citation="none")

    def sentence_score(self, cand, refs):
        c = len(cand.split())
        return max(min(c, len(r.split())) / max(c, len(r.split()), 1) for r in refs)

    def signature(self, nrefs=None, level=None):
        return make_signature([], nrefs=nrefs, version="0", metric="toy-len")
'''

TOY_STAT = '''
"""Toy Spearman: Pearson of the within-row ranks (ties averaged), one value per group."""
import numpy as np
from scipy.stats import rankdata

from ..registry import Statistic, register


def _rows(g, m, **kw):
    vals = []
    for gr, mr in zip(g, m):
        ok = ~np.isnan(gr)
        vals.append(np.corrcoef(rankdata(gr[ok]), rankdata(mr[ok]))[0, 1])
    return np.array(vals), None


register(Statistic(name="toy_spearman", label="toy Spearman", rows=_rows, levels=("system",),
                   term="toy Spearman", definition="Pearson of ranks"))
'''

CHECK = '''
import json
from evalcore.metrics.base import get_metric, metric_ids
from evalcore.stats.correlation import correlation
from evalcore.stats import registry
import numpy as np
m = get_metric("toy-len")
gold = [1.0, 2.0, 3.0, 4.0, 5.0]
metric = [2.0, 1.0, 4.0, 3.0, 5.0]
r = correlation(np.array(gold), np.array(metric), method="toy_spearman")
print(json.dumps({"ids": "toy-len" in metric_ids(), "score": m.sentence_score("a b", ["a b c d", "x"]),
                  "sig": str(m.signature(1)), "stat": "toy_spearman" in registry.REGISTRY,
                  "value": float(r.value)}))
'''


def test_every_family_module_is_loaded():
    """Every module of evalcore/metrics/ that is neither private nor infrastructure is a family
    that registers metrics, and every such module is loaded."""
    import evalcore.metrics.base as base

    families = load_all.families()
    assert set(load_all.BUILTIN) <= set(families)
    ids = base.metric_ids()
    for fam in families:
        mod = sys.modules[f"evalcore.metrics.{fam}"]
        assert any(isinstance(v, type) and getattr(v, "__module__", "") == mod.__name__
                   and issubclass(v, base.Metric) for v in vars(mod).values()), fam
    assert ids  # registered


def test_one_new_file_adds_a_metric_and_one_a_statistic(tmp_path):
    copy = tmp_path / "repo"
    shutil.copytree(ROOT / "evalcore", copy / "evalcore", ignore=shutil.ignore_patterns("__pycache__"))
    (copy / "evalcore" / "metrics" / "toylen.py").write_text(textwrap.dedent(TOY_METRIC))
    (copy / "evalcore" / "stats" / "plugins" / "toystat.py").write_text(textwrap.dedent(TOY_STAT))
    out = subprocess.run([sys.executable, "-c", CHECK], cwd=copy, capture_output=True, text=True, timeout=300,
                         env={"PYTHONPATH": str(copy), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path),
                              "EVALCORE_HOME": str(tmp_path / "home")})
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["ids"] and got["stat"]
    assert got["score"] == 0.5  # "a b" vs "a b c d": 2/4; vs "x": 1/2 -> best 0.5
    assert got["sig"].startswith("toy-len") and "nrefs:1" in got["sig"]
    expected = spearmanr([1, 2, 3, 4, 5], [2, 1, 4, 3, 5]).statistic
    assert abs(got["value"] - expected) < 1e-12
