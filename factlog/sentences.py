"""Splitting chat turns into sentences, and telling small talk from statements.

A dictated run-on with no punctuation (no comma either) is cut into clauses before "so", "and",
"but", "also" ... when a subject follows ("... and i'm flying ...", `_clauses`).
The splitter is otherwise deliberately conservative: it never splits inside numbers ("$1.5"),
e-mail addresses or after common abbreviations ("Dr.", "St.", "e.g."), initials ("A.")
or ellipses ("the number is... 1234"), because a wrong split separates a label from its
value, while a missed split only makes one fact a little longer.
"""

from __future__ import annotations

import re
import unicodedata

MAX_SENTENCE_CHARS = 4000  # well under a fact's 64 KiB limit; longer runs are cut at spaces

ABBREVIATIONS = frozenset(
    "dr mr mrs ms mx st jr sr prof rev gen col capt lt sgt e.g i.e etc vs inc ltd co corp llc ave "
    "blvd rd apt no mt ft dept est approx a.m p.m u.s u.k jan feb mar apr jun jul aug sep sept oct "
    "nov dec mon tue tues wed thu thur thurs fri sat sun".split()
)
_BOUNDARY = re.compile(r"(?P<punct>[.!?]+)(?P<close>[\"')\]]*)\s+(?=[\"'(\[]?[A-Z0-9])")
_WORD_BEFORE = re.compile(r"([\w.]+)$")
# a dictated run-on (no sentence punctuation, RUN_ON_WORDS words or more) is cut before a
# joining word that starts a new clause: "... march third and i'm flying ... so we booked ..."
RUN_ON_WORDS = 25
_MIN_CLAUSE_WORDS = 5
_CLAUSE_JOIN = re.compile(
    r"\s(?=(?:(?:and\s+)?(?:so|then|also|anyway|plus)|oh\s+and|and|but)\s+"
    r"(?:i|i'm|i've|i'll|we|we're|we've|he|she|they|my|our|it's|its|there's)\b)",
    re.I,
)

ACK_WORDS = frozenset(
    """hi hello hey morning afternoon evening good great perfect perfectly ok okay sure yes yeah yep
    yup no nope got it sounds right that that's thats this all works work fine cool awesome excellent
    wonderful nice lovely thanks thank you so much very really appreciate appreciated it's its alright
    understood makes sense of course absolutely definitely totally exactly correct oh wow hmm well and
    a lot better helpful to know will do done noted gotcha haha please is be sounds that'll would
    just then""".split()
)
_CLOSING = re.compile(
    r"^(?:thanks?\b|thank you|appreciate|have a (?:good|great|nice|wonderful)|bye\b|goodbye|"
    r"you(?:'ve| have) been|(?:i think )?(?:that|this) (?:covers|is) (?:everything|all|it)\b)"
)
# words that may follow a closing phrase ("... for your help, Sarah")
CLOSING_WORDS = frozenset(
    "for your the help time being thorough patient patience everything assistance day a an i "
    "needed need it all today again".split()
)
_WORDS = re.compile(r"[a-z0-9']+")


def split_sentences(text: str) -> list[str]:
    """Sentences of `text`, stripped, none empty, none longer than MAX_SENTENCE_CHARS.
    Control characters and lone surrogates (which facts refuse) become spaces."""
    sentences: list[str] = []
    for line in _printable(text).split("\n"):
        start = 0
        for match in _BOUNDARY.finditer(line):
            if _is_boundary(line, match):
                sentences.append(line[start : match.end("close")])
                start = match.end()
        sentences.append(line[start:])
    return [piece for s in sentences if s.strip() for clause in _clauses(s.strip()) for piece in _bounded(clause)]


def _clauses(sentence: str) -> list[str]:
    """A dictated run-on's clauses (see `RUN_ON_WORDS`); any other sentence whole."""
    if len(sentence.split()) < RUN_ON_WORDS or re.search(r"[,.!?;:](?:\s|$)", sentence[:-1]):
        return [sentence]
    clauses: list[str] = []
    start = 0
    for match in _CLAUSE_JOIN.finditer(sentence):
        head, tail = sentence[start:match.start()], sentence[match.end():]
        if len(head.split()) >= _MIN_CLAUSE_WORDS and len(tail.split()) >= _MIN_CLAUSE_WORDS:
            clauses.append(head.strip())
            start = match.end()
    return [*clauses, sentence[start:].strip()]


def _printable(text: str) -> str:
    text = text.replace("\r\n", "\n")
    return "".join(
        " " if ch not in "\n\t" and unicodedata.category(ch) in ("Cc", "Cs") else ch for ch in text
    )


def _is_boundary(line: str, match: re.Match[str]) -> bool:
    punct = match.group("punct")
    if "?" in punct or "!" in punct:
        return True
    if len(punct) > 1:  # an ellipsis: speech trailing off, not a sentence end
        return False
    before = _WORD_BEFORE.search(line[: match.start()])
    if before is None:
        return True
    word = before.group(1).lower()
    if word in ABBREVIATIONS or (len(word) == 1 and word.isalpha()):
        return False
    return True


def _bounded(sentence: str) -> list[str]:
    pieces: list[str] = []
    while len(sentence) > MAX_SENTENCE_CHARS:
        cut = sentence.rfind(" ", 0, MAX_SENTENCE_CHARS)
        cut = cut if cut > 0 else MAX_SENTENCE_CHARS
        pieces.append(sentence[:cut].strip())
        sentence = sentence[cut:].strip()
    return [*pieces, sentence] if sentence else pieces


def words(text: str) -> list[str]:
    return _WORDS.findall(text.lower().replace("\u2019", "'"))


def is_small_talk(sentence: str) -> bool:
    """Pure pleasantry or acknowledgement ("Hi", "Thanks!", "Yes, that all sounds right.")."""
    if any(ch.isdigit() for ch in sentence):
        return False
    tokens = words(sentence)
    names = {w.lower() for w in re.findall(r"\b[A-Z][a-z]+", sentence)}
    for position in range(len(tokens) + 1):
        rest = " ".join(tokens[position:])
        closing = _CLOSING.match(rest)
        if closing is not None:
            tail = rest[closing.end() :].split()
            return all(t in ACK_WORDS or t in CLOSING_WORDS or t in names for t in tail)
        if position < len(tokens) and tokens[position] not in ACK_WORDS:
            return False
    return True


def is_acknowledgement(sentence: str) -> bool:
    """Every word is an acknowledgement ("Yes, definitely.", "Sure, why not" is not)."""
    tokens = words(sentence)
    return bool(tokens) and all(t in ACK_WORDS for t in tokens)
