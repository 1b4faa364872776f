"""Faults the user reported on an item, read from the user's notes (the sentences no reader
typed), for the warranty rules (`constraints.document_rules.warranty_expiring`,
`constraints.warranty_faults.warranty_fault_open`).

In log order, after the warranty was first recorded: a note naming the item (`item_words`:
"the dishwasher"; the brand alone only when the item says nothing else), or one of the next
`_NEARBY` notes after such a note (the sentences that follow "Remember the Bosch?"), that
states a fault ("leaking", "stopped working", "won't drain") is an open fault; a later such
note saying it was fixed or replaced closes it. Sentences about buying, or about an old
item, state none.
"""

from __future__ import annotations

import re

from constraints.model import fact_ids_of
from constraints.views import DocumentRecord
from factlog.vocabulary import NOTE_ATTRIBUTE

_NEARBY = 3  # notes after one naming the item that are still about it (the same message)

FAULT = re.compile(
    r"\b(?:stopped (?:working|\w+ing)|quit working|(?:is not|isn't|not|won't|wont|doesn't|does not|can't|cannot|"
    r"will not|no longer) (?:working|work|turn(?:ing)? on|start|drain(?:ing)?|cool(?:ing)?|heat(?:ing)?|"
    r"charg(?:e|ing)|spin(?:ning)?|boot(?:ing)?|power(?:ing)? on|clos(?:e|ing)|dispens(?:e|ing)|mak(?:e|ing) ice|"
    r"hold(?:ing)? a charge)|"
    r"broke|broken|breaking down|leak\w*|drip\w*|puddle|flood\w*|dirty water|standing water|"
    r"(?:leaving|leaves|left) water|water (?:at|on|in) the bottom|"
    r"(?:weird|strange|loud|grinding|clicking|buzzing|rattling|squealing) (?:noise|sound)s?|error code|faulty|"
    r"malfunction\w*|dead pixels?|cracked|swell\w*|overheat\w*|flicker\w*|keeps? (?:shutting|turning off|"
    r"restarting|crashing|beeping|tripping|freezing)|lift(?:ing|s)? (?:up|at)|rust\w*|spark\w*|"
    r"smell\w* (?:like )?burn\w*|burning smell|no (?:hot water|heat|ice|sound|picture|power)|"
    r"making (?:a|an|this) (?:\w+ )?(?:noise|sound)|(?:shows?|showing|throws?|throwing) (?:an? )?error|"
    r"not (?:heating|cooling|draining|spinning|charging|working) (?:properly|right|anymore)?|died|"
    # the machine stops by itself (h-bills4): "cuts out every few seconds", "keeps cutting out", "won't stay on"
    r"cut(?:s|ting)? out|(?:shuts?|shutting|turns?|turning) (?:itself )?off (?:by itself|on its own)|"
    r"won't stay on|wont stay on)\b",
    re.I,
)
_NOT_FAULT = re.compile(r"\b(?:no|never|without|hasn't|has not|haven't|not a single|zero)\b[^.;]{0,25}"
                        r"\b(?:problems?|issues?|leaks?|faults?|trouble|broke|broken)\b|\b(?:old|previous|last)\s+"
                        r"(?:\w+\s+)?(?:one|model|unit)\b|\b(?:bought|purchased|ordered|replaced the old)\b", re.I)
FIXED = re.compile(r"\b(?:fixed|repaired|replaced (?:it|the)|resolved|works (?:again|fine|great)|working again|"
                   r"sorted (?:it )?out|good as new)\b", re.I)
_NOT_FIXED = re.compile(r"\b(?:not|n't|never|yet|still)\b[^.;]{0,12}$", re.I)
# the item named is someone else's: "Bev's", "my sister's", "her", "their" just before it (not "my", "our")
_SOMEONE_ELSES = re.compile(r"(?:\b(?!(?:it|that|what|there|here|who|he|she|let|today|tonight|yesterday|one|everyone)"
                            r"(?:'s|’s))[A-Za-z]+(?:'s|’s)|"
                            r"\b(?:her|his|their)|\w+s'|\b(?:neighbou?r|friend|sister|brother|mum|mom|dad|son|daughter)s)"
                            r"\s+(?:[\w-]+\s+){0,3}$", re.I)
_GENERIC = frozenset("the and new series model plan warranty extended limited standard labor labour parts unit "
                     "with inch gallon tank installation year month of to in on at by for my our it its".split())



