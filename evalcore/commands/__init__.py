"""CLI subcommands, one module each, declared in :data:`COMMANDS` (read by evalcore.cli).

A new command is its module here (``NAME``, ``HELP``, ``add_arguments(parser)``, ``run(args)``)
and its name in :data:`COMMANDS`; ``tests/test_command_registry.py`` fails for a module of this
folder that is not declared (a leading ``_`` means "a helper, not a command")."""

#: the command modules of this package, in the order ``evalcore --help`` lists them (by name)
COMMANDS: tuple[str, ...] = (
    "adaptive", "calibrate", "card", "compare", "comprehension", "correlate", "detect", "detective", "experts",
    "export_judgements", "export_mtme", "import_judgements", "judges", "learn", "metatask", "plan",
    "qarla", "queen", "rank", "references", "score", "search", "spans", "stability", "validate",
    "verify_card",
)
