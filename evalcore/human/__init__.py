"""Human judgements: normalisation, aggregation, MQM, agreement, rankings, HTER (methods §0, §5).

Everything works on the long judgement frame of :class:`evalcore.core.dataset.Dataset` (columns
``system, seg_id, rater, judgement, score``; ``system`` may be a reference set) and returns
pandas frames. Pure functions, no UI. Import from the modules:

* :mod:`evalcore.human.normalise`: per-rater normalisation (raw, z, percentile), rater
  summaries, reliability weights and aggregation per (system, segment) (methods §5.1-5.2, §5.5).
* :mod:`evalcore.human.mqm`: MQM weights and the project's one MQM scorer (Freitag et al. 2021;
  methods §0, §5.7).
* :mod:`evalcore.human.agreement`: pairwise labels, agreement and kappa, per-rater agreement,
  agreement as judges are added (Callison-Burch 2009), Krippendorff's α (Krippendorff 2011;
  methods §5.3, §5.9).
* :mod:`evalcore.human.ranking`: relative-ranking scores and the Schulze method (Callison-Burch
  2009, Schulze 2011; methods §5.4).
* :mod:`evalcore.human.hter`: HTER with the minimum acceptable edit (Snover et al. 2006,
  Callison-Burch 2009; methods §5.6).
* :mod:`evalcore.human.scores`: human scores of a dataset per segment and per system (methods §0, §5).

Dependencies run one way: ``scores`` → ``normalise``, ``mqm``; ``normalise``, ``ranking`` →
``agreement``; ``agreement``, ``mqm`` and ``hter`` need no other evalcore module.
"""
