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


def test_the_cli_reads_each_command_through_its_declared_spec():
    """Every command module passes :func:`evalcore.commands.spec_of` (required attributes present,
    optional ones of the declared type), and the parser's defaults are the spec's: the CLI probes
    nothing itself."""
    import importlib

    from evalcore.commands import OPTIONAL, CommandSpec, spec_of

    sub = next(a for a in build_parser()._actions if a.__class__.__name__ == "_SubParsersAction")
    seen = set()
    for m in commands.COMMANDS:
        mod = importlib.import_module(f"evalcore.commands.{m}")
        spec = spec_of(mod)
        assert isinstance(spec, CommandSpec) and spec.name == mod.NAME and spec.run is mod.run
        p = sub.choices[spec.name]
        for attr, field in OPTIONAL.items():
            assert p.get_default(f"_{field}") == (tuple(getattr(spec, field)) if field == "outputs"
                                                   else getattr(spec, field)), (m, attr)
            if attr in vars(mod):
                seen.add(attr)
                assert getattr(spec, field) == vars(mod)[attr]
    assert seen == set(OPTIONAL), f"declared optional attributes no command uses: {set(OPTIONAL) - seen}"


def test_spec_of_refuses_a_wrongly_typed_or_incomplete_command():
    import types

    import pytest

    from evalcore.commands import CommandSpec, spec_of

    mod = types.ModuleType("evalcore.commands.fake")
    mod.NAME, mod.HELP = "fake", "a fake command"
    mod.add_arguments = lambda p: None
    with pytest.raises(TypeError, match="lacks run"):
        spec_of(mod)
    mod.run = lambda args: 0
    assert spec_of(mod) == CommandSpec("fake", "a fake command", mod.add_arguments, mod.run)
    mod.LP_ALL = "yes"
    with pytest.raises(TypeError, match="fake.LP_ALL must be a bool, not str"):
        spec_of(mod)
