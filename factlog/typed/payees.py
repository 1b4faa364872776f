"""Who is paid, who asked, and which invoice, in payment talk.

- The payee: a known biller; the name after "to", "pay", "send", "wire", "Zelle" ("wire
  $8,500 to Apex Supply Co.", "paid mike the electrician"); rent or mortgage when nothing
  is named; a name owning the thing paid ("Sofia's invoice", "the Harbor Cabinets
  deposit"); a name next to a trade ("the roofer, Dan Pruitt", "Mike, our electrician");
  who sent the invoice ("Northgate sent an invoice"); an unnamed trade ("to the roofer");
  or the requester for "pay her".
- Who asked: "requested by X", "at X's request", "per X's email", "an email from X saying",
  "X (has) asked / wants / told / emailed", "my boss emailed", and "he says" for the
  person the session last named.
- The reference: an invoice or order number ("invoice AX-3318", "inv 318", "invoice,
  number 2207", "another invoice, #331", "her T-0228 invoice"); it holds a digit.
"""

from __future__ import annotations

import re

from factlog.relations import family_word
from factlog.typed.common import RELATIONS
from factlog.typed.model import Context
from factlog.typed.money import BILLER, INSTITUTION, VENDOR, canonical_vendor
from factlog.typed.places import place_name

TRADES = (
    "painter plumber contractor electrician landlord landlady nanny tutor roofer carpenter gardener landscaper "
    "mechanic babysitter sitter cleaner housekeeper accountant lawyer attorney dentist vet handyman builder mover "
    "movers caterer photographer florist therapist coach trainer teacher school daycare supplier vendor architect "
    "decorator installer exterminator walker groomer nurse caregiver doctor surgeon orthodontist chiropractor "
    "physiotherapist driver courier guide instructor consultant designer developer freelancer bookkeeper notary "
    "surveyor inspector realtor broker agent carer caretaker aide sub subcontractor tiler plasterer sparky tradie "
    "chippy concreter fencer glazier welder bricklayer hvac venue gym church charity guy guys lady crew"
).split()
_TRADE = "|".join(sorted(TRADES, key=len, reverse=True))
_ROLES = "|".join(sorted({*RELATIONS, "boss", "manager", "accountant", "assistant", "controller", "cfo", "ceo",
                          "bookkeeper", "landlord", "contractor", "lawyer", "partner"}, key=len, reverse=True))
_NAME = r"(?-i:[A-Z][\w&.'’-]*(?:\s+(?:[A-Z][\w&.'’-]*|&)){0,4})"
_STOP_WORDS = frozenset(
    "So Well Now And But Then Oh Hey Hi Yes No Just Anyway Today Tomorrow Yesterday Sorry Actually "
    "Don't Dont Do Can't Won't Didn't Doesn't Let Can Could Would Will Should Send Pay Wire Transfer Hold "
    "I A An The This That These Those It Its He She They We You Please Per My Our Your His Her Their Noted Recorded "
    "Confirmed Updated Saved Got Also Thanks Thank Ok Okay ACH Zelle Venmo PayPal Monday Tuesday Wednesday Thursday "
    "Friday Saturday Sunday January February March April May June July August September October November December "
    "Jan Feb Mar Apr Jun Jul Aug Sep Sept Oct Nov Dec Mom Dad Paid Paying Sent Sending Wired Transferred Zelled "
    "Venmoed Gave Owe Need Remind Move Moved Cancel Stop Kill Put Mum Uh Um "
    # answers and interjections opening a sentence are no one's name ("Ya I sent the 150 extra")
    "Ya Yeah Yep Yup Yea Nope Nah Alright Right Cool Sure Great Fine Lovely Cheers Righto Grand Aye Sí Si".split())
_PAY_VERB = r"(?:to|pay|pays|paying|paid|send|sends|sending|sent|wire|wires|wiring|wired|zelle|zelled|venmo|" \
    r"venmoed|venmo'd|ach|mail|mailed|give|gave|owe|owes|reimburse|transfer\w*|covered|settled)"
