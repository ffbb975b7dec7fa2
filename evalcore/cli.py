"""Command-line interface: ``python -m evalcore <command> ...``.

Each module in :mod:`evalcore.commands` defines ``NAME``, ``HELP``, ``add_arguments(parser)``
and ``run(args) -> int``; they are discovered here, so commands live beside their maths.
Data problems exit with code 2 and every problem listed, never a traceback. ``--lp all`` runs a
command once per language pair (:mod:`evalcore.commands._lp`); ``--scheduler`` runs its
computations on Dask (:mod:`evalcore.parallel`); a failed distributed task exits with code 1.
"""
from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
import time

from . import __version__
from .parallel import Scheduler, SchedulerError
from .problems import DataError


class StderrProgress:
    """A progress callback(done, total) for commands: 'label: done/total' on stderr at most
    twice a second, and only for runs longer than 2 s."""

    def __init__(self, label: str):
        self.label, self.t0, self.last = label, time.time(), 0.0

    def __call__(self, done: int, total: int) -> None:
        now = time.time()
        if now - self.t0 < 2 or (now - self.last < 0.5 and done < total):
            return
        self.last = now
        end = "\n" if done >= total else ""
        print(f"\r{self.label}: {done}/{total} ({now - self.t0:.0f} s)", end=end, file=sys.stderr, flush=True)


def _command_modules():
    from . import commands

    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda i: i.name):
        if not info.name.startswith("_"):
            yield importlib.import_module(f"{commands.__name__}.{info.name}")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m evalcore",
                                     description="Meta-evaluation of machine-translation metrics.")
    parser.add_argument("--version", action="version", version=f"evalcore {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for mod in _command_modules():
        p = sub.add_parser(mod.NAME, help=mod.HELP, description=mod.HELP)
        mod.add_arguments(p)
        p.set_defaults(_run=mod.run, _text_output=getattr(mod, "TEXT_OUTPUT", False),
                       _handles_all_lps=getattr(mod, "HANDLES_ALL_LPS", False))
    return parser


def _run(args) -> int:
    """Run the command: under ``--scheduler`` (a Dask cluster for the command's lifetime) and,
    with ``--lp all``, once per language pair (:mod:`evalcore.commands._lp`)."""
    with Scheduler(getattr(args, "scheduler", None), progress_factory=StderrProgress) as sched:
        args._scheduler = sched
        if sched.distributed:
            print(f"scheduler: {sched.describe()}", file=sys.stderr)
        if getattr(args, "lp", None) == "all" and not args._handles_all_lps:
            from .commands._lp import run_all

            return run_all(args)
        return int(args._run(args) or 0)


def console() -> None:
    """Entry point of the installed ``evalcore`` command (same as ``python -m evalcore``)."""
    sys.exit(main())


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "command", None):
        parser.print_help()
        return 2
    try:
        return _run(args)
    except BrokenPipeError:  # output piped into e.g. `head`: stop quietly
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except DataError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    except SchedulerError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except (KeyError, ValueError, FileNotFoundError) as exc:
        msg = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        print(f"error: {msg}", file=sys.stderr)
        return 2
