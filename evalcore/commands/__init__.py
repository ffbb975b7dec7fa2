"""CLI subcommands, one module each, declared in :data:`COMMANDS` (read by evalcore.cli).

A new command is its module here (``NAME``, ``HELP``, ``add_arguments(parser)``, ``run(args)``)
and its name in :data:`COMMANDS`; ``tests/test_command_registry.py`` fails for a module of this
folder that is not declared (a leading ``_`` means "a helper, not a command"). The CLI reads
each module through :func:`spec_of` (:class:`CommandSpec`: the optional attributes with their
declared defaults), never by probing it."""
from __future__ import annotations

from dataclasses import dataclass, fields
from types import ModuleType
from typing import Any, Callable

#: the command modules of this package, in the order ``evalcore --help`` lists them (by name)
COMMANDS: tuple[str, ...] = (
    "adaptive", "calibrate", "card", "compare", "comprehension", "correlate", "detect", "detective", "experts",
    "export_judgements", "export_mtme", "import_judgements", "judges", "learn", "metatask", "plan",
    "qarla", "queen", "rank", "references", "score", "search", "spans", "stability", "validate",
    "verify_card",
)

#: module attribute -> CommandSpec field, for the optional declarations of a command module
OPTIONAL = {"OUTPUTS": "outputs", "STATES_SETTINGS": "states_settings", "JUDGED_SEGMENTS": "judged_segments",
            "TEXT_OUTPUT": "text_output", "HANDLES_ALL_LPS": "handles_all_lps", "LP_ALL": "lp_all"}


@dataclass(frozen=True)
class CommandSpec:
    """What a command module declares, with the declared default of every optional attribute
    (the CLI reads a command only through this; ``tests/test_command_registry.py`` checks every
    command against it).

    ``outputs``: the files it writes (``OUTPUTS``: attribute names of ``args``, or ``(attribute,
    suffix, ...)`` for a prefix option), checked before any work; ``states_settings``: it prints
    its own settings line, resolved on the data (``STATES_SETTINGS``); ``judged_segments``: its
    metric scores are compared with the humans on the judged segments only, with no option for
    it (``JUDGED_SEGMENTS``); ``text_output``: it writes text, not a table (``TEXT_OUTPUT``);
    ``handles_all_lps``: it takes ``--lp all`` itself (``HANDLES_ALL_LPS``); ``lp_all``: ``--lp
    all`` runs it once per language pair (``LP_ALL``, :mod:`evalcore.commands._lp`)."""

    name: str
    help: str
    add_arguments: Callable[[Any], None]
    run: Callable[[Any], int]
    outputs: tuple = ()
    states_settings: bool = False
    judged_segments: bool = False
    text_output: bool = False
    handles_all_lps: bool = False
    lp_all: bool = False


def spec_of(module: ModuleType) -> CommandSpec:
    """The :class:`CommandSpec` of a command module: ``NAME``, ``HELP``, ``add_arguments`` and
    ``run`` are required; the attributes of :data:`OPTIONAL` take their declared defaults.
    A wrongly typed declaration is a TypeError naming the module and attribute."""
    ns = vars(module)
    missing = [a for a in ("NAME", "HELP", "add_arguments", "run") if a not in ns]
    if missing:
        raise TypeError(f"command module {module.__name__} lacks {', '.join(missing)}")
    kw: dict[str, Any] = {}
    defaults = {f.name: f.default for f in fields(CommandSpec)}
    for attr, field in OPTIONAL.items():
        if attr in ns:
            value = ns[attr]
            want = type(defaults[field])
            if not isinstance(value, want):
                raise TypeError(f"{module.__name__}.{attr} must be a {want.__name__}, not {type(value).__name__}")
            kw[field] = value
    return CommandSpec(ns["NAME"], ns["HELP"], ns["add_arguments"], ns["run"], **kw)
