"""Money from a sentence: subscriptions (vendor, amount, cadence, next charge, trial end,
status), bills and card balances, deadlines ("the board pack is due on the 18th") and
promotional periods ("0% for 15 months", "6 months no interest") as deadlines; and the
amount and date helpers `factlog.typed.payments` (payment instructions, accounts) shares.

Entities and keys:
- a subscription is keyed by its vendor; a sentence naming none ("gonna cancel before it
  charges again") is about the session's last subscription;
- a card's balance is a bill (payee "<institution> card", `recurring` false), its
  promotion a deadline titled "<institution> card promotional period ends".

Status words: a subscription is "cancelled" (done), "cancelling" (meant: "I will cancel",
"you plan to cancel"), "trial" or "active"; a question ("cancel spotify for me?") states
no intent. The assistant's sentences count only where they confirm the user's own thing
("Noted: ...", "you plan to ...", "your ..."), never as general advice.
"""

from __future__ import annotations

import re
from datetime import date, timedelta

from factlog.model import JsonValue
from factlog.recognizers import NUMBER_WORDS, dates_and_times_at, recognize
from factlog.timeparse import try_date
from factlog.typed.common import RELATIONS, add_months, conversation_fields, named_owner, subject_of
from factlog.typed.model import Context, TypedFact
from factlog.typed.stance import (
    INTENT,
    asks_oneself,
    is_conditional,
    is_counterfactual,
    is_hypothetical,
    is_question,
    is_tentative,
    restates_intent,
    states_intent,
)
from factlog.typed.subscription_words import (
    ACTIVE,
    ALIAS_NAMES,
    CANCEL_MEANT,
    CANCELLED_OTHERWISE,
    CAPITALISED_ONLY,
    GENERIC_SERVICE,
    KEEPS,
    NO_LONGER,
    NOT_HAD,
    NOT_RENEWING,
    VENDOR_ALIASES,
    intends,
    listed_service,
    spoken_amounts,
)
from factlog.typed.triggers import Triggers

DOMAIN = "money"

VENDORS = (
    "Netflix", "Spotify", "Hulu", "Amazon Prime", "Prime Video", "Walmart+", "Disney+", "Disney Plus", "HBO Max",
    "YouTube Premium", "YouTube TV", "Apple Music", "Apple TV+", "Apple One", "iCloud", "Paramount+",
    "Peacock", "Audible", "Kindle Unlimited", "Adobe", "Microsoft 365", "Office 365", "Dropbox", "Google One",
    "ChatGPT Plus", "Peloton", "Costco", "Sam's Club", "Xbox Game Pass", "PlayStation Plus", "Nintendo Switch Online",
    "Duolingo", "Headspace", "Calm", "Strava", "New York Times", "NYT", "Washington Post", "Patreon", "Sling",
    "DoorDash DashPass", "DashPass", "Uber One", "Instacart+", "Crunchyroll", "SiriusXM", "Planet Fitness",
    "Max", "ESPN+", "Fubo", "Philo", "Paramount Plus", "Apple Arcade", "Amazon Music", "Tidal", "Pandora",
    "Grammarly", "Canva", "Notion", "LinkedIn Premium", "Babbel", "MasterClass", "Skillshare", "Coursera Plus",
    "Wall Street Journal", "WSJ", "The Economist", "The Atlantic", "Substack", "Discord Nitro", "EA Play",
    "NordVPN", "ExpressVPN", "1Password", "LastPass", "Evernote", "Zoom", "Noom", "HelloFresh", "Blue Apron",
    "ClassPass", "Equinox", "Orangetheory", "Scribd", "Blinkist", "BetterHelp", "Ring Protect", "SimpliSafe",
    "Norton", "McAfee", "Backblaze", "Squarespace", "Chewy Autoship", "BarkBox", "Ipsy", "FabFitFun",
    "Dollar Shave Club", "Hims", *ALIAS_NAMES,
)
BILLERS = (
    "Verizon", "AT&T", "T-Mobile", "Comcast", "Xfinity", "Spectrum", "PG&E", "Con Edison", "ConEd",
    "Duke Energy", "National Grid", "Geico", "GEICO", "State Farm", "Progressive", "Allstate", "Liberty Mutual",
    "USAA", "Nationwide", "Lemonade", "Farmers Insurance", "Travelers", "Cox", "Optimum", "Eversource",
    "Dominion Energy", "SoCal Edison", "Southern California Edison", "Xcel Energy", "Mint Mobile", "Cricket",
)
INSTITUTIONS = (
    "Chase", "Citi", "Citibank", "Capital One", "Wayfair", "Best Buy", "Bank of America", "Wells Fargo",
    "American Express", "Amex", "Discover", "First Republic", "Synchrony", "Apple Card", "US Bank", "U.S. Bank",
    "PNC", "TD Bank", "Ally", "Barclays", "Target", "Navy Federal", "Schwab", "Fidelity", "Marcus",
    "CareCredit", "Home Depot", "Lowe's", "Macy's", "Kohl's", "Nordstrom", "IKEA", "PayPal Credit",
    # banks abroad (issue 11, h-pay2): Australian, Canadian, British, Indian
    "Westpac", "Commonwealth Bank", "ANZ", "NAB", "BMO", "RBC", "Scotiabank", "HSBC", "Lloyds", "NatWest",
    "Monzo", "SBI", "HDFC", "ICICI", "Wells",
    # (h-pay3) Canadian, Irish, South African and online banks
    "TD", "CIBC", "Desjardins", "Tangerine", "AIB", "Bank of Ireland", "Permanent TSB", "FNB", "Capitec", "Absa",
    "Nedbank", "Standard Bank", "Revolut", "Santander", "Stanbic IBTC",
    # (h-bills4) British card issuers
    "Barclaycard", "MBNA", "Halifax", "Virgin Money", "Tesco Bank", "Sainsbury's Bank", "Vanquis", "Aqua",
)
STORES = frozenset(name.casefold() for name in (
    "Wayfair", "Best Buy", "Target", "Home Depot", "Lowe's", "Macy's", "Kohl's", "Nordstrom", "IKEA"))


def _plain(name: str) -> str:
    return name.casefold().replace("'", "").replace("’", "")


def _names(names: tuple[str, ...]) -> re.Pattern[str]:
    # an apostrophe may be typed curly or left out ("lowes", "Macy’s")
    alternatives = "|".join(sorted((re.escape(n).replace("'", "['’]?") for n in names), key=len, reverse=True))
    return re.compile(rf"(?<![\w+])(?P<name>{alternatives})(?![\w]|\+(?!\w))", re.I)


def _vendor_pattern() -> re.Pattern[str]:
    pattern = _names(VENDORS).pattern
    for name in CAPITALISED_ONLY:
        pattern = re.sub(rf"(?<=[|(]){re.escape(re.escape(name))}(?=[|)])", f"(?-i:{re.escape(name)})", pattern)
    return re.compile(pattern, re.I)


VENDOR = _vendor_pattern()
BILLER = _names(BILLERS)
INSTITUTION = _names(INSTITUTIONS)
_CANONICAL = {**{_plain(name): name for name in (*VENDORS, *BILLERS, *INSTITUTIONS)},
              **{_plain(alias): name for alias, name in VENDOR_ALIASES.items()}}

SUBSCRIPTION_WORDS = re.compile(
    r"\b(?:subscri\w+|membership|free trial|trial|renew\w*|auto-?renew\w*|billed|bills|charges? again|"
    r"premium plan)\b", re.I)
PAYMENT_WORDS = re.compile(
    r"\b(?:pay|pays|paying|paid|payment|payments|wire|wired|wiring|transfer\w*|send|sending|sent|autopay|"
    r"zelle|venmo|rent|mortgage|invoice)\b", re.I)
