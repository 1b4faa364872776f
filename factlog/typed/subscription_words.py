"""Words for subscriptions that `factlog.typed.money` reads, kept apart so that module
stays readable: amounts said in words ("twelve hundred a year", "a hundred and five
dollars", "thirteen ninety-nine a month"), vendor spellings ("Disney plus" is Disney+),
services without a brand ("the gym takes 40 bucks every month"), a cancellation done in
other words ("killed my Hulu", "got rid of Netflix"), and whether an intent word is one
("I cancelled it before it charged me" states no intent).

Standard library only; no import from `factlog.typed.money` (it imports this).
"""

from __future__ import annotations

import re

from factlog.number_words import CARDINAL, PAIR, TENS, UNITS, pair_price, value_of
from factlog.typed.common import RELATIONS

_WORD = "|".join(sorted((*UNITS, *TENS, "a", "an", "hundred", "thousand", "and"), key=len, reverse=True))
# a run of number words followed by a money unit or a cadence: "sixty five dollars", "twelve hundred a year"
_SPOKEN = re.compile(
    rf"(?<![\w$])(?P<words>(?:(?:{_WORD})(?:[\s-]+|$))+?)"
    r"(?P<unit>dollars?|bucks|a (?:month|year|week)|per (?:month|year|week)|(?:each|every) (?:month|year|week)|"
    r"monthly|yearly|annually|weekly|/\s?(?:mo|month|yr|year)\b|left\b)", re.I)  # "twelve hundred left on it"


def _value(words: list[str]) -> float | None:
    """ "twelve hundred" 1200, "a hundred and five" 105, "sixty five" 65, "thirteen ninety
    nine" 13.99 (a price said as two numbers, `factlog.number_words.pair_price`); "one fifty"
    (1.50 or 150), "a twelve" and "a" alone None."""
    words = [w for w in words if w != "and"]
    if not words or words[0] in ("a", "an") and (len(words) == 1 or words[1] not in ("hundred", "thousand")):
        return None
    phrase = " ".join(words)
    if re.fullmatch(PAIR, phrase, re.I):
        return pair_price(phrase)
    value = value_of(phrase) if re.fullmatch(CARDINAL, phrase, re.I) else None
    return value or None


_GRAND = re.compile(rf"(?<![\w$.])(?P<n>\d{{1,3}}(?:\.\d)?|{_WORD})\s+grand\b", re.I)


# a debt said in words with no unit: "we still owe about eleven hundred on the card" (a hundred or more)
_OWED = re.compile(rf"\b(?:owe|owes|owing|owed)\s+(?:(?:about|around|roughly|like|nearly|almost|over|under|just)\s+)*"
                   rf"(?P<words>(?:(?:{_WORD})(?:[\s-]+|$))+)", re.I)


def spoken_amounts(text: str) -> list[float]:
    """Amounts said in words before a money unit or a cadence ("2 grand" too), or after
    "owe" ("owe about eleven hundred"), in text order."""
    out = [float(m.group("n")) * 1000 if m.group("n")[0].isdigit() else (_value([m.group("n").lower()]) or 0) * 1000
           for m in _GRAND.finditer(text)]
    out = [value for value in out if value > 0]
    for owed in _OWED.finditer(text):
        words = [w.lower() for w in re.split(r"[\s-]+", owed.group("words").strip()) if w]
        while words and words[-1] in ("and", "a", "an"):
            words.pop()
        value = _value(words) if words and words[0] not in ("a", "an") or len(words) > 1 else None
        if value is not None and value >= 100 and not _SPOKEN.match(text, owed.start("words")):
            out.append(value)
    for match in _SPOKEN.finditer(text):
        words = [w.lower() for w in re.split(r"[\s-]+", match.group("words").strip()) if w]
        while words and words[0] == "and":
            words.pop(0)
        value = _value(words)
        if value is not None and match.group("unit").lower() == "left" and value < 100:
            continue  # "two left on the list": a count, not money
        if value is not None and value > 0:
            out.append(value)
    return out


# spellings of one vendor: the usual name wins
VENDOR_ALIASES = {"disney plus": "Disney+", "paramount plus": "Paramount+", "paramount": "Paramount+",
                  "creative cloud": "Adobe Creative Cloud", "now": "NOW TV",
                  "apple tv plus": "Apple TV+",
                  "icloud plus": "iCloud+", "walmart plus": "Walmart+", "espn plus": "ESPN+", "hbo": "HBO Max"}