_VERB = re.compile(rf"\b{_PAY_VERB}\b", re.I)
_OBJECT = re.compile(
    rf"\s+(?:(?:the|my|our|his|her|their)\s+(?:[a-z]+\s+)?(?:{_TRADE}),?\s+|the\s+)?(?P<name>{_NAME})", re.I)
# a lower-case name paid an amount ("paid jess back the 40", "zelle mike 200"): texting without capitals
_LOWER_PAID = re.compile(
    r"\b(?:paid|pay|sent|send|zelle[ds]?|zelle'd|venmo(?:ed|s|'d)?|owe[sd]?|gave|give)\s+(?P<name>(?!(?:rent|cash|money|it|them|"
    r"him|her|off|for|back|the|that|this|what|all|extra|about|around|another|only|just|over|up|out|half|some|each|"
    r"every|everyone|everybody|someone|somebody|anyone|everything|like|maybe|probably|approx|roughly|nearly|"
    r"almost|us|me|you|tax|taxes|fees?|bills?|tuition|interest|attention|invoice|inv|order|number|ref|"
    r"reference|account|acct|deposit|installment|retainer|balance|amount|total)\b)(?-i:[a-z]{3,}))\s+"
    r"(?:back\s+)?(?:the\s+)?\$?\d", re.I)
_TRAVEL = re.compile(r"\b(?:fly\w*|flew|flight|trip|travel\w*|vacation|holiday|visit\w*|driv\w*|heading|going|"
                     r"moving|moved|booked|hotel|airbnb)\b", re.I)
_PLACE = re.compile(r"\s+(office|clinic|practice|shop|store|firm|studio|salon|garage|team|company)\b", re.I)
_LOWER_NAMED = re.compile(
    rf"\b{_PAY_VERB}\s+(?P<name>(?!(?:{_PAY_VERB}|it|the|him|her|them|for|back|me|us|off|up|out|change|update|switch|"
    rf"ask|tell|call|email|check|confirm|hold|stop|cancel)\b)(?-i:[a-z]{{2,}}))"
    rf"\s+(?:the|my|our)\s+(?:{_TRADE})\b", re.I)
_OWNS = re.compile(rf"(?:\b(?P<name>{_NAME})['’]s\s+(?:[\w-]+\s+)?|\bthe\s+(?:(?:old|new|last|first|second|final|"
                   rf"latest|next|other|original|corrected|updated|revised)\s+)?(?P<name2>{_NAME})\s+(?:[A-Z0-9-]+\s+)?)"
                   r"(?:invoice|bill|deposit|payment|wire|transfer|check|cheque|fees?|retainer)\b")
_BESIDE_TRADE = re.compile(
    rf"(?:\b(?:the|my|our|his|her)\s+|^\W*)(?:{_TRADE})\b(?:\s+(?:of|for)\s+(?:my|our|the)\s+\w+)?,?\s+(?P<name>{_NAME})",
    re.I)
# "the roofer - young fellow called Tomasz", "our cleaner, a woman named Ana": a trade and its name
_CALLED = re.compile(rf"\b(?:the|my|our)\s+(?:{_TRADE})\b[^.;]{{0,40}}?\b(?:called|named|by the name of)\s+"
                     rf"(?P<name>{_NAME})", re.I)