BALANCE_WORDS = re.compile(r"\b(?:balance|left on|owe|owing|remaining|paid off|pay off)\b|\bleft\b(?=\W*$)", re.I)
PROMO = re.compile(
    r"(?:\b0\s?%|\bzero percent\b|\bno interest\b|\binterest[- ]free\b|\bintro(?:ductory)?\b|"
    r"\bpromo(?:tional|tion)?\b|\bdeferred interest\b|\bsame as cash\b|\bspecial financing\b|"
    r"\bpaid in full by\b)", re.I)
_DUE_TITLE = (
    r"(?P<title>(?!(?:it|it's|that|this|which|what|everything|nothing|one|when|rent|payment|is|are|was|were|and|"
    r"but|or|so|also|now|still|all|then|they|he|she|we|i|next|the next|last)\b)[A-Za-z][\w'&+-]*"
    r"(?:\s+[A-Za-z][\w'&+-]*){0,6}?(?:\s+of\s+\$?\d[\d,]*(?:\.\d\d)?)?)\s+(?:(?:is|are)\s+)?due\b"
    r"(?!\s+(?:to|for)\b)")
# "the board pack is due on the 18th"; else, from the clause's start or a colon, "expense report due Friday"
DUE = re.compile(r"\b(?:the|my|our|his|her|their)\s+" + _DUE_TITLE, re.I)
DUE_BARE = re.compile(r"(?:^\W*(?:(?:also|and|plus|oh|ok|okay)\W+)?|[,;:]\s+)" + _DUE_TITLE, re.I)
_NOT_DEADLINE = re.compile(r"\b(?:baby|period|rain|storm|snow|bill|bills|premium|invoice)\b|\bdue to\b", re.I)
CANCEL = re.compile(r"\b(?:cancel\w*|kill|stop|end)\b", re.I)
# a cancellation said without a money word ("I already cancelled it", "killed it"): reader.py runs money on it
CANCEL_WORDS = re.compile(r"\b(?:cancell?ed|canceled|cancel|cancelling|unsubscribed|killed|ditched|got rid of)\b",
                          re.I)
CANCEL_DONE = re.compile(
    r"(?<!unless )(?<!if )(?<!not )(?<!n't )(?<!never )(?<!not yet )\b(?:cancell?ed|canceled|unsubscribed)\b"
    r"(?!\s+(?:before|by))", re.I)
# "still haven't cancelled", "not cancelled yet": neither done nor newly decided
_NOT_DONE = re.compile(r"\b(?:haven't|hasn't|have not|has not|didn't|did not|never|not yet)\s+(?:\w+\s+)?"
                       r"(?:cancell?ed|canceled|cancel)\b|\bnot (?:yet )?cancell?ed\b", re.I)
CONFIRMING = re.compile(
    r"^\W*(?:noted|recorded|confirmed|saved|updated|understood|got it|done)\b|\byou(?:r|'d|'ll)?\b", re.I)
# "worth it if you'd play three of its games", "depends on whether you'd watch": advice about
# something the user may take up, not a confirmation of what they have
_YOU_IN_CONDITION = re.compile(r"\b(?:if|whether|unless|in case)\s+you(?:'d|'ll|'re|\s+(?:would|will|want|are|do))?\b",
                               re.I)


def confirms(sentence: str) -> bool:
    """The assistant's sentence confirms the user's own thing ("Noted: ...", "your ..."); a
    "you" only inside a condition ("worth it if you'd use it") confirms nothing."""
    return CONFIRMING.search(_YOU_IN_CONDITION.sub(" ", sentence)) is not None


# a price in another currency ("£9.99 a month", "15,700 naira"): no USD amount, but a price all the same
OTHER_MONEY = re.compile(r"[£€₦]\s?\d|\d\s*(?:naira|euros?|pounds|quid|rand)\b", re.I)
# a sentence without one of these is about no money (named groups dropped: reader.py joins them)
TRIGGERS = tuple(re.compile(re.sub(r"\(\?P<\w+>", "(?:", p.pattern), p.flags) for p in (
    VENDOR, BILLER, INSTITUTION, SUBSCRIPTION_WORDS, PAYMENT_WORDS, BALANCE_WORDS, PROMO, DUE, DUE_BARE,
    re.compile(r"\b(?:bought|purchased|purchase|ordered|installed by|put in|actually|updated|make (?:it|that)|"
               r"correction|ends|no (?:more|further) charges)\b", re.I)))

_MONTHLY = re.compile(r"(?:\b(?:monthly|a month|per month|each month|every month|a mo)\b|/\s?mo(?:nth)?\b)", re.I)
_YEARLY = re.compile(r"(?:\b(?:annual(?:ly)?|yearly|a year|per year|each year|every year|a yr|for the year|"
                     r"per annum)\b|/\s?y(?:ea)?r\b)", re.I)
_WEEKLY = re.compile(r"\b(?:weekly|a week|per week|every week)\b", re.I)
_QUARTERLY = re.compile(r"\b(?:quarterly|every (?:3|three) months|each quarter|a quarter|per quarter)\b|/\s?qtr\b",
                        re.I)
_SEMIANNUAL = re.compile(r"\b(?:semi-?annual(?:ly)?|every (?:6|six) months|twice a year)\b", re.I)
_ACCESS_ENDS = re.compile(r"\b(?:ends|no (?:more|further) charges)\b", re.I)
_TRIAL_END = re.compile(r"\b(?:converts?|ends?|ending|until|expires?|runs out)\b", re.I)
_CHARGE = re.compile(r"\b(?:renew\w*|bill\w*|charge\w*|due|on(?= the \d| \w+ \d)|the(?= \d))", re.I)
_TRIAL = re.compile(r"\b(?:free trial|trial)\b", re.I)
_TRIAL_DAYS = re.compile(
    rf"\b(?P<n>\d{{1,3}}|{'|'.join(['a', 'one', *NUMBER_WORDS])})[- ](?P<unit>days?|weeks?|months?)\b", re.I)
_MONTHS_SPAN = re.compile(rf"\b(?P<n>\d{{1,2}}|{'|'.join(['one', *NUMBER_WORDS])})[- ]months?\b", re.I)
_DAY_OF_MONTH = re.compile(
    r"\b(?:on\s+)?the\s+(?P<dd>\d{1,2})(?:st|nd|rd|th)\b|(?<=\bdue )(?P<due>\d{1,2})(?:st|nd|rd|th)\b|"
    r"\bon\s+the\s+(?P<bare>[1-9]|[12]\d|3[01])\b(?![.,:]?\d|\s*(?:%|"
    r"of|days?|weeks?|months?|years?|am|pm|percent)\b)", re.I)
# a charge that repeats ("7.99 a month", "$40/qtr") or a free span names money too
TRIGGERS = (*TRIGGERS, *(re.compile(p.pattern, p.flags) for p in (_MONTHLY, _YEARLY, _QUARTERLY, _SEMIANNUAL)),
            re.compile(r"\bfree\b", re.I))
LAST4 = re.compile(
    r"(?:\bending(?:\s+(?:in|with))?|\bfinish\w*\s+with|\bx|#|\bchecking|\bsavings)\s*(?P<d>\d{4})\b", re.I)
_AMOUNT_FALLBACK = re.compile(
    r"(?<![\w.$,£€])(?P<num>\d{1,3}(?:,\d{3})+|\d+)(?P<dec>\.\d\d)?\s*(?:dollars?\b|bucks\b|usd\b|(?=\s+left\b))"
    r"|(?<![\w.$,/:£€])(?P<num2>\d{1,4}\.\d\d)(?![\d%])"
    r"|(?<![\w.$,/:£€])(?P<num5>[1-9]\d{0,4}(?:\.\d\d)?)(?=\s*(?:a|per|/|each|every)\s*(?:month|mo|year|yr|week)\b)"
    r"|\b(?:send|pay|wire|transfer)\s+(?P<num3>\d{1,3}(?:,\d{3})+|\d{2,5})\b(?![.,]\d)(?!\s*(?:am|pm|%|st|nd|rd|th)\b)",
    re.I)
