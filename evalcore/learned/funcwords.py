"""Small built-in function-word lists (Stanojević & Sima'an 2015 §2.3: word matching split into function and
content words). Written for this project: closed-class words (articles, pronouns,
prepositions, conjunctions, auxiliaries, common particles), lower-case, plus punctuation,
which BEER also treats as non-content. Any token not in the list is a content word.
Languages are keyed by ISO code; an unknown language falls back to punctuation only (every
word is then a content word) and :func:`function_words` says so through ``known``.
"""
from __future__ import annotations

import string

_PUNCT = set(string.punctuation) | {"“", "”", "„", "‘", "’", "«", "»", "–", "—", "…", "‚", "·"}

_EN = """
a an the this that these those some any each every no none all both either neither
i me my mine myself you your yours yourself yourselves he him his himself she her hers herself
it its itself we us our ours ourselves they them their theirs themselves one ones
who whom whose which what whatever whoever where when why how there here
and or but nor so yet if then than because as while although though unless until since whether
of in on at by for with about against between into through during before after above below to
from up down out off over under again further onto upon within without along across behind
beyond near toward towards among around via per
am is are was were be been being have has had having do does did doing done
will would shall should can could may might must ought
not n't 's 're 've 'll 'd 'm also just only very too more most such own same other another
"""

_DE = """
der die das den dem des ein eine einer eines einem einen kein keine keiner keines keinem keinen
dieser diese dieses diesem diesen jener jene jenes jedem jeden jeder jede jedes alle allem allen aller alles
ich mich mir du dich dir er ihn ihm sie es wir uns ihr euch ihnen sich man
mein meine meinem meinen meiner meines dein deine sein seine seinem seinen seiner seines
unser unsere unserem unseren unserer euer eure ihre ihrem ihren ihrer ihres
wer wen wem wessen was welche welcher welches welchem welchen wo wann warum wie dort hier da
und oder aber denn sondern doch dass daß ob wenn als weil obwohl während bis seit damit sodass
von vom zu zum zur in im ins an am ans auf aus bei beim mit nach über unter vor hinter neben
zwischen durch für gegen ohne um bis seit ab gegenüber trotz wegen statt
bin bist ist sind seid war warst waren wart sein gewesen habe hast hat haben habt hatte hatten gehabt
werde wirst wird werden werdet wurde wurden worden geworden
kann kannst können könnt konnte konnten muss musst müssen müsst musste mussten
soll sollst sollen sollt sollte sollten will willst wollen wollt wollte wollten
darf dürfen durfte mag mögen möchte möchten
nicht auch nur noch schon sehr so zu ja nein doch mal eben etwa
"""

FUNCTION_WORDS: dict[str, frozenset[str]] = {
    "en": frozenset(_EN.split()),
    "de": frozenset(_DE.split()),
}


def target_language(lp: str | None) -> str:
    """Target language code of a language pair such as ``en-de`` (``de``); '' if unknown."""
    if not lp:
        return ""
    return lp.split("-")[-1].strip().lower()


def function_words(lang: str) -> tuple[frozenset[str], bool]:
    """(function-word set, whether a list for ``lang`` exists). Punctuation is always included."""
    words = FUNCTION_WORDS.get((lang or "").lower())
    return frozenset((words or frozenset()) | _PUNCT), words is not None


def is_function_word(token: str, words: frozenset[str]) -> bool:
    t = token.lower()
    return t in words or all(ch in _PUNCT for ch in t)