ALIAS_NAMES = ("Disney plus", "Paramount plus", "Paramount", "Apple TV plus", "iCloud plus", "Walmart plus",
               "ESPN plus", "iCloud+",
               # more services than money.VENDORS lists
               "Shudder", "BritBox", "Acorn TV", "MUBI", "Criterion Channel", "Curiosity Stream", "CuriosityStream",
               "DAZN", "Nebula", "Twitch Turbo", "Xbox Live", "Nintendo Online", "Apple Fitness+", "Fitbit Premium",
               "Tinder", "Bumble", "Hinge", "YouTube Music", "Deezer", "Starz", "Showtime", "AMC+", "Discovery+",
               "Hallmark Movies Now", "Funimation", "Frndly TV", "Philo TV", "Google Fi", "Visible", "Ancestry",
               "23andMe", "Microsoft Game Pass", "Game Pass", "Nord VPN", "Surfshark", "Proton", "Medium", "Readly",
               "Chegg", "Quizlet", "Rosetta Stone", "Busuu", "Weight Watchers", "MyFitnessPal", "Whoop", "Oura",
               "Zwift", "Beachbody", "Factor", "Home Chef", "Green Chef", "Imperfect Foods", "Misfits Market",
               "Instacart", "Shipt", "Grubhub+", "Lyft Pink", "BJ's", "Amazon Kids+", "Apple News+", "ESPN",
               # (h-bills4) British, African, Australian, Canadian and Asian streaming; software a freelancer pays
               "NOW TV", "Sky Sports", "Sky Go", "BT Sport", "TNT Sports", "DStv", "GOtv", "Showmax", "Kayo",
               "Foxtel", "Binge", "Stan", "Crave", "Hotstar", "Disney+ Hotstar", "JioCinema", "Viu", "iQIYI",
               "Figma", "Slack", "GitHub Copilot", "JetBrains", "Miro", "Loom", "Webflow", "Framer", "Setapp",
               "Calendly", "Zapier", "Airtable", "ClickUp", "Todoist", "Bitwarden", "Dashlane", "Mailchimp",
               "Shopify", "GoDaddy", "Xero", "QuickBooks", "FreshBooks", "DocuSign", "Midjourney", "Claude Pro",
               "Perplexity Pro", "Creative Cloud", "Adobe Creative Cloud", "Lightroom", "Photoshop")
# names that are also plain words ("of paramount importance", "a medium pizza"): only when capitalised
CAPITALISED_ONLY = ("Paramount", "Medium", "Visible", "Factor", "Hinge", "Nebula", "Whoop", "Proton", "Showtime",
                    "Starz", "Max", "Slack", "Loom", "Binge", "Stan", "Crave", "Miro", "Framer")

# a service without a brand, named by what it is ("the gym takes 40 bucks every month")
GENERIC_SERVICE = re.compile(
    r"\b(?:the|my|our)\s+(?P<name>gym|climbing gym|yoga studio|yoga|pilates(?: studio)?|crossfit|swim club|"
    r"golf club|country club|meal kit|wine club|coffee subscription|newspaper|paper|magazine|cloud storage)"
    r"(?:\s+(?:membership|subscription))?\b"
    r"(?!\s+(?:bag|shoes|class(?:es)?|session|teacher|instructor)\b)", re.I)

# a cancellation done, said without "cancel": "killed my Hulu", "we got rid of Netflix", "dropped Spotify"
CANCELLED_OTHERWISE = re.compile(
    r"(?:^\W*|\b(?:i|we|i've|we've|i have|we have|finally|just|already)\s+)(?:finally\s+|just\s+|already\s+)?"
    r"(?:killed|dropped|ditched|got rid of|quit|unsubscribed from|stopped paying for)\b|"
    # "I made sure to cancel the Babbel trial", "went ahead and cancelled", "turned off the free trial renewal"
    r"\b(?:made sure|managed|remembered|got around) to cancel\b|\bwent ahead and cancel\w*|"
    r"\b(?:turned|switched|shut)\s+off\s+(?:\w+\s+){0,3}?(?:auto-?)?renew\w*", re.I)

# a renewal the user means to stop: "I'm not renewing Adobe", "I don't want Hulu to renew", "let it lapse"
NOT_RENEWING = re.compile(
    r"\b(?:not|won't|will not|never)\s+(?:going to\s+|gonna\s+)?renew(?:ing)?\b|"
    r"\b(?:don't|do not)\s+want\s+(?:\S+\s+){0,3}?(?:to\s+)?(?:auto-?)?renew\b|\blet\s+(?:it|\S+)\s+lapse\b", re.I)