_ZERO = re.compile(r"\b(?:balance (?:is |of |now |at )*(?:zero|nothing|\$?0(?:\.00)?)\b|zero balance|"
                   r"paid (?:it |that |(?:the|my) [\w' ]{1,30}? )?(?:off|in full)\b(?!\s+(?:by|within|before|in)\b)|"
                   r"(?:is|at|down to) (?:zero|\$0(?:\.00)?)\b|cleared it)|\$0(?:\.00)? balance\b", re.I)


def read(sentence: str, context: Context) -> list[TypedFact]:
    """Each clause in turn ("wife pays it from her card. told me to kill the autopay")."""
    if not _GATE.search(sentence):
        return []
    sentence = day_first(sentence, context)
    facts: list[TypedFact] = []
    # the assistant's list of the user's things ("From what you've told me: Netflix, ...; Spotify, ...")
    confirmed = context.speaker == "assistant" and confirms(sentence)
    for clause in clauses(sentence):
        facts += read_clause(clause, context, confirmed)
    return facts


# a sentence without one of these states no money, even about the session's last subscription or payment
# a bare day of the month answering the assistant ("When does it renew?" "the 15th")
DAY_ANSWER = re.compile(r"^\W*(?:(?:on|it's|its|the)\s+)*(?:the\s+)?\d{1,2}(?:st|nd|rd|th)\W*$", re.I)
# a purchase put on a card ("put the sofa on our Ashley card, $2,000")
_ON_A_CARD = re.compile(r"\b(?:put|charged|financed)\b[^.;]{0,40}?\b(?:on|onto)\s+(?:the|my|our|his|her|their)\b"
                        r"[^.;]{0,30}?"
                        r"\bcard\b", re.I)
TRIGGERS = (*TRIGGERS, DAY_ANSWER, _ON_A_CARD)
_GATE = Triggers((*TRIGGERS, CANCEL, CANCEL_WORDS, _ACCESS_ENDS, LAST4, re.compile(r"\$\s?\d|[€£]", re.I)))
_CLAUSE_END = re.compile(r"[.;?!]+\s+(?=\S)")
_ABBREVIATION = re.compile(r"\b(?:Co|Inc|Ltd|Corp|Mr|Mrs|Ms|Dr|St|Jr|Sr|No|vs|approx|e\.g|i\.e)\.$", re.I)


def clauses(sentence: str) -> list[str]:
    """The sentence cut after "." ";" "?" "!" (not after "Co." or "Dr.")."""
    out: list[str] = []
    start = 0
    for match in _CLAUSE_END.finditer(sentence):
        if _ABBREVIATION.search(sentence[start:match.end()].rstrip()):
            continue
        out.append(sentence[start:match.end()].strip())
        start = match.end()
    out.append(sentence[start:].strip())
    return [clause for clause in out if clause]


def read_clause(sentence: str, context: Context, confirmed: bool = False) -> list[TypedFact]:
    if context.speaker == "assistant" and not (confirmed or confirms(sentence)):
        return []  # the assistant's general advice names nothing of the user's
    facts: list[TypedFact] = []
    due = DUE.search(sentence) or DUE_BARE.search(sentence)
    if due is not None:
        facts += _due(sentence, context, due)
    if INSTITUTION.search(sentence) or context.last.get("card") is not None or \
            (named_card(sentence) is not None and (BALANCE_WORDS.search(sentence) or PROMO.search(sentence)
                                                   or _ZERO.search(sentence) or _PUT_ON.search(sentence))):
        facts += _card(sentence, context)
    elif (card := _prior_card(sentence, context)) is not None:
        context.last["card"] = card  # "still $800 left on it" a session after the promotion was stated
        facts += _card(sentence, context)
    facts += _subscription(sentence, context)
    return facts


# --- values -------------------------------------------------------------------------


def amounts(sentence: str, context: Context) -> list[float]:
    """The sentence's money amounts, in text order: the recognisers' ("$5,000", "$1.2k"),
    else "1,650 dollar", "11.99" or "900 left"; never an amount in another currency ("£9.99", "15,700
    naira": no USD amount, as the recognisers keep pounds and euros apart)."""
    values = recognize(sentence, context.timestamp)
    if values.amounts_usd:
        return values.amounts_usd
    out = []
    for match in _AMOUNT_FALLBACK.finditer(sentence):
        raw = match.group("num") or match.group("num2") or match.group("num3") or match.group("num5")
        if raw == match.group("num5") and float(raw) < 5:
            continue  # "2 a week": a count
        out.append(float(raw.replace(",", "") + ((match.group("dec") or "") if match.group("num") else "")))
    return out or spoken_amounts(sentence)


def dates_in(sentence: str, context: Context) -> list[str]:
    return recognize(sentence, context.timestamp).dates


# a numeric date: "07/05/2025", "12/04/25"
_NUMERIC_DATE = re.compile(r"(?<![\w/.])(?P<a>\d{1,2})/(?P<b>\d{1,2})/(?P<y>20\d\d|\d\d)(?![\w/])")
# a session writing day first: a date whose first number cannot be a month ("30/06/2025"), or pounds or euros
_DAY_FIRST_SIGN = re.compile(r"(?<![\w/.])(?:1[3-9]|2\d|3[01])/(?:0?[1-9]|1[0-2])/(?:20)?\d\d(?![\w/])|[£€]")


def day_first(sentence: str, context: Context) -> str:
    """The sentence with its numeric dates written ISO, read day first ("Payment due:
    07/05/2025" is 7 May) when the session writes dates so (`_DAY_FIRST_SIGN` in what was said
    so far: "30/06/2025", or amounts in pounds or euros, as a British statement has them);
    else as it is (month first, the recognisers' reading)."""
    if _NUMERIC_DATE.search(sentence) is None or \
            not any(_DAY_FIRST_SIGN.search(said) for said in (*context.said[-40:], sentence)):
        return sentence

    def iso(match: re.Match[str]) -> str:
        day, month, year = int(match.group("a")), int(match.group("b")), int(match.group("y"))
        year = year + 2000 if year < 100 else year
        try:
            return date(year, month, day).isoformat()
        except ValueError:
            return match.group(0)

    return _NUMERIC_DATE.sub(iso, sentence)


def session_day(context: Context) -> date | None:
    return context.timestamp.date() if context.timestamp is not None else None


def next_day_of_month(day: int, today: date) -> date | None:
    """The first date on or after `today` falling on day-of-month `day`."""
    for offset in range(0, 3):
        year, month = divmod(today.month - 1 + offset, 12)
        try:
            candidate = date(today.year + year, month + 1, day)
        except ValueError:
            continue
        if candidate >= today:
            return candidate
    return None


_WEEKDAY = re.compile(r"\b(?:on|due|by|before|until|till|ends?|ending|expires?|runs out)\s+(?:this\s+)?"
                      r"(?P<day>mon|tues|wednes|thurs|fri|satur|sun)day\b",
                      re.I)
_WEEKDAYS = ("mon", "tues", "wednes", "thurs", "fri", "satur", "sun")


def charge_date(sentence: str, context: Context) -> str | None:
    """The first date the sentence gives: a full or relative one, "on the 15th" (the next
    15th), or "on Friday" (the next Friday after the session's day), whichever comes first."""
    found = list(dates_and_times_at(sentence, context.timestamp)[0])
    today = session_day(context)
    weekday = _WEEKDAY.search(sentence)
    if weekday is not None and today is not None:
        ahead = (_WEEKDAYS.index(weekday.group("day").lower()) - today.weekday()) % 7 or 7
        found.append((weekday.start(), (today + timedelta(days=ahead)).isoformat()))
    match = _DAY_OF_MONTH.search(sentence)
    if match is not None and today is not None:
        day = next_day_of_month(int(match.group("dd") or match.group("bare") or match.group("due")), today)
        if day is not None:
            found.append((match.start(), day.isoformat()))
    return min(found)[1] if found else None


