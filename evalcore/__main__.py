"""``python -m evalcore``: the command line (:mod:`evalcore.cli`).

Run from a folder that holds a folder named ``evalcore`` without an ``__init__.py`` (a checkout of
the project named ``evalcore``, say), Python would take that folder for the package (a namespace
package, first on the path) and fail on its first relative import. Then the real package, the one
this file belongs to, is put first and imported again, and a note says which folder was passed over.
"""
import os
import sys


def _unshadow() -> None:
    pkg = sys.modules.get("evalcore")
    if pkg is None or getattr(pkg, "__file__", None) is not None:
        return  # the regular package: nothing shadows it
    here = os.path.dirname(os.path.abspath(__file__))
    passed_over = [p for p in getattr(pkg, "__path__", []) if os.path.abspath(p) != here]
    for name in [k for k in sys.modules if k == "evalcore" or k.startswith("evalcore.")]:
        if sys.modules[name] is not sys.modules.get("__main__"):
            del sys.modules[name]
    sys.path.insert(0, os.path.dirname(here))
    sys.stderr.write(f"note: the folder {', '.join(passed_over) or '?'} (no __init__.py) shadows the evalcore "
                     f"package here; using {here}\n")


_unshadow()

from evalcore.cli import main  # noqa: E402  (after the shadow check)

if __name__ == "__main__":  # guarded: Dask's worker processes (spawn) re-import the main module
    sys.exit(main())
