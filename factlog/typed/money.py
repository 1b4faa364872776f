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
from factlog.recognizers import NUMBER_WORDS, recognize
from factlog.timeparse import try_date
from factlog.typed.common import add_months, conversation_fields
from factlog.typed.model import Context, TypedFact

DOMAIN = "money"

VENDORS = (
    "Netflix", "Spotify", "Hulu", "Amazon Prime", "Prime Video", "Walmart+", "Disney+", "Disney Plus", "HBO Max",
    "YouTube Premium", "YouTube TV", "Apple Music", "Apple TV+", "Apple One", "iCloud", "Paramount+",
    "Peacock", "Audible", "Kindle Unlimited", "Adobe", "Microsoft 365", "Office 365", "Dropbox", "Google One",
    "ChatGPT Plus", "Peloton", "Costco", "Sam's Club", "Xbox Game Pass", "PlayStation Plus", "Nintendo Switch Online",
    "Duolingo", "Headspace", "Calm", "Strava", "New York Times", "NYT", "Washington Post", "Patreon", "Sling",
    "DoorDash DashPass", "DashPass", "Uber One", "Instacart+", "Crunchyroll", "SiriusXM", "Planet Fitness",
)
BILLERS = (
    "Verizon", "AT&T", "T-Mobile", "Comcast", "Xfinity", "Spectrum", "PG&E", "Con Edison", "ConEd",
    "Duke Energy", "National Grid", "Geico", "GEICO", "State Farm", "Progressive",
)
INSTITUTIONS = (
    "Chase", "Citi", "Citibank", "Capital One", "Wayfair", "Best Buy", "Bank of America", "Wells Fargo",
    "American Express", "Amex", "Discover", "First Republic", "Synchrony", "Apple Card", "US Bank", "U.S. Bank",
    "PNC", "TD Bank", "Ally", "Barclays", "Target", "Navy Federal", "Schwab", "Fidelity", "Marcus",
)


def _names(names: tuple[str, ...]) -> re.Pattern[str]:
    alternatives = "|".join(sorted(map(re.escape, names), key=len, reverse=True))
    return re.compile(rf"(?<![\w+])(?P<name>{alternatives})(?![\w]|\+(?!\w))", re.I)


_VENDOR = _names(VENDORS)
_BILLER = _names(BILLERS)
_INSTITUTION = _names(INSTITUTIONS)
_CANONICAL = {name.casefold(): name for name in (*VENDORS, *BILLERS, *INSTITUTIONS)}

SUBSCRIPTION_WORDS = re.compile(
    r"\b(?:subscri\w+|membership|free trial|trial|renew\w*|auto-?renew\w*|billed|bills|charges? again|"
    r"premium plan)\b", re.I)
PAYMENT_WORDS = re.compile(
    r"\b(?:pay|pays|paying|paid|payment|payments|wire|wired|wiring|transfer\w*|send|sending|sent|autopay|"
    r"zelle|venmo|rent|mortgage|invoice)\b", re.I)
BALANCE_WORDS = re.compile(r"\b(?:balance|left on|owe|owing|remaining|paid off|pay off)\b|\bleft\b(?=\W*$)", re.I)
PROMO = re.compile(
    r"(?:\b0\s?%|\bzero percent\b|\bno interest\b|\binterest[- ]free\b|\bintro(?:ductory)?\b|"
    r"\bpromo(?:tional|tion)?\b|\bdeferred interest\b|\bsame as cash\b)", re.I)
DUE = re.compile(
    r"\b(?:the|my|our)\s+(?P<title>[A-Za-z][\w'&+-]*(?:\s+[A-Za-z][\w'&+-]*){0,6}?"
    r"(?:\s+of\s+\$?\d[\d,]*(?:\.\d\d)?)?)\s+(?:is|are)\s+due\b", re.I)
CANCEL = re.compile(r"\b(?:cancel\w*|kill|stop|end)\b", re.I)
CANCEL_DONE = re.compile(
    r"(?<!unless )(?<!if )(?<!not )\b(?:cancell?ed|canceled|unsubscribed)\b(?!\s+(?:before|by))", re.I)
INTENT = re.compile(
    r"\b(?:will|'ll|gonna|going to|intend\w* to|plan\w* to|want to|meant to|need to|have to|should|"
    r"mentioned|said you'?d|about to|before it)\b", re.I)
_CONFIRMING = re.compile(
    r"^\W*(?:noted|recorded|confirmed|saved|updated|understood|got it|done)\b|\byou(?:r|'d|'ll)?\b", re.I)