def notes_of(module: object) -> list[tuple[int, str]]:
    """The module's notes as (first fact id, text), in log order."""
    return sorted((min(ids), str(getattr(note, "text", ""))) for note in getattr(module, NOTE_ATTRIBUTE, None) or ()
                  if (ids := fact_ids_of(note)))


def fault_on(warranty: DocumentRecord, notes: list[tuple[int, str]],
             others: tuple[DocumentRecord, ...] = ()) -> str | None:
    """The open fault the notes after the warranty was first recorded report on its item;
    `others`: the user's other warranties (a brand they share names neither item alone)."""
    first = min(fact_ids_of(warranty.source), default=0)
    shared = {word for other in others if other is not warranty and fold_item(other) != fold_item(warranty)
              for word in brand_words(other)}
    return open_fault([(i, text) for i, text in notes if i > first], item_words(warranty),
                      brand_words(warranty) - shared)


def fold_item(warranty: DocumentRecord) -> str:
    return (warranty.item or "").casefold()


def brand_words(warranty: DocumentRecord) -> frozenset[str]:
    """The brand's words: the provider's, and a capitalised first word of the item before
    what it is ("Dell" of "Dell XPS 14 laptop")."""
    item, provider = warranty.item or "", warranty.provider or ""
    brand = set(_words(provider))
    parts = item.split()
    if len(parts) > 1 and parts[0][:1].isupper():
        brand |= set(_words(parts[0]))
    return frozenset(brand)


def item_words(warranty: DocumentRecord) -> frozenset[str]:
    """The words that name the warranty's item: its item's words other than its brand (the
    provider, or the capitalised word before what the item is: "the Samsung phone" is not the
    Samsung washer),
    without generic ones; the brand and provider only when the item says nothing else
    (`fault_on` adds the brand when no other warranty of the user's has it)."""
    item, provider = warranty.item or "", warranty.provider or ""
    brand = set(_words(provider))
    parts = item.split()
    if len(parts) > 1 and parts[0][:1].isupper() and parts[-1][:1].islower():  # "Samsung washer", not "MacBook Air"
        brand |= set(_words(parts[0]))
    own = frozenset(_words(item)) - brand
    return own or frozenset(_words(f"{item} {provider}"))


def _words(text: str) -> list[str]:
    return [word for word in re.findall(r"[a-z][a-z0-9'-]+", text.casefold()) if word not in _GENERIC]


def open_fault(notes: list[tuple[int, str]], words: frozenset[str], brands: frozenset[str] = frozenset()) -> str | None:
    """The fault the notes (fact id, text; in id order) leave open on the item named by
    `words` (or by a brand of `brands` said alone: "the Dell has ...", not "the Dell
    monitor"), as said; None when none is, or the last one was fixed."""
    if not words and not brands:
        return None
    alternatives = [r"\b(?:" + "|".join(sorted(map(re.escape, words))) + r")s?\b"] if words else []
    if brands:
        alternatives.append(r"\b(?:" + "|".join(sorted(map(re.escape, brands))) + r")(?:'s|’s)?"
                            r"(?=\s*(?:[.,;:!?]|$)|\s+(?:is|isn't|has|hasn't|was|keeps|kept|stopped|started|began|won't|"
                            r"wont|doesn't|just|still|now|makes|making|broke|died|will|can't|randomly|suddenly|"
                            # (h-bills4) "dyson cuts out", "the Bosch leaks", "the LG shuts off"
                            r"cuts|cutting|shuts|turns|leaks|leaking|stops|starts|smells|sounds|throws|shows|gives|"
                            r"barely|only|no longer|sometimes|always|never)\b)")
    naming = re.compile("|".join(alternatives), re.I)
    named_at: int | None = None
    fault: str | None = None
    for fact_id, text in notes:
        named = naming.search(text)
        if named is not None and _SOMEONE_ELSES.search(text[: named.start()]):
            named_at = None  # "my neighbour Bev's Samsung fridge keeps tripping her breaker": not the user's
            continue
        if named is not None:
            named_at = fact_id
        elif named_at is None or fact_id - named_at > _NEARBY:
            continue
        fixed = FIXED.search(text)
        if fixed is not None and not _NOT_FIXED.search(text[:fixed.start()]):
            fault = None
        elif FAULT.search(text) and not _NOT_FAULT.search(text):
            fault = " ".join(text.split())[:120]
    return fault