_TRADE_AFTER = re.compile(rf"(?P<name>{_NAME}),?\s+(?:the|my|our)\s+(?:{_TRADE})\b", re.I)
_SENDER = re.compile(
    rf"\binvoice\s+(?:(?:#|no\.?|number)\s*)?(?:[A-Z0-9-]*\d[A-Z0-9-]*\s+)?from\s+(?:the\s+)?(?P<name>{_NAME})"
    rf"|(?P<name2>{_NAME}),?\s+(?:just\s+|has\s+|also\s+)?(?:sent|emailed|dropped off|gave|texted|mailed|submitted|"
    rf"issued)\s+(?:me\s+|us\s+)?(?:an?\s+|another\s+|the\s+|his\s+|her\s+|their\s+|its\s+)?(?:new\s+|final\s+)?"
    rf"(?:invoice|bill)"
    rf"|(?P<name3>{_NAME}),?\s+(?:asks?|asked|wants|needs)\s+(?:me|us)\s+to\s+pay\b"
    rf"|(?P<name4>{_NAME}),?\s+(?:wants|needs|is asking for|asked for|asks for|is owed)\s+(?:the\s+|his\s+|her\s+)?\$"
    rf"|\bowe\s+(?P<lower2>(?!(?:him|her|them|it|the|you|me|us|about|around|roughly|nearly|almost|over|under|like|"
    rf"approximately|just|only|still|another|more|less|them|maybe|probably)\b)(?-i:[a-z]{{3,}}))\s+\$?\d"
    rf"|(?<![\w'])(?P<lower>(?!(?:he|she|they|it|who|someone|that|this|which|and|then|also|just|finally)\b)"
    rf"(?-i:[a-z]{{3,}}))\s+(?:just\s+)?sent\s+(?:me\s+|us\s+)?(?:an?|another|the|his|her|their)\s+"
    rf"(?:new\s+|final\s+)?invoice", re.I)
_ORGS = "office|department|clinic|hospital|club|association|agency|center|centre|bureau|court|league|hoa|irs|dmv"
_TO_TRADE = re.compile(
    rf"\b(?:to|pay|paying|paid|send|sending|sent|give|gave|giving|venmo\w*|zelle\w*|wire\w*|transfer\w*)\s+"
    rf"(?:the|my|our|your)\s+(?P<trade>(?:(?-i:[a-z]+)\s+)?(?:{_TRADE})|"
    rf"(?:(?-i:[a-z]+)\s+){{0,3}}(?:{_ORGS}))\b", re.I)
_TRADE_WANTS = re.compile(rf"\b(?:the|my|our)\s+(?P<trade>{_TRADE}|{_ORGS})\s+(?:wants|needs|is asking for|asked for|"
                          r"asks for)\b(?!\s+(?:me|us|you|him|her|them)\b)", re.I)
# "pay the county property tax": what is paid, when no one is named
_TO_THING = re.compile(r"\b(?:pay|paying|paid|send|sending|cover|covering|covered)\s+"
                       r"(?:the|my|our|his|her|their)\s+"
                       r"(?P<thing>(?:(?-i:[a-z]+)\s+){0,3}?(?:tax|taxes|tuition|fine|toll|levy|rates))\b",
                       re.I)
_ACCOUNT_PAYEE = re.compile(r"\bto\s+the\s+(?!(?:new|same|old|other|my)\s)(?P<name>[a-z]+\s+account)\b")
_NUMBER_WORD = r"(?:a|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|" \
    r"fifty|" \
    r"sixty|seventy|eighty|ninety|hundred|thousand)\b"
_KIN_PAYEE = re.compile(
    rf"\b(?:pay|paying|paid|send|sending|sent|give|giving|gave|transfer\w*|wire[ds]?|zelle\w*|venmo\w*|lend|loan|"
    rf"lent|to)\s+(?P<owner>my|our|his|her|their)\s+"
    rf"(?P<rel>{'|'.join(sorted(RELATIONS, key=len, reverse=True))})\b(?!['’]s)"
    # the name after it: "my grandson Tyler", dictated "my grandson tyler two thousand ..."
    rf"(?:,?\s+(?P<kname>(?-i:[A-Z][a-z]+)(?!\s+(?-i:[A-Z]))|(?-i:[a-z]{{3,}})(?=\s+(?:\$|\d|{_NUMBER_WORD}))))?", re.I)
# "to Marcus Reed's BMO account", not "to Dana from savings" (the account paid from)
_ACCOUNT_AFTER = re.compile(r"\s*(?:(?!(?:from|out|of|by|via|using|with|through)\b)\w+\s+)?"
                            r"(?:account|checking|savings|acct)\b", re.I)
