"""Command-line interface: ``python -m evalcore <command> ...``.

Each module in :mod:`evalcore.commands` defines ``NAME``, ``HELP``, ``add_arguments(parser)``
and ``run(args) -> int``; :data:`evalcore.commands.COMMANDS` declares them, so commands live beside their maths.
Data problems exit with code 2 and every problem listed, never a traceback. ``--lp all`` runs a
command once per language pair (:mod:`evalcore.commands._lp`); ``--scheduler`` runs its
computations on Dask (:mod:`evalcore.scoring.parallel`); a failed distributed task exits with code 1.
"""
from __future__ import annotations

import argparse
import importlib
import sys

from . import __version__
from .scoring.parallel import Scheduler, SchedulerError
from .core.problems import DataError
from .core.export import OutputError, check_outputs  # noqa: F401  (re-exported; commands import them from export)
from .core.progress import StderrProgress  # noqa: F401  (re-exported: commands used to import it from here)


def output_paths(args) -> list[str]:
    """The files a command will write, from its module's ``OUTPUTS``: attribute names of
    ``args`` (``"out"``), or ``(attribute, suffix, ...)`` for a prefix option that names several
    files (``("out_prefix", "agreement.tsv", "raters.tsv")``)."""
    paths = []
    for spec in getattr(args, "_outputs", ()):
        attr, *suffixes = (spec,) if isinstance(spec, str) else spec
        value = getattr(args, attr, None)
        if value:
            paths += [f"{value}{s}" for s in suffixes] if suffixes else [str(value)]
    return paths


def _command_modules():
    """The command modules, as :data:`evalcore.commands.COMMANDS` declares them."""
    from . import commands

    for name in commands.COMMANDS:
        yield importlib.import_module(f"{commands.__name__}.{name}")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m evalcore",
                                     description="Meta-evaluation of machine-translation metrics.")
    parser.add_argument("--version", action="version", version=f"evalcore {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    from .commands import spec_of

    for mod in _command_modules():
        spec = spec_of(mod)  # the declared attributes, the optional ones with their declared defaults
        p = sub.add_parser(spec.name, help=spec.help, description=spec.help)
        spec.add_arguments(p)
        if any(a.dest == "path" for a in p._actions):  # every command that reads a dataset
            p.add_argument("--quoting", choices=["csv", "none"], default="csv",
                           help="how TSV fields are read: csv (RFC 4180: a field may be quoted with \"; "
                                "the default) or none (every field literal: for texts that begin with \" "
                                "without being quoted)")
        p.add_argument("--mqm-weights", metavar="WEIGHTS",
                       help="MQM error weights overriding the defaults of Freitag et al. (2021) (major:5 minor:1 "
                            "neutral:0 no-error:0 minor/fluency/punctuation:0.1 major/non-translation:25), e.g. "
                            "'critical:25 minor/fluency/punctuation:1'; applied wherever MQM error rows are read")
        p.set_defaults(_run=spec.run, _outputs=tuple(spec.outputs), _states_settings=spec.states_settings,
                       _judged_segments=spec.judged_segments, _text_output=spec.text_output,
                       _handles_all_lps=spec.handles_all_lps, _lp_all=spec.lp_all)
    return parser


def _dispatch(args) -> int:
    """Run the command: under ``--scheduler`` (a Dask cluster for the command's lifetime) and,
    with ``--lp all``, once per language pair (:mod:`evalcore.commands._lp`)."""
    with Scheduler(getattr(args, "scheduler", None), progress_factory=StderrProgress) as sched:
        args._scheduler = sched
        if sched.distributed:
            print(f"scheduler: {sched.describe()}", file=sys.stderr)
        if not args._states_settings:  # the one settings line (evalcore.scoring.settings), as on every page
            from .scoring.settings import command_line

            print(f"settings: {command_line(args)}", file=sys.stderr)
        if getattr(args, "lp", None) == "all" and not args._handles_all_lps:
            if not args._lp_all:  # its tables have no lp column yet: one file per pair would overwrite
                raise ValueError(f"{args.command} does not support --lp all yet; run it once per language pair (--lp LP)")
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
    from .io.text import QUOTING
    from .scoring.parallel import use_system_allocator

    use_system_allocator()
    token = QUOTING.set(getattr(args, "quoting", None) or "csv")
    try:
        return _run(args)
    finally:
        QUOTING.reset(token)


def _run(args) -> int:
    try:
        check_outputs(output_paths(args))  # before any work: a bad output path never costs a long run
        weights = getattr(args, "mqm_weights", None)
        if weights:
            from .human.mqm import format_mqm_weights

            print(f"MQM weights: {format_mqm_weights(weights)} (applied wherever MQM error rows are read)",
                  file=sys.stderr)
        from .io import mqm_weights_in_force

        with mqm_weights_in_force(weights or None):
            return _dispatch(args)
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
    except OSError as exc:  # a full disk, a read-only folder, ...: a message, not a traceback
        import errno as _errno

        outs = output_paths(args)
        what = exc.strerror or str(exc)
        where = exc.filename or (", ".join(outs) if outs else "")
        hint = (" (the disk is full: free some space)" if exc.errno in (_errno.ENOSPC, getattr(_errno, "EDQUOT", -1))
                else "")
        kept = (f"; nothing was written to {', '.join(outs)} (a file already there is unchanged)"
                if outs else "")
        print(f"error: {what}{': ' + str(where) if where else ''}{hint}{kept}", file=sys.stderr)
        return 2
