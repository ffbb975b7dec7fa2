"""Write docs/cli.md from the command-line parser and refresh the README's page table (a
selection of the pages) from the page registry (pages/registry.py), so neither drifts from the code.

Run ``python scripts/gen_cli_docs.py`` after adding or changing a command, an option or a page;
``tests/test_cli_docs.py`` fails while either differs from what this script writes.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET = ROOT / "docs" / "cli.md"

HEADER = """# Command-line reference

Generated from the parser by `python scripts/gen_cli_docs.py` (a test checks that this file is
current): every command, every option, its default and its help text. How the commands fit
together, with examples, is in [usage.md](usage.md).

`python -m evalcore COMMAND …` and the installed `evalcore COMMAND …` are the same program. Data
problems exit with code 2 and list every problem with its file and line; a failed distributed task
exits with code 1.
"""


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _option_row(action: argparse.Action) -> str:
    if action.option_strings:
        names = ", ".join(f"`{o}`" for o in action.option_strings)
    else:
        names = f"`{action.metavar or action.dest}` (positional)"
    if action.nargs == 0:
        value = ""
    elif action.choices is not None:
        value = " \\| ".join(f"`{c}`" for c in action.choices)
    else:
        value = f"`{action.metavar or action.dest.upper()}`"
    default = action.default
    # identity, not equality: a default of 0 (a seed) is shown, only None / False / SUPPRESS are not
    if default is None or default is False or default is argparse.SUPPRESS:
        shown = ""
    else:
        shown = f"`{default}`"
    helptext = "" if action.help in (None, argparse.SUPPRESS) else action.help
    if helptext and "%(default)s" in helptext:
        helptext = helptext.replace("%(default)s", str(default))
    return f"| {names} | {value} | {shown} | {_cell(helptext)} |"


def render() -> str:
    sys.path.insert(0, str(ROOT))
    from evalcore.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    out = [HEADER, "## Commands", "", "| command | what it does |", "|---|---|"]
    helps = {c.dest: c.help for c in sub._choices_actions}
    for name in sorted(sub.choices):
        out.append(f"| [`{name}`](#{name}) | {_cell(helps.get(name, ''))} |")
    for name in sorted(sub.choices):
        p = sub.choices[name]
        out += ["", f"## {name}", "", _cell(helps.get(name, "")), "",
                "| option | value | default | meaning |", "|---|---|---|---|"]
        for action in p._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            out.append(_option_row(action))
    return "\n".join(out) + "\n"


def readme_with_page_table(readme: str) -> str:
    """The README with the rows of its page table (a selection: the Data page lists every page)
    rewritten from the page registry: each row's summary is its entry's, rows of pages no longer
    registered go, and a new page gets no row unless one is added by hand."""
    sys.path.insert(0, str(ROOT))
    from pages.registry import PAGES

    head, rest = readme.split("| page | what it shows |\n|---|---|\n", 1)
    tail = rest[rest.index("\n\n"):]
    shown = {ln.split("|")[1].strip() for ln in rest[:rest.index("\n\n")].splitlines() if ln.startswith("|")}
    rows = "\n".join(f"| {p.title} | {p.summary} |" for p in PAGES if p.title in shown)
    return f"{head}| page | what it shows |\n|---|---|\n{rows}{tail}"


def main() -> None:
    TARGET.write_text(render(), encoding="utf-8")
    readme = ROOT / "README.md"
    readme.write_text(readme_with_page_table(readme.read_text(encoding="utf-8")), encoding="utf-8")
    print(f"wrote {TARGET.relative_to(ROOT)} and refreshed the README's page table")


if __name__ == "__main__":
    main()