_PRONOUN_PAYEE = re.compile(r"\b(?:pay|paying|send|sending|owe|zelle|venmo|wire)\s+(?:to\s+)?(?:her|him|them)\b", re.I)


def _clean(name: str, possessive: bool = False) -> str | None:
    name = name.strip().rstrip(",")
    if name.endswith(".") and not name.endswith(("Co.", "Inc.", "Ltd.", "Corp.")):
        name = name[:-1]
    if possessive:
        name = re.sub(r"['’](?:s|d|ll|m|ve|re)$", "", name)
    words = name.split()
    while words and (words[-1] in _STOP_WORDS or words[-1].capitalize() in _STOP_WORDS):
        words.pop()
    if not words or words[0] in _STOP_WORDS or words[0].capitalize() in _STOP_WORDS or \
            INSTITUTION.fullmatch(" ".join(words)) or \
            any(ch.isdigit() for ch in words[0]):
        return None  # "the BC-221 payment" names an invoice, not a payee
    return " ".join(words)


# "Mr. Park wants Coastal Produce paid", "she'd like the roofer paid by Friday"
_WANTS_PAID = re.compile(rf"\b(?:wants?|needs?|would like|'d like)\s+(?P<name>{_NAME})\s+(?:paid|settled)\b")
# a list line or note opening with the payee: "Harbor Linen Supply, inv HL-3391, $2,480 - pay ...",
# "Bella's Kitchen catering deposit - invoice 101 - $300"
_LINE_PAYEE = re.compile(rf"^\W*(?P<name>{_NAME})(?:(?:\s+(?-i:[a-z]+)){{0,2}}\s*(?:,|\s-|\s–)|\s*:)\s*"
                         r"(?:inv\b|invoice\b|"
                         r"#\s*\d|\$\s?\d|ref\b|order\b)")  # not "Marked as paid: $1,250"
# who did the work the invoice is for: "Ortiz Plumbing replaced the water heater ... - invoice 5512, $1,875"
_WORKER = re.compile(rf"^\W*(?:(?:right|so|ok|okay|well|anyway|and|oh)\W+){{0,2}}(?:the\s+)?"
                     rf"(?:(?:{_TRADE})s?\s*[-–,(]\s*)?(?P<name>{_NAME})\s*[-–,)]?\s+(?:has\s+|have\s+|just\s+|finally\s+)*"
                     r"(?:replaced|repaired|installed|fixed|finished|completed|delivered|did|built|painted|cleaned|"
                     r"serviced|dropped|came|put|mowed|trimmed|removed|treated|catered|supplied|hauled|poured|laid|"
                     r"rewired|tiled|towed|moved|redid|patched|sealed|inspected)\b", re.I)
_LOAN = re.compile(r"\b(?:pay|paid|paying|pays|send|sent|sending|make|made|making)\s+(?:off\s+)?(?:the|my|our)\s+"
                   r"(?P<name>(?:[\w&'-]+\s+){0,2}?)(?P<what>loan|note|lease|financing)(?:\s+payment)?\b", re.I)
_GENERIC_LOAN = frozenset("car auto student personal home house truck boat bank payday business".split())