def _number(raw: str) -> int:
    raw = raw.lower()
    return int(raw) if raw.isdigit() else 1 if raw in ("a", "an", "one") else NUMBER_WORDS[raw]


def canonical_vendor(name: str) -> str:
    return _CANONICAL.get(_plain(name), name)


# --- subscriptions -------------------------------------------------------------------


_NAMED_SERVICE = re.compile(
    r"\b(?:(?:my|our|the)\s+(?P<a>(?-i:[A-Z])[\w+&'-]*(?:\s+(?-i:[A-Z])[\w+&'-]*){0,2})\s+(?:subscription|membership)"
    r"|(?:subscription|membership)\s+(?:to|at|with)\s+(?P<b>(?-i:[A-Z])[\w+&'-]*(?:\s+(?-i:[A-Z])[\w+&'-]*){0,2})"
    r"|(?:subscribed to|signed up for|unsubscribed from)\s+"
    r"(?P<c>(?-i:[A-Z])[\w+&'-]*(?:\s+(?-i:[A-Z])[\w+&'-]*){0,2})"
    # "the Sky Sports is up for renewal on the 20th", "my Zwift renews on the 3rd"
    r"|\b(?:the|my|our)\s+(?P<d>(?-i:[A-Z])[\w+&'-]*(?:\s+(?-i:[A-Z])[\w+&'-]*){0,2})\s+"
    r"(?:is\s+up\s+for\s+renewal|(?:auto-?)?renews|is\s+(?:auto-?)?renewing|comes\s+up\s+for\s+renewal)\b)",
    re.I)
_NOT_SERVICES = frozenset("premium family basic standard annual monthly student pro plus the a an my our i "
                          "free trial gold silver".split())


_DOCUMENT_NAME = re.compile(r"\b(?:passport|visa|licen[cs]e|registration|policy|lease|insurance|warranty|"
                            r"permit|certificate|card)$", re.I)


def _service(sentence: str) -> str | None:
    """A service the user names by a capitalised name the vendor list lacks ("my Medium
    membership", "subscribed to Masterclass")."""
    match = _NAMED_SERVICE.search(sentence)
    if match is None:
        return None
    name = match.group("a") or match.group("b") or match.group("c") or match.group("d")
    if match.group("d") is not None and (BILLER.fullmatch(name) or INSTITUTION.fullmatch(name)
                                         or _DOCUMENT_NAME.search(name)):
        return None  # "my State Farm renews": a bill's; "the Passport renews": a document's
    article = re.match(r"(?-i:The)\s+(?=\S)", name)  # "subscription to The Athletic": the name's own "The"
    bare = name[article.end():] if article is not None else name
    words = [w for w in bare.split() if w.casefold() not in _NOT_SERVICES]
    return name if words and len(words) == len(bare.split()) else None


def _listed(sentence: str) -> str | None:
    """A service a list line names ("- Figma Professional: $144/yr, renews Sept 2"), not a bill's biller or a card."""
    name = listed_service(sentence)
    if name is None or BILLER.fullmatch(name) or INSTITUTION.search(name) or _DOCUMENT_NAME.search(name):
        return None
    return name


def _subscription(sentence: str, context: Context) -> list[TypedFact]:
    vendor_match = VENDOR.search(sentence)
    previous = context.last.get("subscription")
    service = (_service(sentence) or _listed(sentence)) if vendor_match is None else None
    if vendor_match is None and service is None and (generic := GENERIC_SERVICE.search(sentence)) is not None \
            and cadence_of(sentence) and amounts(sentence, context):
        service = generic.group("name").lower()  # "the gym takes 40 bucks every month"
    asked = answered_question(context) if context.speaker == "user" and vendor_match is None and service is None \
        else None
    if asked is not None and (asked_vendor := VENDOR.search(asked)) is not None and \
            (amounts(sentence, context) or _DAY_OF_MONTH.search(sentence) or cadence_of(sentence)):
        vendor_match = asked_vendor  # "And do you use QuickBooks?" "yes, 30 a month, on the 22nd": QuickBooks's terms
    elif asked is not None and previous is not None and _ASKS_CHARGE.search(asked) and \
            (_DAY_OF_MONTH.search(sentence) or dates_in(sentence, context)):
        sentence = f"renews {sentence}"  # "When does it renew?" "the 15th": the subscription just talked about
    if vendor_match is not None:
        vendor = canonical_vendor(vendor_match.group("name"))
    elif service is not None:
        vendor = service
    else:
        if previous is None and _cancel_done(sentence):
            previous = _earlier(context)  # "I cancelled it" in a later session: the trial it was about
        if previous is None or not (SUBSCRIPTION_WORDS.search(sentence) or CANCEL.search(sentence)
                                    or CANCELLED_OTHERWISE.search(sentence)
                                    or _ACCESS_ENDS.search(sentence) or _FREE_SPAN.search(sentence)
                                    or (cadence_of(sentence) and amounts(sentence, context))
                                    or (_CONTINUES.search(sentence) and amounts(sentence, context))):
            return []
        if _ANOTHER_RENEWAL.search(sentence):
            return []  # "my vehicle licence renewal is due by 28 February": the licence's, not the last subscription's
        vendor = str(previous.fields["vendor"])  # "3 weeks free then 7.99 a month" after naming it
    if is_tentative(sentence) and not CANCEL.search(sentence):
        return []  # "thinking about signing up for Disney+": nothing had yet
    if NOT_HAD.search(sentence) and not NO_LONGER.search(sentence):
        return []  # "I used to pay for Spotify", "I don't have Netflix": nothing running, no date to keep
    if is_question(sentence) and not (CANCEL.search(sentence) or _CHARGE.search(sentence)):
        return []  # "is it still $9.99 a month?"
    if _PRICE_TALK.search(sentence) and not _FIRST_PERSON.search(sentence):
        return []  # "Babbel costs about $14 a month": a price, not the user's subscription
    subject = _owner(sentence, context)
    if vendor_match is None and service is None and previous is not None:
        subject = str(previous.fields.get("subject", subject))
    elif subject == "user" and context.speaker == "assistant" and previous is not None and \
            previous.fields.get("vendor") == vendor and previous.fields.get("subject", "user") != "user" and \
            not _ADDRESSED.search(sentence):
        subject = str(previous.fields["subject"])  # "Noted: Tomás's Paramount+ ... he plans to cancel"
    fields: dict[str, JsonValue] = {"vendor": vendor}
    found = [value for value in amounts(sentence, context) if value > 0]
    if found:
        fields["amount_usd"] = found[0]
    cadence = cadence_of(sentence)
    if cadence is not None:
        fields["cadence"] = cadence
    trial = _TRIAL.search(sentence) or _FREE_SPAN.search(sentence)
    today = session_day(context)
    if trial is not None:
        cue = _TRIAL_END.search(sentence)
        dates = dates_in(sentence[cue.start():], context) if cue is not None else []
        span = _TRIAL_DAYS.search(sentence)
        day = _DAY_OF_MONTH.search(sentence[cue.start():]) if cue is not None else None
        weekday = _WEEKDAY.search(sentence, cue.start()) if cue is not None else None
        if dates and today is not None and dates[0] < today.isoformat() and not re.search(r"\b20\d\d\b", sentence):
            pass  # "trial ends 12/04" said in March (the 12th of April, day first): no end read wrong
        elif dates:
            fields["promo_end_date"] = dates[0]
        elif (day is not None or weekday is not None) and cue is not None:
            fields["promo_end_date"] = charge_date(sentence[cue.start():], context)  # "the 20th", "ends Friday"
        elif span is not None and today is not None:
            n, unit = _number(span.group("n")), span.group("unit").lower()
            end = add_months(today, n) if unit.startswith("month") else \
                today + timedelta(days=n * (7 if unit.startswith("week") else 1))
            fields["promo_end_date"] = end.isoformat()
    elif (cue := _NEXT_CHARGE.search(sentence) or _CHARGE.search(sentence) or _ACCESS_ENDS.search(sentence)
          or _CANCEL_BEFORE.search(sentence)) is not None:
        charge = charge_date(sentence[cue.start():], context) or charge_date(sentence, context)
        if charge is not None and _NEXT_CHARGE.search(sentence) is None and _CHARGED.search(sentence) is not None:
            charge = _next_charge(charge, cadence)  # "renewed today, $65 for the year": the next is a year on
        elif charge is not None and today is not None and charge == today.isoformat() and cadence is not None \
                and _DAY_OF_MONTH.search(sentence) is not None and not re.search(r"\btoday\b", sentence, re.I):
            charge = _next_charge(charge, cadence)  # "£9.99 a month, comes out on the 1st" said on the 1st: taken today
        if charge is not None and is_ahead(charge, sentence, today):
            fields["due_date"] = charge
    status = _subscription_status(sentence, context, trial is not None)
    if status == "active" and vendor_match is None and service is None and previous is not None \
            and previous.fields.get("status") == "trial":
        status = None  # "...; it becomes $7.99 a month on April 1": the trial's sequel, its end the first charge
        if "due_date" in fields:
            fields["promo_end_date"] = fields.pop("due_date")
    if status is not None:
        fields["status"] = status
    key = vendor.casefold() if subject == "user" else f"{subject.casefold()}/{vendor.casefold()}"
    fact = TypedFact("subscription", key, conversation_fields(context, subject, fields))
    context.last["subscription"] = fact
    if set(fields) == {"vendor"}:
        return []  # named only: what a later "gonna cancel" is about
    return [fact]


