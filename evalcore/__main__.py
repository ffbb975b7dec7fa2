import sys

from .cli import main

if __name__ == "__main__":  # guarded: Dask's worker processes (spawn) re-import the main module
    sys.exit(main())