def payee_of(sentence: str, who: str | None, context: Context) -> str | None:
    """Whom the sentence pays (see the module's list), or None."""
    biller = BILLER.search(sentence) or VENDOR.search(sentence)
    if biller is not None:
        return canonical_vendor(biller.group("name"))
    for pattern in (_WANTS_PAID, _LINE_PAYEE):
        match = pattern.search(sentence)
        name = _clean(match.group("name")) if match is not None else None
        if name is not None:
            return name
    if re.search(r"\b(?:invoice|inv)\b|\$\s?\d", sentence, re.I) and (worker := _WORKER.match(sentence)) is not None:
        name = _clean(worker.group("name"))
        if name is not None and not INSTITUTION.search(name):
            return name
    loan = _LOAN.search(sentence)
    if loan is not None:  # "paid the honda loan": the lender as named; "the car loan" as it is
        name = " ".join(loan.group("name").split())
        if name and name.split()[-1].lower() not in _GENERIC_LOAN:
            return " ".join(word[:1].upper() + word[1:] for word in name.split())
        return f"{name} {loan.group('what').lower()}".strip()
    for verb in _VERB.finditer(sentence):  # each verb in turn: "to Venmo her landlord, Tom Becker"
        match = _OBJECT.match(sentence, verb.end())
        name = _clean(match.group("name")) if match is not None else None
        if name is not None and place_name(name) is not None and _TRAVEL.search(sentence):
            continue  # "flying to Seattle next Tuesday, already booked and paid"
        if name is not None and match is not None:
            place = _PLACE.match(sentence, match.end()) if name.endswith(("'s", "’s")) else None
            if place is not None:
                return f"{name} {place.group(1).lower()}"
            if _ACCOUNT_AFTER.match(sentence, match.end()) or INSTITUTION.search(name):
                continue  # "to Marcus Reed's BMO account": whose account, not whom the payment is for
            return re.sub(r"['’]s$", "", name)
    lower = _LOWER_NAMED.search(sentence) or _LOWER_PAID.search(sentence)
    if lower is not None and lower.group("name").lower() not in ("it", "the", "him", "her", "them", "for", "back"):
        return lower.group("name").title()
    if re.search(r"\brent\b", sentence, re.I):
        return "rent"
    if re.search(r"\bmortgage\b", sentence, re.I):
        return "mortgage"
    for pattern in (_OWNS, _BESIDE_TRADE, _CALLED, _TRADE_AFTER, _SENDER):
        for match in pattern.finditer(sentence):
            raw = next(group for group in match.groups() if group is not None)
            name = _clean(raw[:1].upper() + raw[1:])
            if name is not None:
                return name
    trade = _TO_TRADE.search(sentence)
    if trade is not None:
        return trade.group("trade").lower()
    account = _ACCOUNT_PAYEE.search(sentence)
    if account is not None:
        return account.group("name")
    kin = _KIN_PAYEE.search(sentence)
    if kin is not None:  # "send her brother $250": a relative is paid
        owner = kin.group("owner").lower()
        relation = kin.group("rel").lower()
        given = kin.group("kname")
        if given and owner in ("my", "our") and given.capitalize() not in _STOP_WORDS and \
                given.lower() not in _NOT_PEOPLE:
            return given.capitalize()  # the relative as named
        return relation if owner in ("my", "our") else f"{who}'s {relation}" if who not in (None, "user") else None
    thing = _TO_THING.search(sentence)
    if thing is not None:
        return thing.group("thing").lower()
    wants = _TRADE_WANTS.search(sentence)
    if wants is not None:  # "The school wants the trip fee, $85"
        return wants.group("trade").lower()
    if _PRONOUN_PAYEE.search(sentence):
        if who is not None and who not in RELATIONS and who != "user":
            return who
        named = last_person(context)  # "The mechanic, Luis, says I owe $685. I'll pay him Friday."
        if named is not None and named not in RELATIONS:
            return named
    return None


def trade_named(text: str, trades: re.Pattern[str]) -> str | None:
    """The name given beside one of `trades` ("my landlord Gary", "Priya, our landlady",
    "the landlord - a man called Tom"), or None."""
    for pattern in (_BESIDE_TRADE, _CALLED, _TRADE_AFTER):
        for match in pattern.finditer(text):
            if trades.search(match.group(0)) is None:
                continue
            name = _clean(next(group for group in match.groups() if group is not None))
            if name is not None:
                return name
    return None


# --- who asked --------------------------------------------------------------------------

# "my partner sam says": the name given after the role, typed in lower case too, before what they say or do
_ROLE_NAME = r"(?:,?\s+(?P<rolename>(?-i:[A-Z][a-z]+)|(?-i:[a-z]{3,}))" \
    r"(?=,?\s+(?:says|said|asked|asks|wants|told|tells|" \
    r"texted|called|telephoned|phoned|rang|messaged|emailed|paid|sent|just|already|has|had|is|will)\b))?"