# what else renews or falls due: a document, a registration, a policy, a bill
_ANOTHER_RENEWAL = re.compile(r"\b(?:licen[cs]e|registration|passport|visa|polic(?:y|ies)|insurance|lease|permit|"
                              r"tax|MOT|warranty|bill|rent|mortgage|premium|tag|sticker|papers)\b", re.I)
# the assistant asks when a subscription charges: "When does it renew?", "What day is it billed?"
_ASKS_CHARGE = re.compile(r"\b(?:renew\w*|charge\w*|bill\w*|due|come out|comes out|taken|payment)\b", re.I)
# a short answer: the whole sentence a few words ("the 15th", "yes, 30 a month, on the 22nd")
_SHORT_ANSWER = 10


def answered_question(context: Context) -> str | None:
    """The assistant's question the user's short sentence answers: the session's sentence just
    before it when that one ends in "?" (`Context.said` holds both speakers' sentences)."""
    if len(context.said) < 2 or len(context.said[-1].split()) > _SHORT_ANSWER:
        return None
    question = context.said[-2]
    return question if is_question(question) else None


_ADDRESSED = re.compile(r"\byou(?:r|'d|'ll|'re)?\b", re.I)
_CONTINUES = re.compile(r"\b(?:charge\w*|bill\w*|renew\w*|then it's|after that|goes up|converts?)\b", re.I)
_CANCEL_BEFORE = re.compile(r"(?<=\bcancel)\b.{0,30}?\bbefore\b", re.I)  # "cancel X before the 20th"
_RENEW_OFF = re.compile(r"\b(?:turned|switched|shut)\s+off\s+(?:the\s+)?auto-?renew\w*|\bauto-?renew\w*\s+(?:is\s+)?"
                        r"(?:off|turned off|disabled)", re.I)
_PRICE_TALK = re.compile(r"\b(?:costs?|priced|price|goes for|runs about|starts? at)\b", re.I)
_FIRST_PERSON = re.compile(r"\b(?:i|i'm|we|my|our|me|us)\b", re.I)
_FREE_SPAN = re.compile(
    rf"\b(?:\d{{1,3}}|{'|'.join(['a', 'one', *NUMBER_WORDS])})[- ](?:days?|weeks?|months?)\s+(?:for\s+)?free\b|"
    rf"\bfree\s+(?:for\s+)?(?:the\s+first\s+)?(?:\d{{1,3}}|{'|'.join(['a', 'one', *NUMBER_WORDS])})[- ]"
    r"(?:days?|weeks?|months?)\b|\bfree\s+(?:until|till|through|thru)\b|\bfirst\s+(?:month|week)\s+(?:is\s+)?free\b",
    re.I)


_MONTH_NAME = re.compile(r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+\d|"
                         r"(?<![\d/])\d{1,2}/\d{1,2}(?![\d/])", re.I)


def is_ahead(day: str, sentence: str, today: date | None) -> bool:
    """A charge or due date: one not before the session, or one the sentence names by
    month ("renews annually on February 3"); "cancelled it last week" dates no charge."""
    return today is None or day >= today.isoformat() or _MONTH_NAME.search(sentence) is not None


_NEXT_CHARGE = re.compile(r"\bnext\s+(?:renewal|charge|billing(?:\s+date)?|bill|payment)\b", re.I)
_CHARGED = re.compile(r"\b(?:renewed|was (?:charged|billed)|charged me|got charged|just paid|paid)\b", re.I)
_CADENCE_MONTHS = {"monthly": 1, "quarterly": 3, "semiannual": 6, "yearly": 12}


def _next_charge(day_text: str, cadence: str | None) -> str | None:
    """The charge after one that happened on `day_text`, a cadence on; None without one."""
    day = try_date(day_text)
    if day is None or cadence is None:
        return None
    if cadence == "weekly":
        return (day + timedelta(days=7)).isoformat()
    return add_months(day, _CADENCE_MONTHS[cadence]).isoformat()


def cadence_of(sentence: str) -> str | None:
    """How often a charge repeats: monthly, quarterly, semiannual, yearly or weekly."""
    for name, pattern in (("quarterly", _QUARTERLY), ("semiannual", _SEMIANNUAL), ("monthly", _MONTHLY),
                          ("yearly", _YEARLY), ("weekly", _WEEKLY)):
        if pattern.search(sentence):
            return name
    return None


# "my sister has HBO Max", "my son Tomás pays for it" (a name between), "on my moms family plan"
# (the apostrophe left out before what is owned)
_OWNER = re.compile(rf"\b(?:my|our)\s+(?P<rel>{'|'.join(RELATIONS)})(?:\b(?:'s|’s)|s(?=\s+(?:family|plan|account|card|"
                    r"login|subscription|membership)\b)|\b(?:\s+(?-i:[A-Z])[\w'’-]+)?\s+(?:has|had|pays|is paying|gets|"
                    r"uses|subscribes|signed up|says|said|will|'ll|wants|is going|plans|cancell?ed|canceled))", re.I)


# the assistant's "your son's Xbox Game Pass", "$19.99 a month on your mom" (she pays it)
_YOUR_OWNER = re.compile(rf"\byour\s+(?P<rel>{'|'.join(RELATIONS)})(?:'s|’s)\s|"
                         rf"\b(?:on|paid by)\s+your\s+(?P<payer>{'|'.join(RELATIONS)})\b(?!'s|’s)", re.I)


def _owner(sentence: str, context: Context) -> str:
    """Whose subscription or bill: "user", or the relation the sentence names as its owner
    ("my sister has HBO Max", "my son's phone bill"; the assistant's "your son's Xbox Game Pass")."""
    if context.speaker == "assistant":
        yours = _YOUR_OWNER.search(sentence)
        return (yours.group("rel") or yours.group("payer")).lower() if yours is not None else \
            named_owner(sentence, context) or "user"
    match = _OWNER.search(sentence)
    return match.group("rel").lower() if match is not None else named_owner(sentence, context) or "user"


