"""Small helpers on :class:`SimTensors` used by the QARLA commands."""
from __future__ import annotations

import dataclasses

import numpy as np


def subset_segments(t, seg_ids):
    """A copy of ``t`` restricted to ``seg_ids`` (in that order), e.g. the judged segments.

    The QUEEN pool (methods §0) is built from the segments of the tensors, so restricting first
    also restricts the pool."""
    pos = {s: i for i, s in enumerate(t.seg_ids)}
    missing = [s for s in seg_ids if s not in pos]
    if missing:
        raise KeyError(f"{len(missing)} segment(s) not in the tensors, e.g. {missing[:3]}")
    idx = np.array([pos[s] for s in seg_ids], dtype=int)
    return dataclasses.replace(
        t, seg_ids=[t.seg_ids[i] for i in idx],
        sys_ref=np.asarray(t.sys_ref)[:, idx], ref_ref=np.asarray(t.ref_ref)[idx],
        loo_sys=np.asarray(t.loo_sys)[:, idx], loo_ref=np.asarray(t.loo_ref)[idx])
