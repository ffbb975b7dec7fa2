"""The MQM weights in force for every loader of a run (the CLI's ``--mqm-weights``): a context
variable the loaders read (:mod:`evalcore.io` and :mod:`evalcore.io.tidy`, which reports
severities the weights do not define)."""
from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Mapping

MQMWeightsArg = Mapping[str, float] | str | None
_MQM_WEIGHTS: contextvars.ContextVar = contextvars.ContextVar("evalcore_mqm_weights", default=None)


@contextlib.contextmanager
def mqm_weights_in_force(weights: MQMWeightsArg):
    """Within the block, loaders score MQM error rows with ``weights`` unless given their own
    (the CLI's ``--mqm-weights`` for every command). None = the defaults of methods §0."""
    token = _MQM_WEIGHTS.set(weights)
    try:
        yield
    finally:
        _MQM_WEIGHTS.reset(token)


def current_mqm_weights() -> MQMWeightsArg:
    """The weights set by :func:`mqm_weights_in_force` (None = the defaults)."""
    return _MQM_WEIGHTS.get()
