"""CLI subcommands, one module each (discovered by evalcore.cli)."""