def _cancel_done(sentence: str) -> bool:
    """ "cancelled spotify sat", "killed my Hulu", "turned off auto-renew", "I cancelled the
    trial before it charged me", "I don't have Netflix anymore"; not "I'll cancel it before it renews"."""
    done = CANCEL_DONE.search(sentence) or _RENEW_OFF.search(sentence) or CANCELLED_OTHERWISE.search(sentence) \
        or NO_LONGER.search(sentence)
    return done is not None and not intends(INTENT, sentence) and not _NOT_DONE.search(sentence)


_STILL_OPEN = frozenset({"trial", "cancelling"})


def _earlier(context: Context) -> TypedFact | None:
    """The user's subscription an earlier session stated last as a trial or as one to cancel:
    what "I cancelled it" is about (an active one is too many to guess among)."""
    for key, fields in reversed(context.prior.of_kind("subscription")):
        if "vendor" in fields and fields.get("status") in _STILL_OPEN and fields.get("subject", "user") == "user":
            return TypedFact("subscription", key, dict(fields))
    return None


def _subscription_status(sentence: str, context: Context, trial: bool) -> str | None:
    if _NOT_DONE.search(sentence) or KEEPS.search(sentence):
        return None  # "still haven't cancelled": the decision stands, nothing new; "I won't cancel it": none
    if _cancel_done(sentence):
        return "cancelled"
    if (NOT_RENEWING.search(sentence) or (CANCEL_MEANT.search(sentence) and states_intent(sentence))) \
            and not is_question(sentence) and not is_tentative(sentence) \
            and context.speaker == "user":
        return "cancelling"  # "I'm not renewing Adobe", "I want to get rid of Peacock before it charges"
    if CANCEL.search(sentence):
        if is_question(sentence):
            return None  # "cancel spotify for me?": asked, not decided
        if is_tentative(sentence):
            return None  # "thinking about cancelling Netflix": not decided
        if context.speaker == "assistant" and not restates_intent(sentence):
            return None
        return "cancelling"
    if trial:
        return "trial"
    if is_question(sentence):
        return None  # "Is the Sky Sports up for renewal soon?": asked, nothing stated
    if re.search(r"\b(?:signed up|subscribed|subscription|renews?|renewal|billed|membership|"
                 r"i (?:have|pay|got)|we (?:have|pay|got))\b", sentence, re.I) or ACTIVE.search(sentence) or \
            (cadence_of(sentence) and (amounts(sentence, context) or OTHER_MONEY.search(sentence))):
        return "active"
    return None


# --- cards: balances and promotions ------------------------------------------------------


_PRODUCT = re.compile(r"\s+(?P<product>(?:(?!(?:Card|Credit|Store|Visa|Mastercard|Ending|Bank)\b)[A-Z][a-z]+\s?){1,3})"
                      r"(?=\s*(?:credit\s+|store\s+)?card\b|\s+ending\b|\s*[,.:;]|\s*$|"
                      r"\s+(?:until|till|through|thru)\b)")  # "0% on my Chase Freedom until next June"


# a card by a name the issuer list lacks: "on our Ashley card", "the Rooms To Go card" (not a
# network, a debit, gift or ID card)
NAMED_CARD = re.compile(
    r"(?:\b(?:the|my|our|his|her|their)\s+|^\W*)(?P<name>(?-i:[A-Z])[\w'’&-]*(?:\s+(?:(?-i:[A-Z])[\w'’&-]*|(?-i:To|to|of))){0,2})"
    r"\s+(?P<store>store\s+)?(?P<credit>credit\s+)?card\b", re.I)
_NOT_ISSUERS = re.compile(r"^(?:Visa|Mastercard|MasterCard|Master|Maestro|Debit|Credit|Gift|Store|SIM|Sim|SD|ID|"
                          r"Library|Loyalty|Rewards|Business|Corporate|Company|Work|Health|Medicare|Medicaid|Green|"
                          r"Oyster|Metro|Presto|Opal|Myki|Christmas|Birthday|Thank|Report|Red|Yellow|Key|Blue|"
                          r"Old|New|Other|Main|Joint|Personal|I|The|My|Our)\b")


def named_card(sentence: str) -> str | None:
    """ "<name> store credit card" for a card named by a name no issuer list has ("our
    Ashley card"), "<name> credit card" when it is said to be one ("my Fidelity credit card")."""
    for match in NAMED_CARD.finditer(sentence):
        name = " ".join(match.group("name").split())
        if _NOT_ISSUERS.match(name) or VENDOR.fullmatch(name) or BILLER.fullmatch(name):
            continue
        kind = "credit card" if match.group("credit") and not match.group("store") else "store credit card"
        return f"{name} {kind}"
    theirs = _THEIR_CARD.search(sentence)
    store = _FROM_STORE.search(sentence, 0, theirs.start()) if theirs is not None else None
    if store is not None and not (_NOT_ISSUERS.match(store.group("name")) or VENDOR.fullmatch(store.group("name"))
                                  or BILLER.fullmatch(store.group("name"))):
        return f"{' '.join(store.group('name').split())} store credit card"  # "from Rooms To Go, ... their store card"
    return None


# the card of the store just named: "a sectional from Rooms To Go, $1,890, put it on their store card"
_THEIR_CARD = re.compile(r"\b(?:their|its)\s+(?:own\s+)?(?:store\s+)?(?:credit\s+)?card\b|\bthe\s+store\s+card\b", re.I)
_FROM_STORE = re.compile(r"\b(?:from|at)\s+"
                         r"(?P<name>(?-i:[A-Z])[\w'’&-]*(?:\s+(?:(?-i:[A-Z])[\w'’&-]*|(?-i:To|to|of))){0,2})",
                         re.I)


def _card_name(sentence: str) -> str | None:
    """The card the sentence is about, named as its balance's payee: "<issuer> <product>
    credit card" ("Chase Slate Edge credit card"), "<store> store credit card", else
    "<issuer> credit card"; the issuer after "to" or "on" when several are named ("from my
    Capital One card to a Chase Slate card" -> Chase); a name no list has (`named_card`)."""
    names = list(INSTITUTION.finditer(sentence))
    if not names:
        return named_card(sentence)
    chosen = next((match for match in names if re.search(r"\b(?:to|on|onto)\s+(?:a|an|the|my|our)?\s*(?:new\s+)?$",
                                                        sentence[: match.start()], re.I)), names[-1])
    issuer = canonical_vendor(chosen.group("name"))
    product = _PRODUCT.match(sentence, chosen.end())
    if issuer == "Discover" and re.match(r"\s+it\s+(?:credit\s+)?card\b", sentence[chosen.end():], re.I):
        return "Discover it credit card"  # the product's name is "it"
    if issuer.endswith("Card"):
        return issuer  # "Apple Card"
    if product is not None:
        return f"{issuer} {product.group('product').strip()} credit card"
    return f"{issuer} store credit card" if issuer.casefold() in STORES else f"{issuer} credit card"


def _same_card(name: str, known: str) -> bool:
    """ "Chase Slate credit card" and "Chase Slate Edge credit card" are one card."""
    short, long = sorted((_card_words(name), _card_words(known)), key=len)
    return long[: len(short)] == short


def _card_words(name: str) -> list[str]:
    return re.sub(r"\s+(?:store\s+)?(?:credit\s+)?card$", "", name.casefold()).split()