# a sentence without one of these is about no money (named groups dropped: reader.py joins them)
TRIGGERS = tuple(re.compile(re.sub(r"\(\?P<\w+>", "(?:", p.pattern), p.flags) for p in (
    _VENDOR, _BILLER, _INSTITUTION, SUBSCRIPTION_WORDS, PAYMENT_WORDS, BALANCE_WORDS, PROMO, DUE,
    re.compile(r"\b(?:bought|purchased|purchase|ordered|installed by|put in|actually|updated|make (?:it|that)|"
               r"correction|ends|no (?:more|further) charges)\b", re.I)))

_MONTHLY = re.compile(r"\b(?:monthly|a month|per month|/\s?mo(?:nth)?|each month|every month)\b", re.I)
_YEARLY = re.compile(r"\b(?:annual(?:ly)?|yearly|a year|per year|/\s?yr|/\s?year|each year|every year)\b", re.I)
_WEEKLY = re.compile(r"\b(?:weekly|a week|per week|every week)\b", re.I)
_ACCESS_ENDS = re.compile(r"\b(?:ends|no (?:more|further) charges)\b", re.I)
_TRIAL_END = re.compile(r"\b(?:converts?|ends?|ending|until|expires?|runs out)\b", re.I)
_CHARGE = re.compile(r"\b(?:renew\w*|bill\w*|charge\w*|due|on(?= the \d| \w+ \d)|the(?= \d))", re.I)
_ASSISTANT_INTENT = re.compile(r"\byou(?:'d| would| will|'ll| plan| intend| want| mentioned| said| are going)\b", re.I)
_TRIAL = re.compile(r"\b(?:free trial|trial)\b", re.I)
_TRIAL_DAYS = re.compile(
    rf"\b(?P<n>\d{{1,3}}|{'|'.join(['a', 'one', *NUMBER_WORDS])})[- ](?P<unit>days?|weeks?|months?)\b", re.I)
_MONTHS_SPAN = re.compile(rf"\b(?P<n>\d{{1,2}}|{'|'.join(['one', *NUMBER_WORDS])})[- ]months?\b", re.I)
_DAY_OF_MONTH = re.compile(r"\b(?:on\s+)?the\s+(?P<dd>\d{1,2})(?:st|nd|rd|th)\b", re.I)
_LAST4 = re.compile(
    r"(?:\bending(?:\s+(?:in|with))?|\bfinish\w*\s+with|\bx|#|\bchecking|\bsavings)\s*(?P<d>\d{4})\b", re.I)
_AMOUNT_FALLBACK = re.compile(
    r"(?<![\w.$,])(?P<num>\d{1,3}(?:,\d{3})+|\d+)(?P<dec>\.\d\d)?\s*(?:dollars?\b|bucks\b|usd\b|(?=\s+left\b))"
    r"|(?<![\w.$,/:])(?P<num2>\d{1,4}\.\d\d)(?![\d%])"
    r"|\b(?:send|pay|wire|transfer)\s+(?P<num3>\d{1,3}(?:,\d{3})+|\d{2,5})\b(?!\s*(?:am|pm|%|st|nd|rd|th)\b)", re.I)
_ZERO = re.compile(r"\b(?:balance (?:is|of) (?:zero|nothing|\$?0(?:\.00)?)\b|paid (?:it )?off|zero balance)", re.I)
_QUESTION = re.compile(r"\?\s*$")


def read(sentence: str, context: Context) -> list[TypedFact]:
    """Each clause in turn ("wife pays it from her card. told me to kill the autopay")."""
    if _GATE.search(sentence) is None:
        return []
    facts: list[TypedFact] = []
    for clause in clauses(sentence):
        facts += _read_clause(clause, context)
    return facts


# a sentence without one of these states no money, even about the session's last subscription or payment
_GATE = re.compile("|".join(f"(?:{p.pattern})" for p in (*TRIGGERS, CANCEL, _ACCESS_ENDS, _LAST4)) + r"|\$\s?\d|[€£]",
                   re.I)
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


def _read_clause(sentence: str, context: Context) -> list[TypedFact]:
    if context.speaker == "assistant" and not _CONFIRMING.search(sentence):
        return []  # the assistant's general advice names nothing of the user's
    facts: list[TypedFact] = []
    due = DUE.search(sentence)
    if due is not None:
        facts += _due(sentence, context, due)
    if _INSTITUTION.search(sentence) or context.last.get("card") is not None:
        facts += _card(sentence, context)
    facts += _subscription(sentence, context)
    return facts


# --- values -------------------------------------------------------------------------


def amounts(sentence: str, context: Context) -> list[float]:
    """The sentence's money amounts, in text order: the recognisers' ("$5,000", "$1.2k"),
    else "1,650 dollar", "11.99" or "900 left"."""
    found = recognize(sentence, context.timestamp).amounts_usd
    if found:
        return found
    out = []
    for match in _AMOUNT_FALLBACK.finditer(sentence):
        raw = match.group("num") or match.group("num2") or match.group("num3")
        out.append(float(raw.replace(",", "") + ((match.group("dec") or "") if match.group("num") else "")))
    return out


