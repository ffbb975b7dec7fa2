"""The teaching set's reading-comprehension test, written by the team (after Callison-Burch 2009, §5.3).

Three questions per document of ``teaching_corpus.py``; each question hinges on one segment.
For every system and for the human translation ``ref-A`` (the control row) a reader's answer,
written by the team from what that translation says, and the team's grade: 1 = correct,
0.5 = partly correct, 0 = wrong or unanswerable. Readers are assigned so that nobody reads two
translations of the same document (as in the seed). ``pleonastic`` and ``wrong-sense`` keep a
high BLEU but change the meaning (inserted negations, antonyms, wrong word senses): their
readers answer wrongly.

Each entry: (doc_id, question_id, seg_id, question, sample answer, {system: (grade, answer)}).
"""
from __future__ import annotations

READ_AS = ["ref-A", "near-human", "literal", "synonyms", "dropped-content", "wrong-sense", "untranslated", "pleonastic"]

QUESTIONS = [
    ("noticias", "q1", "1", "What did the city council decide yesterday?", "It approved next year's budget.", {
        "ref-A": (1, "approved the budget for next year"),
        "near-human": (1, "approved next year's budget"),
        "literal": (1, "approved the budget for the coming year"),
        "synonyms": (1, "endorsed the spending plan for next year"),
        "dropped-content": (0.5, "approved a budget (not said for when)"),
        "wrong-sense": (0, "approved a quote"),
        "untranslated": (0, "approved the presupuesto, whatever that is"),
        "pleonastic": (0, "it did not approve the budget"),
    }),
    ("noticias", "q2", "3", "What will the Central Bank do in March?", "Raise interest rates by half a point.", {
        "ref-A": (1, "raise interest rates by half a point"),
        "near-human": (1, "raise interest rates half a point"),
        "literal": (0.5, "raise some 'types of interest'"),
        "synonyms": (1, "push borrowing costs up by half a point"),
        "dropped-content": (1, "raise interest rates"),
        "wrong-sense": (0, "a 'Central Bench' raises interest types; unclear"),
        "untranslated": (0.5, "raise the tipos de interés, probably interest rates"),
        "pleonastic": (0, "it will not raise interest rates"),
    }),
    ("noticias", "q3", "4", "When will it be very cold?", "Tomorrow.", {
        "ref-A": (1, "tomorrow"),
        "near-human": (1, "tomorrow"),
        "literal": (1, "tomorrow"),
        "synonyms": (1, "the next day"),
        "dropped-content": (1, "tomorrow"),
        "wrong-sense": (0, "in the morning"),
        "untranslated": (0, "no idea (mañana?)"),
        "pleonastic": (1, "tomorrow"),
    }),
    ("parlamento", "q1", "13", "Whom does the speaker thank, and for what?",
     "The rapporteur, for her excellent work on the report.", {
         "ref-A": (1, "the rapporteur, for her excellent work on the report"),
         "near-human": (1, "the rapporteur, for her work on this report"),
         "literal": (0.5, "the speaker, for work on the report"),
         "synonyms": (1, "the author of the paper, for her superb efforts"),
         "dropped-content": (0.5, "the rapporteur; no reason given"),
         "wrong-sense": (0.5, "the speaker, for the job done in the report"),
         "untranslated": (0.5, "the ponente, for work on the informe"),
         "pleonastic": (0, "nobody: the speaker would not like to thank the rapporteur"),
     }),
    ("parlamento", "q2", "14", "What has Parliament already done about the proposal?",
     "It has requested it by a large majority.", {
         "ref-A": (1, "requested it by a large majority"),
         "near-human": (1, "called for it by a large majority"),
         "literal": (1, "solicited it by an ample majority"),
         "synonyms": (1, "MEPs endorsed it overwhelmingly"),
         "dropped-content": (0, "the text does not say"),
         "wrong-sense": (1, "requested it by a wide majority"),
         "untranslated": (0.5, "solicitó it by amplia mayoría, so asked for it?"),
         "pleonastic": (0, "rejected it by a large majority"),
     }),
    ("parlamento", "q3", "15", "When will the vote take place?", "Tomorrow at noon.", {
        "ref-A": (1, "tomorrow at twelve"),
        "near-human": (1, "tomorrow at noon"),
        "literal": (0.5, "tomorrow, at 'the twelve'"),
        "synonyms": (1, "the following day at noon"),
        "dropped-content": (0.5, "tomorrow (no time given)"),
        "wrong-sense": (0, "in the morning"),
        "untranslated": (0.5, "at twelve, on some day"),
        "pleonastic": (0.5, "tomorrow at ten"),
    }),
    ("vida-diaria", "q1", "23", "What is the speaker looking for?", "The nearest train station.", {
        "ref-A": (1, "the nearest train station"),
        "near-human": (1, "the closest train station"),
        "literal": (1, "the nearest train station"),
        "synonyms": (1, "the closest rail depot"),
        "dropped-content": (0.5, "a train station"),
        "wrong-sense": (0, "a 'train season'?"),
        "untranslated": (0, "cannot tell"),
        "pleonastic": (0, "the furthest train station"),
    }),
    ("vida-diaria", "q2", "24", "Where are they having dinner tonight?", "At the speaker's parents' house.", {
        "ref-A": (1, "at the speaker's parents' house"),
        "near-human": (1, "at my parents' house"),
        "literal": (0.5, "at the house of the fathers"),
        "synonyms": (1, "at the speaker's folks'"),
        "dropped-content": (0, "not said"),
        "wrong-sense": (0.5, "at the fathers' house"),
        "untranslated": (0, "en casa de... no idea"),
        "pleonastic": (1, "at the parents' house"),
    }),
    ("vida-diaria", "q3", "26", "What has the speaker lost?", "The car keys.", {
        "ref-A": (1, "the car keys"),
        "near-human": (1, "the car keys"),
        "literal": (0.5, "the keys of the coach"),
        "synonyms": (1, "the car's key fob"),
        "dropped-content": (1, "the car keys"),
        "wrong-sense": (0, "some car wrenches"),
        "untranslated": (0, "las llaves, something"),
        "pleonastic": (0, "the house keys"),
    }),
]


def comprehension_rows(lp: str) -> list[list]:
    """lp, system, doc_id, question_id, rater, correct, question, answer: one reader per
    (system, document); no reader sees two translations of one document."""
    docs = list(dict.fromkeys(q[0] for q in QUESTIONS))
    rows = []
    for doc, qid, _seg, question, _sample, answers in QUESTIONS:
        d = docs.index(doc)
        for k, system in enumerate(READ_AS):
            grade, answer = answers[system]
            reader = f"reader-{(k + 3 * d) % 24 + 1:02d}"
            rows.append([lp, system, doc, qid, reader, grade, question, answer])
    return rows