_WHO = rf"(?:(?:my|our|the)\s+(?P<role>{_ROLES})\b{_ROLE_NAME}" \
    rf"|(?P<rel>\b(?:{_ROLES}))\b|(?P<name>{_NAME}))"
_ASKS = (r"(?:would like|'d like|would prefer|authori[sz]ed|asked|asks|ask|instructed|instructs|requested|requests|"
         r"wants|wanted|told|tells|says|said|emailed|"
         r"texted|messaged|called|wrote|insists|insisted|approved|needs|forwarded|rang|informs|informed|reckons|"
         r"mentioned|mentions|reminded|reminds)\b")
_REQUESTERS = (
    re.compile(rf"\b(?:requested|asked|instructed)\s+by\s+{_WHO}", re.I),
    re.compile(rf"\bat\s+(?:the\s+)?request\s+of\s+{_WHO}", re.I),
    re.compile(rf"\bat\s+(?:your\s+|my\s+|our\s+)?{_WHO}['’]s\s+request", re.I),
    re.compile(rf"\bper\s+{_WHO}", re.I),
    re.compile(rf"\b(?:email|e-mail|text|message|note|call|voicemail|letter|memo)\s+(?:[\w'-]+\s+){{0,3}}?from\s+{_WHO}",
               re.I),  # "an email this morning from Tom Ferris"
    re.compile(rf"{_WHO}(?:['’]s\s+(?:email|text|message|note|memo))?\s+"
               rf"(?:has\s+|had\s+|just\s+|also\s+|now\s+|then\s+)*(?:has\s+)?{_ASKS}", re.I),
    re.compile(rf"(?P<name>{_NAME}),\s+[^,]{{3,40}},\s+(?:has\s+|had\s+|just\s+|also\s+|now\s+)*{_ASKS}", re.I),
    re.compile(rf"\b(?:my|our|the)\s+(?:{_ROLES}|{_TRADE}|[a-z]+)\s*,\s+(?P<name>{_NAME}),\s+"
               rf"(?:has\s+|had\s+|just\s+|also\s+|now\s+)*{_ASKS}", re.I),
    re.compile(rf"(?P<name>{_NAME}),\s+(?:has\s+|just\s+|now\s+)*{_ASKS}"),  # "landlord (Priya) wants"
    # a name typed in lower case opening what someone told: "so jen just told me", "ugh. sam says"
    re.compile(r"(?:^\W*|[,.;:]\s+|\b(?:so|and|but|ok|okay|ugh|oh|well|hey|then)\s+)(?P<lname>(?-i:[a-z]{3,}))\s+"
               r"(?:just\s+|also\s+|now\s+|already\s+)*(?:told|tells|says|said|texted|called|messaged|emailed|rang)\b"),
    # the one who pays decides: "your wife will pay", "my husband already mailed"
    re.compile(rf"{_WHO}\s+(?:will\s+|'ll\s+|is\s+|'s\s+|already\s+|just\s+|also\s+|has\s+|"
               rf"(?:went|gone|goes|go)\s+(?:ahead\s+)?and\s+)*(?:(?:pay|pays|paying|paid|wire|wired|cover|covers|"
               rf"covering|covered|venmo\w*|zelle\w*|transferred|settled)\b|"
               rf"(?:send|sends|sending|sent|mail\w*|wrote|gave)\b(?!\s+(?:me\s+|us\s+)?(?:an?\s+|another\s+|the\s+|his\s+|"
               rf"her\s+|their\s+)?(?:new\s+|final\s+|corrected\s+)?(?:invoice|bill)))", re.I),  # pays one, sends none
)
_PRONOUN = re.compile(rf"\b(?:he|she)\s+(?:also\s+|just\s+|now\s+)*{_ASKS}"
                      rf"|\b(?:he|she)\s+(?:has\s+|had\s+|'s\s+|already\s+|just\s+|also\s+)*(?:paid|sent|settled|"
                      rf"covered|transferred|wired|mailed|zelled|venmoed|is paying)\b"
                      rf"|\b(?:he|she)(?:'ll|’ll|\s+will|\s+is going to|\s+is gonna)\s+(?:pay|send|cover|transfer)\b",
                      re.I)