def _dates(sentence: str, context: Context) -> list[str]:
    return recognize(sentence, context.timestamp).dates


def _today(context: Context) -> date | None:
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


_WEEKDAY = re.compile(r"\bon\s+(?P<day>mon|tues|wednes|thurs|fri|satur|sun)day\b", re.I)
_WEEKDAYS = ("mon", "tues", "wednes", "thurs", "fri", "satur", "sun")


def _charge_date(sentence: str, context: Context) -> str | None:
    """The first date the sentence gives: a full or relative one, "on the 15th" (the next
    15th), or "on Friday" (the next Friday after the session's day)."""
    dates = _dates(sentence, context)
    if dates:
        return dates[0]
    today = _today(context)
    weekday = _WEEKDAY.search(sentence)
    if weekday is not None and today is not None:
        ahead = (_WEEKDAYS.index(weekday.group("day").lower()) - today.weekday()) % 7 or 7
        return (today + timedelta(days=ahead)).isoformat()
    match = _DAY_OF_MONTH.search(sentence)
    if match is None or today is None:
        return None
    day = next_day_of_month(int(match.group("dd")), today)
    return day.isoformat() if day is not None else None


def _number(raw: str) -> int:
    raw = raw.lower()
    return int(raw) if raw.isdigit() else 1 if raw in ("a", "an", "one") else NUMBER_WORDS[raw]


def _canonical(name: str) -> str:
    return _CANONICAL.get(name.casefold(), name)


# --- subscriptions -------------------------------------------------------------------


def _subscription(sentence: str, context: Context) -> list[TypedFact]:
    vendor_match = _VENDOR.search(sentence)
    previous = context.last.get("subscription")
    if vendor_match is not None:
        vendor = _canonical(vendor_match.group("name"))
    elif previous is not None and (SUBSCRIPTION_WORDS.search(sentence) or CANCEL.search(sentence)
                                   or _ACCESS_ENDS.search(sentence)):
        vendor = str(previous.fields["vendor"])
    else:
        return []
    fields: dict[str, JsonValue] = {"vendor": vendor}
    found = amounts(sentence, context)
    if found:
        fields["amount_usd"] = found[0]
    cadence = "monthly" if _MONTHLY.search(sentence) else "yearly" if _YEARLY.search(sentence) else \
        "weekly" if _WEEKLY.search(sentence) else None
    if cadence is not None:
        fields["cadence"] = cadence
    trial = _TRIAL.search(sentence)
    today = _today(context)
    if trial is not None:
        cue = _TRIAL_END.search(sentence)
        dates = _dates(sentence[cue.start():], context) if cue is not None else []
        span = _TRIAL_DAYS.search(sentence)
        if dates:
            fields["promo_end_date"] = dates[0]
        elif span is not None and today is not None:
            n, unit = _number(span.group("n")), span.group("unit").lower()
            end = add_months(today, n) if unit.startswith("month") else \
                today + timedelta(days=n * (7 if unit.startswith("week") else 1))
            fields["promo_end_date"] = end.isoformat()
    elif (cue := _CHARGE.search(sentence) or _ACCESS_ENDS.search(sentence)) is not None:
        charge = _charge_date(sentence[cue.start():], context) or _charge_date(sentence, context)
        if charge is not None:
            fields["due_date"] = charge
    status = _subscription_status(sentence, context, trial is not None)
    if status is not None:
        fields["status"] = status
    key = vendor.casefold()
    fact = TypedFact("subscription", key, conversation_fields(context, "user", fields))
    context.last["subscription"] = fact
    if set(fields) == {"vendor"}:
        return []  # named only: what a later "gonna cancel" is about
    return [fact]


def _subscription_status(sentence: str, context: Context, trial: bool) -> str | None:
    if CANCEL_DONE.search(sentence) and not INTENT.search(sentence):
        return "cancelled"
    if CANCEL.search(sentence):
        if _QUESTION.search(sentence):
            return None  # "cancel spotify for me?": asked, not decided
        if context.speaker == "assistant" and not _ASSISTANT_INTENT.search(sentence):
            return None
        return "cancelling"
    if trial:
        return "trial"
    if re.search(r"\b(?:signed up|subscribed|renews|billed|membership)\b", sentence, re.I):
        return "active"
    return None


# --- cards: balances and promotions ------------------------------------------------------


def _card_name(sentence: str) -> str | None:
    """The institution of the card the sentence is about: the one after "to" or "on" when
    several are named ("from my Capital One card to a Chase Slate card" -> Chase)."""
    names = list(_INSTITUTION.finditer(sentence))
    if not names:
        return None
    for match in names:
        if re.search(r"\b(?:to|on|onto)\s+(?:a|an|the|my|our)?\s*(?:new\s+)?$", sentence[: match.start()], re.I):
            return _canonical(match.group("name"))
    return _canonical(names[-1].group("name"))


