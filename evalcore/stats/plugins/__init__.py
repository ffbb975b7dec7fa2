"""Statistics that register themselves: each module here calls
:func:`evalcore.stats.registry.register` at import time and is imported by the registry before
it is first listed or searched (``registry._load_plugins``). A new correlation statistic is one
module here plus its test; the CLI choices, page selectors, glossary and the generated docs
table of methods §3.3 read the registry."""