def _promotion_title(card: str, sentence: str) -> str:
    """ "<card> 0% intro APR ends" or "<card> <N>-month no-interest promotion ends"."""
    if re.search(r"\b0\s?%|\bzero percent\b|\bAPR\b|\bintro", sentence, re.I):
        return f"{card} 0% intro APR ends"
    span = _span_months(sentence)
    months = f"{span}-month " if span is not None else ""
    return f"{card} {months}no-interest promotion ends"


# a promotion's length in years: "interest-free for a year", "no interest for two years"
_FREE = r"(?:no[- ]interest(?!\s+in\b)|interest[- ]free|0\s?%|same as cash|special financing)"
_YEARS_SPAN = re.compile(rf"\b{_FREE}[^.;,]{{0,12}}?\bfor\s+(?P<n>a|one|two|three|\d)\s+years?\b|"
                         rf"\b(?P<m>a|one|two|three|\d)[- ]years?\s+(?:of\s+)?{_FREE}", re.I)


def _span_months(sentence: str) -> int | None:
    """How long a promotion runs, in months: "18 months", "for a year" (12), "2-year" (24)."""
    span = _MONTHS_SPAN.search(sentence)
    if span is not None:
        return _number(span.group("n"))
    years = _YEARS_SPAN.search(sentence)
    return _number(years.group("n") or years.group("m")) * 12 if years is not None else None


# "put it on CareCredit", "$1850 on the wayfair card" (not "went to Lowe's", "wire it to the Chase account")
_ON_CARD = re.compile(r"\b(?:on|onto)\s+(?:the|my|our|a|an)?\s*" + INSTITUTION.pattern +
                      r"(?!\s+(?:account|checking|savings)\b)", re.I)


_PROMO_TITLE = re.compile(r"^(?P<card>.+?) (?:0% intro APR|(?:\d+-month )?no-interest promotion) ends$")
# "$640 to Brightline Print for invoice 5521 ... on the Amex": a payment charged to the card, not its balance
_PAID_TO = re.compile(r"\binvoice\b|\bto\s+(?-i:[A-Z])[\w&'-]+", re.I)
_IT = re.compile(r"\b(?:it|the card|that card|the balance|the rest)\b", re.I)
# another debt or another person's: "my sister paid off her student loan"
_OTHER_DEBT = re.compile(rf"\b(?:loan|mortgage|car payment|tuition|(?:my|our)\s+(?:{'|'.join(RELATIONS)}))\b", re.I)


def _prior_card(sentence: str, context: Context) -> TypedFact | None:
    """The card whose promotion an earlier session stated last, when the sentence speaks of
    "it" or "the card" with a balance ("still $800 left on it", "paid it off") and names no
    other thing of money."""
    if not (BALANCE_WORDS.search(sentence) or _ZERO.search(sentence)) or _IT.search(sentence) is None \
            or VENDOR.search(sentence) or BILLER.search(sentence) or _OTHER_DEBT.search(sentence):
        return None
    for key, fields in reversed(context.prior.of_kind("deadline")):
        title = _PROMO_TITLE.match(str(fields.get("title", "")))
        if key.startswith("promotion/") and title is not None:
            return TypedFact("bill", None, {"payee": title.group("card")})
    return None


def _card(sentence: str, context: Context) -> list[TypedFact]:
    name = _card_name(sentence)
    previous = context.last.get("card")
    if name is None:
        if previous is None:
            return []
        name = str(previous.fields["payee"])
    elif previous is not None and _same_card(name, str(previous.fields["payee"])):
        name = max(name, str(previous.fields["payee"]), key=lambda n: len(_card_words(n)))
    named = INSTITUTION.match(name)
    issuer = named.group("name").casefold() if named is not None else _card_words(name)[0]
    if named is None:
        known = context.prior.entities.get(("bill", f"balance/{issuer}"), {}).get("payee")
        if isinstance(known, str) and _card_words(known)[:1] == [issuer]:
            name = known  # "the Ashley card" after "Ashley store credit card" was stated: one card, one name
    elif previous is None:  # "the barclaycard" a session after its statement: the name first given
        for promo_key, promo_fields in reversed(context.prior.of_kind("deadline")):
            stated = _PROMO_TITLE.match(str(promo_fields.get("title", "")))
            if promo_key == f"promotion/{issuer}" and stated is not None and _same_card(name, stated.group("card")):
                name = max(name, stated.group("card"), key=lambda n: len(_card_words(n)))
                break
    facts: list[TypedFact] = []
    promo = PROMO.search(sentence)
    if promo is not None and not is_question(sentence):
        end = _promo_end(sentence, context)
        if end is not None:
            title = _promotion_title(name, sentence)
            known = context.prior.entities.get(("deadline", f"promotion/{issuer}"), {}).get("title")
            if isinstance(known, str) and title.endswith(" no-interest promotion ends") and "-month " not in title:
                title = known  # "the no-interest thing is up next month": the promotion stated before
            fields: dict[str, JsonValue] = {"title": title, "due_date": end}
            facts.append(TypedFact("deadline", f"promotion/{issuer}", conversation_fields(context, "user", fields)))
    balance = None
    if is_question(sentence) or is_hypothetical(sentence) or asks_oneself(sentence) or \
            is_conditional(sentence) and promo is None:  # a promotion's terms ("if paid in full by") are no condition
        pass
    elif (zero := _ZERO.search(sentence)) is not None and not re.search(r"\b(?:if|unless|when)\b[^,.;]*$",
                                                                        sentence[: zero.start()], re.I) \
            and not is_counterfactual(sentence[: zero.end()]):
        balance = 0.0
    elif BALANCE_WORDS.search(sentence) or (promo is not None and re.search(r"\btransfer\w*|moved\b", sentence, re.I)) \
            or re.search(r"\bon the \w+ card\b|\bfinanc\w*|\bdown to\b", sentence, re.I) \
            or (promo is not None and re.search(r"\b(?:bought|purchased|got|ordered)\b", sentence, re.I)) \
            or (promo is not None and _PUT_ON.search(sentence)) \
            or (promo is not None and re.match(r"^\W*(?-i:[A-Z])[\w'’&-]*(?:\s+\S+){0,2}?\s+card\s*[:,]", sentence)) \
            or (_ON_CARD.search(sentence) and not _PAID_TO.search(sentence)) or \
            (_PUT_ON.search(sentence) and named_card(sentence) is not None and not re.search(r"\binvoice\b", sentence,
                                                                                             re.I)) or \
            (previous is not None and re.search(r"^\W*(?:wait|no|sorry|actually)\b", sentence, re.I)):
        stated = _BALANCE_IS.search(sentence) or _DOWN_TO.search(sentence)
        if stated is not None:
            balance = float(stated.group("n").replace(",", ""))
        elif not re.search(r"\badded to\b|\bfee\b", sentence, re.I):
            found = [value for value in amounts(sentence, context) if value > 0]
            balance = found[-1] if found and re.search(r"\bstarting balance\b|\bwait\b|\bactually\b", sentence, re.I) \
                else found[0] if found else None
    if balance is not None:
        bill: dict[str, JsonValue] = {"payee": name, "amount_usd": balance, "recurring": False}
        facts.append(TypedFact("bill", f"balance/{issuer}", conversation_fields(context, "user", bill)))
    paid = _PAID_CARD.search(sentence)
    if paid is not None and balance != 0.0 and context.speaker == "user" and not is_question(sentence) \
            and not is_hypothetical(sentence) and not is_counterfactual(sentence) and not _NOT_PAID.search(sentence):
        session = context.timestamp.isoformat(timespec="minutes") if context.timestamp is not None else ""
        payment: dict[str, JsonValue] = {"payee": name, "status": "done"}  # what pays the card's bill
        facts.append(TypedFact("payment", f"{name.casefold()}/{session}",
                               conversation_fields(context, "user", payment)))
    if facts or INSTITUTION.search(sentence) and (re.search(r"\bcard\b", sentence, re.I) or _HEADING.match(sentence)):
        context.last["card"] = TypedFact("bill", None, {"payee": name})  # "Barclaycard Platinum" heading a statement
    return facts