def _card(sentence: str, context: Context) -> list[TypedFact]:
    name = _card_name(sentence)
    previous = context.last.get("card")
    if name is None:
        if previous is None:
            return []
        name = str(previous.fields["payee"]).removesuffix(" card")
    facts: list[TypedFact] = []
    promo = PROMO.search(sentence)
    if promo is not None:
        end = _promo_end(sentence, context)
        if end is not None:
            fields: dict[str, JsonValue] = {"title": f"{name} card promotional period ends", "due_date": end}
            facts.append(TypedFact("deadline", f"promotion/{name.casefold()}",
                                   conversation_fields(context, "user", fields)))
    balance = None
    if _QUESTION.search(sentence):
        pass
    elif _ZERO.search(sentence):
        balance = 0.0
    elif BALANCE_WORDS.search(sentence) or (promo is not None and re.search(r"\btransfer\w*|moved\b", sentence, re.I)) \
            or re.search(r"\bon the \w+ card\b", sentence, re.I) or \
            (previous is not None and re.search(r"^\W*(?:wait|no|sorry|actually)\b", sentence, re.I)):
        stated = _BALANCE_IS.search(sentence)
        if stated is not None:
            balance = float(stated.group("n").replace(",", ""))
        elif not re.search(r"\badded to\b|\bfee\b", sentence, re.I):
            found = amounts(sentence, context)
            balance = found[-1] if found and re.search(r"\bstarting balance\b|\bwait\b|\bactually\b", sentence, re.I) \
                else found[0] if found else None
    if balance is not None:
        payee = f"{name} card"
        bill: dict[str, JsonValue] = {"payee": payee, "amount_usd": balance, "recurring": False}
        fact = TypedFact("bill", f"balance/{payee.casefold()}", conversation_fields(context, "user", bill))
        facts.append(fact)
    if facts or _INSTITUTION.search(sentence) and re.search(r"\bcard\b", sentence, re.I):
        context.last["card"] = TypedFact("bill", None, {"payee": f"{name} card"})
    return facts


_BALANCE_IS = re.compile(r"\bbalance\s+(?:is\s+|was\s+|of\s+|now\s+|:\s*)+(?:about\s+|around\s+)?\$\s?"
                         r"(?P<n>\d{1,3}(?:,\d{3})+(?:\.\d\d)?|\d+(?:\.\d\d)?)\b", re.I)


def _promo_end(sentence: str, context: Context) -> str | None:
    today = _today(context)
    dates = _dates(sentence, context)
    ends = re.search(r"\b(?:ends?|ending(?!\s+(?:in\s+)?\d)|until|through|expires?)\b", sentence, re.I)
    if ends is not None:
        later = [d for d in recognize(sentence[ends.start():], context.timestamp).dates]
        if later:
            return _not_before(later[0], sentence, today)
    span = _MONTHS_SPAN.search(sentence)
    if span is not None and today is not None:
        return add_months(today, _number(span.group("n"))).isoformat()
    return _not_before(dates[0], sentence, today) if dates and ends is not None else None


def _not_before(day_text: str, sentence: str, today: date | None) -> str:
    """A promotion's end read as before the session is a later year's ("the April 2026
    statement, April 5th" said in 2024)."""
    day = try_date(day_text)
    if day is None or today is None or day >= today:
        return day_text
    year = re.search(r"\b(20\d\d)\b", sentence)
    target = int(year.group(1)) if year is not None and int(year.group(1)) >= today.year else None
    try:
        if target is not None:
            return day.replace(year=target).isoformat()
        while day < today:
            day = day.replace(year=day.year + 1)
    except ValueError:
        return day_text
    return day.isoformat()


# --- deadlines and bills stated as due ---------------------------------------------------


def _due(sentence: str, context: Context, match: re.Match[str]) -> list[TypedFact]:
    when = _charge_date(sentence[match.end():], context)
    if when is None:
        return []
    title = " ".join(match.group("title").split())
    found = amounts(sentence, context)
    if found:
        payee = re.sub(r"(?:\s+premium)?\s+of\s+\$?[\d,.]+$", "", title)
        fields: dict[str, JsonValue] = {"payee": payee, "amount_usd": found[0], "due_date": when}
        return [TypedFact("bill", f"bill/{payee.casefold()}", conversation_fields(context, "user", fields))]
    title = re.sub(r"\s+of\s+\$?[\d,.]+$", "", title)
    return [TypedFact("deadline", f"deadline/{title.casefold()}",
                      conversation_fields(context, "user", {"title": title, "due_date": when}))]