_PASSIVE = re.compile(r"\b(?:is|was|are|were|been|be|get|got|gets)\s+(?:already\s+|just\s+)?paid\s*$", re.I)
_MENTION = re.compile(rf"\b(?:my|our)\s+(?P<role>{_ROLES})\b{_ROLE_NAME}|(?P<name>{_NAME})\s+(?:just\s+)?{_ASKS}", re.I)
_MENTIONED = re.compile(rf"\b(?:my|our)\s+(?P<role>{_ROLES})\b{_ROLE_NAME}", re.I)
_FAMILY_NAMES = {"mummy": "mother", "mommy": "mother", "mama": "mother", "mam": "mother", "daddy": "father",
                 "papa": "father", "nana": "grandmother", "granny": "grandmother", "grandad": "grandfather"}
_NOT_PEOPLE = frozenset("i it he she they we you that this there please also who someone everyone".split())


_OPENERS = frozenset("So And But Then Oh Well Now Anyway Yes Ok Okay Thanks Also Ugh Hey Hi".split())
_NOT_LOWER_NAMES = frozenset("they them she he who someone somebody everyone everybody nobody that this which what one "
                             "other people guy lady man woman bank company office she's he's they've also then just "
                             "she'd he'd and but the".split())


def _person(match: re.Match[str]) -> str | None:
    lower = match.groupdict().get("lname")
    if lower:
        word = family_word(lower)
        if word is not None:
            return word
        return None if lower in _NOT_LOWER_NAMES or lower in _NOT_PEOPLE or lower.capitalize() in _STOP_WORDS \
            else lower.capitalize()
    given = match.groupdict().get("rolename")
    if given and given.casefold() not in _NOT_PEOPLE and given.capitalize() not in _STOP_WORDS:
        return given[:1].upper() + given[1:]  # "my son Nikau paid": Nikau
    role = match.groupdict().get("role") or match.groupdict().get("rel")
    if role:
        return role.lower()
    name = match.groupdict().get("name")
    if not name:
        return None
    words = name.split()
    while len(words) > 1 and words[0].capitalize() in _OPENERS:
        words.pop(0)  # "So Sam paid": Sam
    cleaned = _clean(" ".join(words), possessive=True)
    if cleaned is not None and _FAMILY_NAMES.get(cleaned.casefold()):
        return _FAMILY_NAMES[cleaned.casefold()]  # "Mummy called": mother
    if cleaned is None or cleaned.casefold() in _NOT_PEOPLE or any(
            p.fullmatch(cleaned) for p in (BILLER, VENDOR, INSTITUTION)):
        return None
    return cleaned


def requester(sentence: str, context: Context) -> str | None:
    """Who asked for the payment the sentence states, or None (the user, or not said)."""
    for pattern in _REQUESTERS:
        for match in pattern.finditer(sentence):
            if _PASSIVE.search(match.group(0)):
                continue  # "Tom Reyes is paid today": he is paid, he did not ask
            who = _person(match)
            role = match.groupdict().get("role")
            if who is not None and role and match.groupdict().get("rolename") and family_word(role) is not None:
                context.relations.setdefault(who, role.lower())  # "my partner sam says": Sam is the partner
            if who is not None:
                return who
    pronoun = _PRONOUN.search(sentence)
    if pronoun is not None:  # "my wife talked to Dave and she says ...": the one named before the pronoun
        unlike = _WOMEN if pronoun.group(0).lower().startswith("he") else _MEN
        whole = context.said[-1] if context.said else ""
        at = whole.find(sentence)  # the sentence read may be a clause of the one said: what came before it too
        head = (whole[:at] if at > 0 else "") + " " + sentence[: pronoun.start()]
        before = [who for match in _MENTIONED.finditer(head)
                  if (who := _person(match)) is not None and who not in unlike]  # "my wife ... he wants": not her
        if before:
            return before[-1]
        earlier = last_person(context)
        return earlier if earlier not in unlike else None
    return None


