"""The one list of dashboard pages: ``app.py`` builds its navigation from it, the browser tests
visit every entry, the Data page lists every entry, and the README's page table is a selection of
its entries, word for word (tests/test_cli_docs.py).

Plain data, no Streamlit: adding a page is a ``pages/<slug>.py`` file plus one entry here.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PageInfo:
    slug: str        #: file name under pages/ without .py; also the URL path
    title: str       #: navigation title (the page's h1 starts with it)
    icon: str
    summary: str     #: the README's one-line description
    figure: bool     #: draws a Plotly figure on the bundled sample (the browser test waits for it)
    default: bool = False
    glossary: bool = True  #: shows a terms box (optional: a page without one says glossary=False)

    @property
    def path(self) -> str:
        return f"pages/{self.slug}.py"


PAGES: tuple[PageInfo, ...] = (
    PageInfo("data", "Data", "🗂️", "choose, upload or import a dataset; validation report, counts, "
             "a searchable segment table", True, default=True),
    PageInfo("systems", "Systems", "📊", "corpus scores with bootstrap CIs and paired tests, "
             "metrics vs humans, rank agreement", True),
    PageInfo("campaign", "Campaign", "🌍", "every language pair side by side: human and metric "
             "scores, WMT-style correlation tables", True),
    PageInfo("metatask", "Metrics task", "🏆", "the WMT metrics-task leaderboard (SPA, acc-eq, average "
             "rank) with significance clusters", True),
    PageInfo("compare", "Compare two systems", "🆚", "paired significance, buckets, characteristic "
             "n-grams, word diffs beside the references", True),
    PageInfo("human_likeness", "Human-likeness", "👑", "QARLA ORANGE and KING per metric with random "
             "baselines (Amigó et al. 2006, Figure 1)", True),
    PageInfo("likeness_vs_acceptability", "Likeness vs acceptability", "🎯", "KING against "
             "correlation with humans, metric-set search (Figure 3)", True),
    PageInfo("queen_vs_human", "QUEEN vs human", "👸", "QUEEN against human scores with the "
             "acceptable-but-not-human-like quadrant (Figure 4)", True),
    PageInfo("divergence", "Divergence browser", "🔎", "outputs where two signals disagree most, "
             "with matched n-grams and every score", False),
    PageInfo("judges", "Judges", "⚖️", "rater distributions, agreement, kappa and α, Schulze "
             "consensus, HTER", True),
    PageInfo("references", "References & comprehension", "📚", "reference quality, Detect MT, "
             "reading comprehension (Callison-Burch 2009)", True),
    PageInfo("experts", "Experts vs non-experts", "🏅", "agreement with a chosen gold group as "
             "non-experts are combined (Callison-Burch 2009)", True),
    PageInfo("learned", "Learned metrics", "🧠", "train a BEER-style ranker or a human-likeness "
             "classifier and compare it with BLEU and chrF", False),
    PageInfo("detective", "Metric detective", "🕵️", "perturb real outputs in known ways and see which metric "
             "notices; a class leaderboard of rewrites that fool the metrics", True),
    PageInfo("playground", "Metric playground", "🧪", "edit a candidate and watch every metric react; "
             "challenges that break metrics", False),
    PageInfo("annotate", "Annotate", "✍️", "students judge outputs (DA, ESA, MQM-lite, ranking of 2-5 outputs) "
             "into a saved dataset, with QC items", False),
    PageInfo("classroom", "Class", "🧑‍🏫", "the class's judgements as they arrive: progress, agreement, QC, "
             "metric correlations, Schulze ranking", False),
    PageInfo("learn", "Learn (guided tour)", "🎓", "the seeds' lessons on the sample corpus, stop "
             "by stop", False),
)