# a purchase put on the card the promotion is on: "we put the sectional on our Ashley card, 12 months no interest"
_PUT_ON = re.compile(r"\b(?:put|went|charged|financed)\b[^.;]{0,40}?\b(?:on|onto|to)\s+(?:the|my|our|his|her|their)\b",
                     re.I)
# a payment toward a card's balance: "paid more than the minimum", "made the minimum payment", "paid £300 off it"
_PAID_CARD = re.compile(r"\b(?:i|we|i've|we've|just|already)?\s*(?:paid|made|sent|put)\s+(?:[\w£$€.,]+\s+){0,4}?"
                        r"(?:minimum|payment|more than|extra|towards?|off\s+(?:it|the\s+card|some))\b|"
                        r"^\W*paid\s+(?:[\w£$€.,]+\s+){0,4}?(?:minimum|more than|extra|towards?)\b", re.I)
_NOT_PAID = re.compile(r"\b(?:haven't|have not|didn't|did not|not yet|never|forgot|need to|have to|will|'ll|going to|"
                       r"gonna|should)\b", re.I)
# "down to about 1,900 now": a balance said without a currency
_DOWN_TO = re.compile(r"\bdown to\s+(?:about\s+|around\s+|roughly\s+|just\s+)?[$£€]?\s?"
                      r"(?P<n>\d{1,3}(?:,\d{3})+(?:\.\d\d)?|\d{3,}(?:\.\d\d)?)\b(?!\s*%)", re.I)
# a line that is only a card's name, heading a pasted statement ("Barclaycard Platinum")
_HEADING = re.compile(r"^\W*(?:[A-Z][\w'’&-]*\s*){1,4}(?:statement)?\W*$")
_BALANCE_IS = re.compile(r"\bbalance\s+(?:is\s+|was\s+|of\s+|now\s+|:\s*)+(?:about\s+|around\s+)?\$\s?"
                         r"(?P<n>\d{1,3}(?:,\d{3})+(?:\.\d\d)?|\d+(?:\.\d\d)?)\b", re.I)


_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_MONTH_YEAR = re.compile(
    r"\b(?P<month>jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?,?\s+(?P<year>20\d\d)\b", re.I)


_BARE_MONTH = re.compile(r"\s+(?:in\s+)?(?:next\s+)?(?P<month>jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*"
                         r"\b(?!\.?\s*\d)", re.I)


def _promo_end(sentence: str, context: Context) -> str | None:
    today = session_day(context)
    ends = re.search(r"\b(?:ends?|ending(?!\s+(?:in\s+)?\d)|until|through|expires?|in full by|by)\b", sentence, re.I)
    if ends is not None:
        later = [d for d in recognize(sentence[ends.start():], context.timestamp).dates]
        if later:
            return _not_before(later[0], sentence, today)
        month = _MONTH_YEAR.search(sentence, ends.start())
        if month is not None:  # "ends in March 2026": its first day, the earlier reading
            number = _MONTHS.index(month.group("month")[:3].lower()) + 1
            return date(int(month.group("year")), number, 1).isoformat()
        bare = _BARE_MONTH.match(sentence, ends.end())
        if bare is not None and today is not None:  # "until next June": its first day, as above
            number = _MONTHS.index(bare.group("month")[:3].lower()) + 1
            year = today.year if number > today.month else today.year + 1
            return date(year, number, 1).isoformat()
    span = _span_months(sentence)
    if span is not None and today is not None:
        return add_months(today, span).isoformat()
    return None  # a date before the cue ("balance $0 as of May 1 ... when the promotion ends") is not its end


def _not_before(day_text: str, sentence: str, today: date | None) -> str:
    """A promotion's end read as before the session is a later year's ("the April 2026
    statement, April 5th" said in 2024)."""
    day = try_date(day_text)
    if day is None or today is None or day > today or day == today and re.search(r"\btoday\b", sentence, re.I):
        return day_text  # a promotion ending the day it is stated ("by next September 14th") is a later year's
    year = re.search(r"\b(20\d\d)\b", sentence)
    target = int(year.group(1)) if year is not None and int(year.group(1)) >= today.year else None
    try:
        if target is not None:
            return day.replace(year=target).isoformat()
        while day <= today:
            day = day.replace(year=day.year + 1)
    except ValueError:
        return day_text
    return day.isoformat()


# --- deadlines and bills stated as due ---------------------------------------------------


# a statement's lines name what is due, not who is paid: "Minimum payment due", "the minimum of $95 is due"
STATEMENT_DUE = re.compile(r"^(?:(?:the|your|my|our|new|statement|current|total)\s+)*(?:minimum|min\.?)?\s*"
                            r"(?:payment|amount|balance|pay)?$", re.I)


def card_due(when: str, context: Context) -> list[TypedFact]:
    """The due date of the card the session is about (its balance's bill), or nothing."""
    card = context.last.get("card")
    if card is None:
        return []
    name = str(card.fields["payee"])
    named = INSTITUTION.match(name)
    issuer = named.group("name").casefold() if named is not None else _card_words(name)[0]
    fields: dict[str, JsonValue] = {"payee": name, "due_date": when, "recurring": False}
    return [TypedFact("bill", f"balance/{issuer}", conversation_fields(context, "user", fields))]


def _due(sentence: str, context: Context, match: re.Match[str]) -> list[TypedFact]:
    """ "the quarterly board pack is due on the 18th", "Noted: February expense report due
    March 10": a deadline (its subject from "Emma's", "my daughter's"), or a bill when it
    states an amount. A restatement with the same date (the assistant's "Noted: ...") is
    the session's last deadline, retitled."""
    if is_question(sentence) or is_tentative(sentence):
        return []
    when = charge_date(sentence[match.end() - 3:], context)  # from "due" on: "due Friday"
    if when is None or not is_ahead(when, sentence, session_day(context)):
        return []
    title = " ".join(match.group("title").split())
    if STATEMENT_DUE.match(re.sub(r"\s+of\s+\$?[\d,.]+$", "", title)):
        return card_due(when, context)  # "Minimum payment due: $95.00": the card's, not a payee "minimum"
    found = amounts(sentence, context)
    if not found and _NOT_DEADLINE.search(title):
        return []  # "the baby is due in March"; a bill without an amount is the bills reader's
    if found:
        payee = re.sub(r"(?:\s+premium)?\s+of\s+\$?[\d,.]+$", "", title)
        payee = re.sub(r"\s+(?:bill|premium)(?:'s|’s)?$|(?:'s|’s)$", "", payee) or payee  # "phone bill's due"
        payee = re.sub(r"^(?:your|my|our)\s+(?=\S)", "", payee, flags=re.I)  # "Your Anglian Water bill ... is due"
        fields: dict[str, JsonValue] = {"payee": payee, "amount_usd": found[0], "due_date": when}
        return [TypedFact("bill", f"bill/{payee.casefold()}", conversation_fields(context, "user", fields))]
    title = re.sub(r"\s+of\s+\$?[\d,.]+$", "", title)
    previous = context.last.get("deadline")
    same = previous is not None and previous.key is not None and previous.key.startswith("deadline/") \
        and previous.fields.get("due_date") == when
    subject = str(previous.fields.get("subject", "user")) if same and previous is not None else \
        subject_of(sentence, context)
    key = previous.key if same and previous is not None and previous.key is not None else \
        f"deadline/{title.casefold()}"
    fact = TypedFact("deadline", key, conversation_fields(context, subject, {"title": title, "due_date": when}))
    context.last["deadline"] = fact
    context.entities[f"deadline:{key}"] = dict(fact.fields)  # what a later "it's done" may name (deadlines._met)
    return [fact]