# family words a pronoun of the other sex does not stand for
_WOMEN = frozenset("wife mother mom mum sister daughter aunt grandmother grandma niece girlfriend fiancee".split())
_MEN = frozenset("husband father dad brother son uncle grandfather grandpa nephew boyfriend fiance".split())


def last_person(context: Context) -> str | None:
    """The person the session's earlier sentences last named ("My brother just called.")."""
    for said in reversed(context.said[:-1]):
        found = [who for match in _MENTION.finditer(said) if (who := _person(match)) is not None]
        if found:
            return found[-1]
    return None


# --- which invoice --------------------------------------------------------------------------

_REFERENCE = re.compile(
    r"\b(?:invoice|inv\.?)\s*,?\s*(?:number|no\.?|#)?\s*[:#]?\s*(?P<ref>[A-Z0-9][A-Z0-9-]{1,15})\b"
    r"|\b(?P<ref2>[A-Z]{0,4}-?\d[A-Z0-9-]{1,14})\s+invoice\b"
    r"|\b(?P<ref6>(?-i:[A-Z]{1,4})-?\d[A-Z0-9-]{1,14})\s+(?:payment|bill|order|wire|transfer)\b"
    r"|\binvoices?\b[^.;#]{0,30}#\s?(?P<ref3>[A-Z0-9][A-Z0-9-]{1,15})\b"
    r"|\border\s*(?:number|no\.?|#)?\s*(?P<ref4>[A-Z0-9][A-Z0-9-]{5,20})\b"
    r"|\b(?:ref(?:erence)?|memo|confirmation|conf)\s*(?:number|no\.?|#|code|:)?\s*(?P<ref5>[A-Z0-9][A-Z0-9-]{2,20})\b"
    r"|\b(?:pay|paying|send|sending|wire|hold|cancel)\s+(?-i:[A-Z])[\w&-]*['’]s\s+#?(?P<ref7>\d{3,8})\b"
    r"|\b(?:pay|paying|settle|settling)\s+(?P<ref8>(?-i:[A-Z]{1,4})-\d{2,10})\b", re.I)  # "you'll pay BM-3302"


_MONTHS = ("january february march april may june july august september october november december").split()
_MONTH = r"(?P<month>jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|(?-i:May)|june?|july?|aug(?:ust)?|" \
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
_PERIODS = (
    re.compile(rf"\b{_MONTH}(?:['’]s)?\s+(?P<what>rent|mortgage)\b", re.I),
    re.compile(rf"\b(?P<what>rent|mortgage)(?:\s+payment)?\s+(?:for|of)\s+{_MONTH}\b", re.I),
    re.compile(rf"\b(?:from|in|for|starting|beginning)\s+{_MONTH},?\s+(?:the\s+|my\s+|our\s+)?(?P<what>rent|mortgage)\b",
               re.I),
)


def reference(sentence: str) -> str | None:
    """The invoice or order number the sentence names (it holds a digit), or the month a
    rent or mortgage payment is for ("the rent for August" -> "August rent"), or None."""
    for match in _REFERENCE.finditer(sentence):
        ref = next(group for group in match.groups() if group is not None)
        if any(ch.isdigit() for ch in ref) and not re.fullmatch(r"\d{1,2}(?:st|nd|rd|th)?", ref):
            return ref
    for pattern in _PERIODS:
        period = pattern.search(sentence)
        if period is not None:
            month = next(name for name in _MONTHS if name.startswith(period.group("month").lower()[:3]))
            return f"{month.title()} {period.group('what').lower()}"
    return None