# a cancellation meant in other words ("I want to get rid of Peacock"), with money.INTENT
CANCEL_MEANT = re.compile(r"\b(?:get rid of|drop|ditch|dump|quit|unsubscribe from|stop paying for)\b|"
                          r"\b(?:turn|switch|shut)\s+off\s+(?:\w+\s+){0,3}?(?:auto-?)?renew\w*", re.I)

# "before it charged", "before it renewed": a time, not an intent
_BEFORE_PAST = re.compile(r"\bbefore it\s+(?:\w+ed|ran out|kicked in|began|went)\b", re.I)


def intends(intent: re.Pattern[str], sentence: str) -> bool:
    """`intent` finds an intent in `sentence` other than "before it <past tense>"."""
    past = [m.span() for m in _BEFORE_PAST.finditer(sentence)]
    return any(not any(start <= m.start() < end for start, end in past) for m in intent.finditer(sentence))


# the user's running subscription said without "subscription": "we share a Disney+ plan", "my husband pays for
# his own ESPN+", "Spotify's $11 now", "Netflix went up to $24.99"
ACTIVE = re.compile(
    r"\b(?:share|shared|sharing|pays? for|paying for|i'm on|we're on|on the \w+ plan|went up|goes up|going up|"
    r"put (?:the|their) price up|raised (?:the|its) price)\b|(?:'s|\bis)\s+\$?\d[\d.,]*\s+now\b|"
    rf"\b(?:my|our)\s+(?:{'|'.join(RELATIONS)})\s+(?:has|have|gets|uses)\b", re.I)

# a subscription the user had or never had: "I used to pay for Spotify", "I don't have Netflix"
NOT_HAD = re.compile(r"\b(?:used to|don't have|do not have|never had|never signed up|don't pay for|do not pay for)\b",
                     re.I)
NO_LONGER = re.compile(r"\bno longer\s+(?:have|pay|subscribe|use)\b|\b(?:don't|do not)\s+(?:have|pay for)\b.*"
                       r"\b(?:anymore|any more)\b", re.I)

# a service no list names, given as a list line or a recap's item with its price and renewal:
# "- Figma Professional: $144/yr, renews Sept 2", "Saved: Acme Sync, $8 a month, renewing May 3"
_LISTED = re.compile(
    r"(?:^[\W_]*|:\s+)(?:and\s+|also\s+)?(?P<name>(?-i:[A-Z])[\w+&'.-]*(?:\s+(?-i:[A-Z0-9])[\w+&'.-]*){0,3})"
    r"(?=\s*(?::|,|\s[-\u2013\u2014]|\s+is\b))(?=[^.;]*?(?:[$\u00a3\u20ac\u20a6]\s?\d|\d\s?(?:dollars|bucks|naira|k)\b|"
    r"\b\d+\.\d\d\b))(?=[^.;]*\b(?:renew\w*|billed|charged|auto-?renew\w*|subscription|membership)\b)", re.I)
# plan words after the service's name: "Figma Professional" is Figma
_PLAN_WORDS = frozenset("professional pro plus premium basic standard team teams business personal family individual "
                        "student starter essentials annual monthly plan tier".split())
# list lines that are no service: a statement's fields, bills, a budget's lines
_NOT_LISTED = frozenset("amount total balance payment payments statement minimum due date item warranty price cost "
                        "subtotal tax fee fees rent mortgage electric electricity gas water sewer trash internet phone "
                        "insurance car auto loan groceries food budget savings noted saved recorded updated got "
                        "confirmed done understood okay ok so the my our your this that it renewal renews next "
                        "also and".split())


def listed_service(clause: str) -> str | None:
    """The service a list line or a recap's item names by a capitalised name no list has,
    with a price and a renewal said in the same clause; its plan words left out."""
    for match in _LISTED.finditer(clause):  # "Saved: Raycast Pro, $8 a month, ...": not "Saved"
        words = match.group("name").split()
        if words[0].casefold().strip(".") in _NOT_LISTED:
            continue
        while len(words) > 1 and words[-1].casefold() in _PLAN_WORDS:
            words.pop()
        return " ".join(words)
    return None

# a cancellation refused ("I'm not cancelling Netflix", "I won't cancel it", Nigerian Pidgin "I no go cancel
# am"): no intent, whoever suggested one ("my brother says make I cancel DStv, but I no go cancel am")
KEEPS = re.compile(r"(?:\bnot|n't|\bnever|\bno\s+go|\bno\s+dey|\bno way i'?m)\s+(?:going\s+to\s+|gonna\s+|be\s+)?"
                   r"(?:cancel\w*|drop\w*|ditch\w*|get(?:ting)? rid of|quit\w*|unsubscrib\w*)\b", re.I)
