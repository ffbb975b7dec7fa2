"""The commands are declared (evalcore.commands.COMMANDS), not discovered: the tuple names every
command module of the folder, once, and the parser offers exactly those commands."""
from __future__ import annotations

import pkgutil

import evalcore.commands as commands
from evalcore.cli import build_parser


def test_every_command_module_is_declared_once():
    found = sorted(m.name for m in pkgutil.iter_modules(commands.__path__) if not m.name.startswith("_"))
    assert len(set(commands.COMMANDS)) == len(commands.COMMANDS), commands.COMMANDS
    missing = sorted(set(found) - set(commands.COMMANDS))
    assert not missing, f"command modules not declared in evalcore/commands/__init__.py COMMANDS: {missing}"
    assert sorted(commands.COMMANDS) == found


def test_the_parser_offers_the_declared_commands():
    import importlib

    sub = next(a for a in build_parser()._actions if a.__class__.__name__ == "_SubParsersAction")
    names = [importlib.import_module(f"evalcore.commands.{m}").NAME for m in commands.COMMANDS]
    assert list(sub.choices) == names
