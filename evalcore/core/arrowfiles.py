"""Arrow reads that never leave Python memory to Arrow's thread pools.

Arrow reads ahead on its own I/O thread pool (the CSV reader's blocks, a Feather or Parquet
file's footer and column chunks). When what it reads is Python memory (bytes wrapped with
``pa.py_buffer``, or blocks read through a Python file object, which is what pandas hands
Arrow for a path), a pool thread may hold the last reference to it after the call returned,
and then takes the GIL to release it. If the interpreter is exiting by then, Python ends that
thread inside Arrow's C++ code and the process aborts with SIGABRT ("terminate called without
an active exception") after all its work was done: apache/arrow#34314 and #45017 describe it.
A child process of the suite that had saved a dataset died that way, under load, about once
in four full runs; gdb showed Arrow pool threads destroying such Python-backed buffers.

Every read here gives Arrow memory or a file it owns, which a pool thread frees without the
GIL: :func:`arrow_owned` copies bytes once into an Arrow buffer, :func:`read_feather` and
:func:`read_parquet` open the file with Arrow's own ``OSFile`` and let pandas convert the table
exactly as :func:`pandas.read_feather` / :func:`pandas.read_parquet` do for a path.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa


def arrow_owned(data: bytes, start: int = 0) -> pa.Buffer:
    """``data[start:]`` as a ``pyarrow.Buffer`` that Arrow allocated (one memcpy)."""
    import numpy as np
    import pyarrow as pa

    view = np.frombuffer(data, dtype=np.uint8, offset=start)
    buf = pa.allocate_buffer(len(view))
    np.frombuffer(buf, dtype=np.uint8)[:] = view
    return buf


def read_feather(path: str | Path) -> pd.DataFrame:
    """:func:`pandas.read_feather` of ``path``, read through Arrow's own file."""
    import pandas as pd
    import pyarrow as pa

    with pa.OSFile(str(path), "rb") as fh:
        return pd.read_feather(fh)


def read_parquet(path: str | Path) -> pd.DataFrame:
    """:func:`pandas.read_parquet` of ``path``, read through Arrow's own file."""
    import pandas as pd
    import pyarrow as pa

    with pa.OSFile(str(path), "rb") as fh:
        return pd.read_parquet(fh)
