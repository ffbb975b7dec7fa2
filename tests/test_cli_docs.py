"""docs/cli.md is generated from the parser: it must list every command and option as they are."""
from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _generator():
    spec = importlib.util.spec_from_file_location("gen_cli_docs", ROOT / "scripts" / "gen_cli_docs.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_cli_reference_is_current():
    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    assert text == _generator().render(), "docs/cli.md is stale: run python scripts/gen_cli_docs.py"


def test_cli_reference_names_every_option():
    import argparse

    from evalcore.cli import build_parser

    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    for name, parser in sub.choices.items():
        assert f"## {name}\n" in text, name
        for action in parser._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            for opt in action.option_strings:
                assert f"`{opt}`" in text, (name, opt)
            # a default of 0 (a seed) is a default: shown, not left blank as None is
            if action.option_strings and action.default is not None and action.default is not False \
                    and action.default is not argparse.SUPPRESS and action.nargs != 0:
                section = text.split(f"## {name}\n")[1].split("\n## ")[0]
                row = next(ln for ln in section.splitlines() if ln.startswith(f"| `{action.option_strings[0]}`"))
                assert row.split(" | ")[2] == f"`{action.default}`", (name, row)


def test_readme_refresh_keeps_the_selection(tmp_path):
    """The generator rewrites the README rows it finds from the registry and adds none."""
    from pages.registry import PAGES

    gen = _generator()
    first, second = PAGES[0], PAGES[1]
    readme = (f"# x\n\n| page | what it shows |\n|---|---|\n| {first.title} | stale |\n| Gone | old |\n\nafter\n")
    out = gen.readme_with_page_table(readme)
    assert f"| {first.title} | {first.summary} |" in out and "Gone" not in out and second.title not in out
    assert out.endswith("\n\nafter\n")


def test_readme_page_table_comes_from_the_page_registry_and_readme_stays_short():
    """The README's page table is a selection of the registry's entries, word for word and in the
    registry's order (a new page needs no README row: the Data page lists every page)."""
    from pages.registry import PAGES

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.encode("utf-8")) <= 6 * 1024, "README.md should stay under 6 KB: move detail to docs/"
    table = readme.split("| page | what it shows |")[1].split("\n\n")[0]
    rows = [ln for ln in table.strip().splitlines()[1:] if ln.startswith("|")]
    registry_rows = [f"| {p.title} | {p.summary} |" for p in PAGES]
    assert rows and all(r in registry_rows for r in rows), [r for r in rows if r not in registry_rows]
    assert rows == sorted(rows, key=registry_rows.index), "README rows in the registry's order"
    for p in PAGES:
        assert (ROOT / p.path).exists(), p.path
    # every page file is registered (a page that is not in the registry would never be reachable)
    files = {f.stem for f in (ROOT / "pages").glob("*.py")} - {"common", "registry", "__init__"}
    assert files == {p.slug for p in PAGES}


def test_readme_opens_with_the_two_commands():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = readme.split("```bash\n")[1:3]
    first, second = (b.split("\n```")[0].strip() for b in blocks)
    assert "pip install -e ." in first and "streamlit run app.py" in first
    assert second == "bash scripts/test.sh"
    assert "bash scripts/test.sh" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")
