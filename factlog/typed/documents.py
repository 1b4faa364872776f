"""Documents with an expiry from a sentence: passports, visas, driver's licences, ID cards,
insurance policies (start and end), warranties (purchase date + "1-year warranty" ->
expiry) and certificates.

The user's own passport is the singular `passport` kind (what passport checks read);
everything else, and anyone else's passport, is a `document` with `kind` naming it and
`holder` naming whose it is when not the user's. A sentence without a document noun that
states an expiry ("New expiry is March 5", "it expires June 1") is about the session's
last document. Its dates are read by `factlog.typed.document_dates` (expiry, start, issue
and purchase by their cues); several items bought at once by `factlog.typed.warranty_items`.
A passport said to be renewed ("the new passport came") clears the old expiry.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Mapping

from factlog.model import JsonValue
from factlog.recognizers import MONTHS, recognize
from factlog.relations import family_word
from factlog.timeparse import try_date
from factlog.typed.common import (
    RELATIONS,
    add_months,
    conversation_fields,
    duration_months,
    name_for,
    named_relation,
    subject_of,
    whose,
)
from factlog.typed.document_dates import STATES_EXPIRY, document_dates
from factlog.typed.model import Context, TypedFact
from factlog.typed.places import ADJECTIVES, country_of
from factlog.typed.stance import ends_in_question, is_question, states_requirement
from factlog.typed.warranty_items import (
    BOUGHT_ON,
    MAKER_GAVE,
    SAME_DAY,
    TERSE_LENGTH,
    bare_months,
    bought_items,
    branded_item,
    by_item,
    named_items,
    terse_warranty,
)

DOMAIN = "document"
NOUNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (kind, re.compile(pattern, re.I))
    for kind, pattern in (
        ("passport", r"\bpassports?\b"),
        ("visa", r"\b(?:e-?)?visas?\b(?!\s+(?:card|credit|debit|signature|gift|rewards|points|account|[x*#]|\d|"
                 r"(?:ending|ends)\s+(?:in\s+)?\d))|"
                 r"(?-i:\be?TA\b|\bESTA\b)|\belectronic travel authori[sz]ation\b|\beVisitor\b"),
        ("drivers_licence", r"\b(?:driver'?s'?|driving)\s+licen[cs]es?\b|\b(?:my|her|his|the)\s+licen[cs]e\b"),
        ("id_card", r"\b(?:state|national|photo|government|real|military)[\s-]?id\b|\bid card\b"),
        ("insurance", r"\binsurance\b|\b(?:insurance|coverage)\s+policy\b|\b(?:travel|health|medical)\s+cover\b|"
                      r"\binsured\s+(?:until|till|through|thru|from)\b|"
                      r"(?<!privacy )(?<!return )(?<!refund )(?<!cancellation )\bpolicy\b"),
        ("warranty", r"\bwarrant(?:y|ies)\b|\bprotection plan\b|\bapplecare\b|\bguarantee(?:d)?\b|"
                     # a store's or insurer's extended cover named by its brand: "Geek Squad protection"
                     r"\b(?:geek squad|squaretrade|asurion|allstate|mulberry|upsure)\s+"
                     r"(?:protection|plan|cover(?:age)?)\b"),
        ("certificate", r"\bcertificat(?:e|es|ion|ions)\b"),
    )
)
# a date the sentence may give a document talked about ("April 10 to April 24", "runs from today until ...")
_DATED = re.compile(r"\b(?:\d{1,2}(?:st|nd|rd|th)?|jan\w*|feb\w*|mar\w*|apr\w*|may|jun\w*|jul\w*|aug\w*|sep\w*|"
                    r"oct\w*|nov\w*|dec\w*|today|tomorrow)\b[^.?!]{0,20}\b(?:to|until|till|through)\b", re.I)
_NUMBER = re.compile(
    r"\b(?:number|no\.?|#|reference|policy)\s*(?:is|:)?\s*#?\s*"
    r"(?P<id>(?=[A-Z0-9-]*\d)[A-Z0-9][A-Z0-9-]{4,18}[A-Z0-9])\b", re.I
)
_ITEM_AFTER = re.compile(
    r"\b(?:warranty|applecare\+?|protection plan|coverage|extended plan)\s+"
    r"(?:(?:from|with|through|by)\s+(?-i:[A-Z][\w&'-]*(?:\s+[A-Z][\w&'-]*)?)\s+)?(?:on|for)\s+"
    r"(?:my|the|our|his|her|this|that)\s+"
    r"(?:new\s+)?(?P<item>[A-Za-z0-9][\w'-]*(?:\s+[A-Za-z0-9][\w'-]*){0,3}?)"
    r"(?=\s+(?:runs|expires|ends|is|was|lasts|until|through|covers|will|from|by|and)\b|\s*[,.;!]|\s*$)", re.I)
_ITEM_BEFORE = re.compile(r"(?P<item>(?:[A-Za-z][\w'-]*\s+){1,3}?)(?:insurance|warranty|certificat\w*)", re.I)
_PURCHASE = re.compile(
    r"\b(?:bought|purchased|got|ordered|picked up|put in|installed|(?<!to )(?<!will )(?<!'ll )buy)\s+"
    r"(?:(?:a|an|the|my|our|this|that)\s+(?:new\s+)?|new\s+)"
    r"(?P<item>[A-Za-z0-9][\w'-]*(?:\s+(?:&\s+)?[A-Za-z0-9][\w'-]*){0,3}?)"  # "Fisher & Paykel dishwasher"
    r"(?=\s+(?:on|in|at|from|last|for|back|this|with|yesterday|today)\b|\s+\d{1,2}/\d|[,.;!]|$)",
    re.I,
)
_ITEM_STOP = frozenset("my the a an our his her their this that its travel's your by".split())
_PROVIDERS = re.compile(
    r"\b(?P<name>Allianz Travel|Allianz|World Nomads|Seven Corners|Cigna Global|SafetyWing|GeoBlue|IMG|Geico|GEICO|"
    r"State Farm|Progressive|Allstate|Liberty Mutual|Aetna|"
    r"Cigna|Blue Cross|Kaiser|UnitedHealthcare|Humana|Travel Guard|AIG|Nationwide|USAA|Farmers|"
    r"AppleCare|Asurion|SquareTrade|Geek Squad|Mulberry|Upsure|Best Buy|Costco|"
    # travel insurers outside the U.S., as they write their names ("nib" in lower case)
    r"nib|Cover-More|Southern Cross|Bupa|AXA|Chubb|Zurich|Aviva|Staysure|InsureandGo|Tata AIG|HDFC Ergo|NTUC Income|"
    r"MSIG|FWD|Manulife|TuGo|Generali|Heymondo|Trawick|battleface|Faye|Travelex Insurance)\b"
)
# "record a purchase: a Whirlpool refrigerator from Home Depot", "a Bosch 300 Series dishwasher bought at ..."
_PURCHASED = (
    re.compile(r"\bpurchase\b[^:.]{0,30}:\s*(?:a|an|the)\s+(?P<item>[\w'-]+(?:\s+[\w'-]+){0,4}?)"
               r"(?=\s+(?:from|on|at|for|bought|ordered|delivered|purchased)\b|\s*[,.;!]|$)", re.I),
    re.compile(r"\b(?:a|an|[Oo]ur|[Mm]y)\s+(?P<item>[A-Z][\w'-]*(?:\s+[\w'-]+){1,4}?)\s*,?\s+"
               r"(?:bought|purchased|ordered|delivered|installed)\b"),
    # "For my records: Samsung French-door fridge, bought ...": a brand and what it is, one thing
    re.compile(r"(?:^\W*|:\s*)(?P<item>(?!(?:The|My|Our|A|An|This|That|We|I)\b)[A-Z][\w'-]*"
               r"(?:\s+(?!from\b|at\b|and\b)[\w'-]+){0,3}?\s+(?!(?:we|i|they|he|she|you)\b)[a-z][\w-]*)\s*,?\s+"
               r"(?:bought|purchased|ordered|delivered|installed)\b"),
    # "the Samsung fridge we bought on 6/1/2024"
    re.compile(r"\b(?:[Tt]he|[Mm]y|[Oo]ur)\s+(?P<item>[\w'-]+(?:\s+[\w'-]+){0,3}?)\s+(?:that\s+)?(?:we|I)\s+"
               r"(?:bought|purchased|got|ordered)\b"),
)
_ORDER = re.compile(r"\border\s+(?:number|no\.?|#)?\s*(?P<id>(?=[A-Z0-9-]*\d)[A-Z0-9][A-Z0-9-]{4,18}[A-Z0-9])\b", re.I)
_MAKER = re.compile(r"\b(?:(?:[Yy]our|[Mm]y|[Tt]he|[Oo]ur)\s+)?"
                    r"(?P<name>(?:[A-Z][\w&-]+\s+&\s+)?[A-Z][\w&-]+(?:\s+[A-Z][\w&-]+)?)"
                    r"(?:'s|’s)?\s+"
                    r"(?:(?:[\w-]+[- ](?:year|month)|limited|"
                    r"hardware|labor|labour|standard|extended|full|parts)\s+)*warranty\b")
# a booking's code is the trip's, not the document's: "Booking reference is AT7RB5"
_BOOKING_CODE = re.compile(r"\b(?:booking|reservation|confirmation|record locator|pnr|flight)\b", re.I)
_COVER_FROM = re.compile(r"\b(?:warranty|plan|coverage|protection|insurance|policy)\s+(?:from|through|by|with|via)\s+$",
                         re.I)
# an item named by its brand and then what it is ("Samsung fridge", "Dell XPS 14 laptop"), not "MacBook Air"
_BRAND = re.compile(r"^([A-Z][\w&-]*(?:\s+&\s+[A-Z][\w&-]*)?)\s+(?:\S+\s+)*"
                    r"(?:[a-z][\w-]*|TVs?|PC|AC)$")  # "Fisher & Paykel dishwasher", "Samsung TV"  # "Fisher & Paykel"
_STORE_NAMES = re.compile(r"^(?:Costco|Walmart|Target|Amazon|Lowe's|Lowes|Home|Best|IKEA|Ikea|Sears|Kohl's|Macy's|"
                          r"The|My|Our|New|Old)$")
_STORE = re.compile(r"\b(?:at|from)\s+(?:the\s+)?$", re.I)
_NOT_MAKERS = frozenset("the my your our his her their its this that a an one two three standard limited".split())
# a sentence without one of these is about no document
TRIGGERS = (*(pattern for _, pattern in NOUNS), STATES_EXPIRY, _PURCHASE, *_PURCHASED, _NUMBER, _PROVIDERS, _DATED,
            TERSE_LENGTH,  # "two years", answering "And the warranty?"
            re.compile(r"^\W*(?:item|product|model|description|appliance)(?:\s+(?:name|purchased))?\s*[:=-]\s*\w|"
                       r"^\W*(?:[\w'’&]+\s+){0,2}(?:receipt|invoice)\s*(?:date)?\s*[:#-]?\s*\d{1,4}[/.-]\d", re.I))


_WARRANTY_WORD = re.compile(r"\bwarrant(?:y|ies)\b|\bprotection plan\b|\bapplecare\b|\bguarantee\b|"
                            r"\b(?:geek squad|squaretrade|asurion) protection\b", re.I)
# where a sentence naming two warranties splits: "a six-year Rheem warranty, but Ace's labor warranty is one year"
_CLAUSE = re.compile(r",?\s+(?:but|and|while|whereas)\s+(?=(?:[\w'’-]+\s+){0,8}?[\w'’-]*\s*(?:warrant|protection|"
                     r"applecare))|;\s+|(?<=[a-z0-9])\.\s+(?=[a-z])", re.I)  # and "... warranty. same day got ..."


def read(sentence: str, context: Context) -> list[TypedFact]:
    """The document facts of the sentence; one sentence naming two warranties is read clause by
    clause, one naming two of the items bought this session item by item; a bare length
    answering the assistant's question about a warranty ("And the warranty?" "two years") is
    read as that warranty (`warranty_items.terse_warranty`)."""
    if context.speaker == "user" and (answer := terse_warranty(sentence, context.said)) is not None:
        sentence = answer
    after = _bought_several(sentence, context)
    items = [item for item, _ in context.purchases]
    parts = by_item(sentence[after:], items) if len(items) > 1 and _WARRANTY_WORD.search(sentence) else []
    if parts:
        bought = dict(context.purchases)
        found = [_item_warranty(item, bought[item], part, parts[0][1], context) for item, part in parts]
        return [fact for fact in found if fact is not None]
    if len(_WARRANTY_WORD.findall(sentence)) > 1:
        clauses = [part for part in _CLAUSE.split(sentence) if part.strip()]
        recap = _RECAP.match(sentence)
        if recap is not None and context.speaker == "assistant":  # "Noted: ...; X warranty ... and Y protection ..."
            clauses = clauses[:1] + [f"{recap.group(0)}: {part}" for part in clauses[1:]]
        if len(clauses) > 1:
            return [fact for clause in clauses for fact in _read(clause, context)]
    owners = [part for part in sentence.split(";") if part.strip()]
    if len(owners) > 1 and len({subject_of(part, context) for part in owners}) > 1:
        # "your passport expires March 11, 2031; Chloe's expires October 2, 2026": each its owner's
        each: list[TypedFact] = []
        for part in owners:
            if context.speaker == "assistant":  # "...; yours is valid until 2031": the user's own
                part = re.sub(r"\byours\b", "mine", part, flags=re.I)
            facts = _read(part, context)
            for fact in facts:
                context.remember(DOMAIN, fact)
            each += facts
        return each
    return _read(sentence, context)


def _item_warranty(item: str, bought: str, part: str, first: str, context: Context) -> TypedFact | None:
    """The warranty on one of several items bought this session, from its part of the sentence:
    an expiry it states, else its length ("2 years", or a bare "1" in the first part's unit)
    from the day it was bought."""
    fields: dict[str, JsonValue] = {"kind": "warranty", "item": item, "purchase_date": bought}
    expiry = document_dates(part, context, "warranty").get("expiry_date")
    months = duration_months(part) or bare_months(part, first)
    start = try_date(bought)
    if expiry is None and months is not None and start is not None:
        expiry = add_months(start, months).isoformat()
    if expiry is None:
        return None
    fields["expiry_date"] = expiry
    brand = _BRAND.match(item)
    provider = brand.group(1) if brand is not None and not _STORE_NAMES.search(brand.group(1)) else None
    if provider is not None:
        fields["provider"] = provider
    key = f"warranty/{(provider or item).casefold()}"
    return _typed(DOMAIN, key, conversation_fields(context, "user", fields), context.business)


def _read(sentence: str, context: Context) -> list[TypedFact]:
    facts: list[TypedFact] = []
    purchase = _purchase(sentence, context)
    kind = next((k for k, pattern in NOUNS if pattern.search(sentence)), None)
    if is_question(sentence):
        return []  # "Is my passport still valid on April 3?" states no expiry; "..., right?" still does
    if states_requirement(sentence):
        return []  # "your passport would need to be valid until 5 September": the rule's date
    previous = context.last.get(DOMAIN)
    if kind is None:
        if previous is None:
            return []
        following = context.topic == DOMAIN and len(sentence.split()) <= 14 and not ends_in_question(sentence) and \
            not _TRIP_WORDS.search(sentence)  # "Booked Kenya Airways to Nairobi, July 10 to 24": the trip's
        if not (STATES_EXPIRY.search(sentence) or following) or _OTHER_THING.search(sentence):
            return []
        subject = str(previous.fields.get("subject", "user"))
        theirs = _elided_other(sentence, context, previous) if subject == "user" else None
        if theirs is not None:  # "Your mom's expires June 3" after the user's passport: the mother's
            return theirs
        if subject != "user" and _MINE.search(sentence):  # "Mine is valid until 2033": the user's own
            fields = document_dates(sentence, context, str(previous.fields.get("kind", previous.kind)))
            if previous.fields.get("kind") == "passport" and fields:
                return [TypedFact("passport", "passport", conversation_fields(context, "user", fields))]
            return []
        fields = document_dates(sentence, context, str(previous.fields.get("kind", previous.kind)))
        number = _NUMBER.search(sentence)
        if number is not None and any(ch.isdigit() for ch in number.group("id")) and not _BOOKING_CODE.search(sentence):
            fields["number"] = number.group("id")  # "Grant number is 0691-2284-7731."
        provider = _PROVIDERS.search(sentence)
        if following and provider is not None and previous.fields.get("kind") in ("insurance", "warranty"):
            fields["provider"] = provider.group("name")  # "Travel Guard, the Preferred plan."
        named = _FIELD_COUNTRY.match(sentence) if following else None
        if named is not None and previous.fields.get("kind") in ("visa", "passport") and \
                (country := country_of(named.group("name").strip(" ."))) is not None:
            fields["country"] = country  # a pasted "Country: China" line
        if not fields:
            return []
        if previous.kind == DOMAIN:  # what names the document, for an entity only mentioned so far
            fields = {**{k: v for k, v in previous.fields.items() if k in _NAMING}, **fields}
        return [_typed(previous.kind, previous.key, conversation_fields(context, subject, fields), context.business)]
    if context.speaker == "assistant" and not _YOUR.search(sentence) and not _RECAP.search(sentence) and \
            context.business is None:  # the business the user called speaks of the user's own policy
        return []  # the assistant's general advice names no document of the user's
    subject = subject_of(sentence, context)
    holder_name: str | None = None  # the name of a relation whose document it is ("my son Daniel's": Daniel)
    related = _RELATION_HOLDER.search(sentence) if kind in _PERSONAL else None
    holder = _HOLDER.search(sentence) if subject == "user" and kind in _PERSONAL else None
    if related is not None:  # "your father Ramesh Iyer's passport": the father's, named Ramesh Iyer
        subject, holder_name = related.group("rel").lower(), related.group("name")
    elif holder is not None and holder.group("name").lower() not in _NOT_NAMES_HERE | {"my", "your", "the"}:
        subject = holder.group("name")  # "Sofia's passport": Sofia's, though a city is called Sofia
    if kind == "passport" and _OLD.search(sentence) and not _NEW_ONE.search(sentence):
        _mention(context, "passport", "passport", {"subject": "user"})  # "the new one ..." follows
        return []  # "my old passport expired in 2020": not the passport the user holds
    if subject == "user" and kind in _PERSONAL and _THEIRS.search(sentence):
        opener = _OPENER.match(sentence)  # "Emma needs a new passport; hers expires June 3"
        subject = (opener.group("name") if opener is not None and opener.group("name").lower() not in _NOT_NAMES_HERE
                   else None) or _person_named_before(context) or ""  # "her passport": Sofia's, named before
        if not subject:
            return []  # whose, the session does not say: not the user's
    if kind not in _PERSONAL and subject not in RELATIONS:
        subject = "user"
    elif subject in RELATIONS and kind in _PERSONAL and holder_name is None:
        given = named_relation(sentence)  # "my son Daniel's passport": Daniel's
        subject, holder_name = (given, None) if given is not None else (subject, _name_given(context, subject))
    if kind in _PERSONAL and subject != "user" and subject not in RELATIONS and holder_name is None:
        relation = _relation_of(subject, context)  # "Maya's passport" after "my daughter Maya": the daughter's
        if relation is not None:
            subject, holder_name = relation, subject
    fields = document_dates(sentence, context, kind)
    item = _item(sentence, kind, purchase, context.purchase[0] if context.purchase else None)
    if kind == "warranty" and item is None and purchase is None and (buying := _PURCHASE.search(sentence)):
        item = " ".join(buying.group("item").split())  # "I bought my TV in March 2023": the TV, day unsaid
    maker = _maker(sentence, item or (purchase[0] if purchase else None)) if kind == "warranty" else None
    if item is not None and maker is not None and re.sub(r"(?:'s|’s)$", "", item).casefold() == maker.casefold():
        item = None  # "your Dell warranty": the maker's, on the item talked about
    if item is not None and kind == "warranty" and (named := _PROVIDERS.search(sentence)) is not None and \
            item.casefold() == named.group("name").casefold():
        item = None  # "your SquareTrade extended warranty": the provider's, on the item talked about
    if item is not None and kind == "warranty" and purchase is None and context.purchase is not None and \
            maker is not None and (maker.casefold() in item.casefold() or item.casefold() in maker.casefold()):
        item = context.purchase[0]  # "It carries Dyson's one-year warranty": the item just bought
    mentioned = named_items(sentence, [bought for bought, _ in context.purchases]) if kind == "warranty" and \
        purchase is None and len(context.purchases) > 1 else []
    if len(mentioned) == 1:  # "washer came with 2 years warranty": the washer, of the two things just bought
        item = mentioned[0][1]
        fields.setdefault("purchase_date", dict(context.purchases)[item])
    if kind == "warranty" and context.purchase is not None:
        if purchase is None:
            item = item or context.purchase[0]
        if "purchase_date" not in fields:
            fields["purchase_date"] = context.purchase[1]
        if context.purchase_number is not None:
            fields["number"] = context.purchase_number
    if kind == "warranty" and item is None and purchase is None:
        item = branded_item(sentence)  # "My washing machine is Samsung, bought ... 3 years warranty"
    if kind == "warranty" and "purchase_date" not in fields and purchase is None and \
            (bought_at := BOUGHT_ON.search(sentence)) is not None and \
            (days := recognize(sentence[bought_at.end():], context.timestamp).dates):
        fields["purchase_date"] = days[0]  # "bought from Courts on 3 March 2023": that day, not the month's first
    if kind == "warranty" and "expiry_date" not in fields:
        months = duration_months(sentence)
        bought = try_date(str(fields.get("purchase_date", "")))
        if months is not None and bought is not None:
            fields["expiry_date"] = add_months(bought, months).isoformat()
        elif months is not None and (month := _MONTH_YEAR.search(sentence)) is not None:
            # "bought it in March 2023, 2-year warranty": the day is not said; the term ends in
            # March 2025, from its first day (the earliest it can end), and no purchase day is guessed
            start = date(int(month.group("year")), MONTHS[month.group("month").lower().rstrip(".")], 1)
            fields["expiry_date"] = add_months(start, months).isoformat()
    country = _passport_country(sentence) if kind == "passport" else _country(sentence)
    number = _NUMBER.search(sentence)
    if number is not None and any(ch.isdigit() for ch in number.group("id")) and not _BOOKING_CODE.search(sentence):
        fields["number"] = number.group("id")
    provider = _PROVIDERS.search(sentence)
    if provider is not None and _STORE.search(sentence, 0, provider.start()) and \
            not _COVER_FROM.search(sentence, 0, provider.start()):
        provider = None  # "bought at Costco": where it was bought, not who covers it
    if maker is not None:
        fields["provider"] = maker
    elif provider is not None and kind in ("insurance", "warranty"):
        fields["provider"] = provider.group("name")
    elif kind == "insurance" and (insurer := _insurer(sentence)) is not None:
        fields["provider"] = insurer
    if kind == "warranty" and "provider" not in fields and context.business is None and isinstance(item, str) and \
            (brand := _BRAND.match(item)) is not None and not _STORE_NAMES.search(brand.group(1)):
        fields["provider"] = brand.group(1)  # "a Samsung fridge ... 1-year warranty": Samsung's
    if kind in ("warranty", "certificate"):
        country = None  # "a French-door refrigerator"
    if kind == "passport" and _renewed(sentence) and "expiry_date" not in fields:
        fields["expiry_date"] = None  # a new passport: the old one's expiry no longer holds, the new one's is unsaid
    if kind == "passport" and subject == "user":
        if country is not None:
            fields["country"] = country
        if not fields:
            _mention(context, "passport", "passport", {"subject": subject})
            return []
        facts.append(_typed("passport", "passport", conversation_fields(context, subject, fields)))
        return facts
    fields = {"kind": kind, **fields}
    if country is not None:
        fields["country"] = country
    if item is not None:
        fields["item"] = item
    if subject != "user":
        fields["holder"] = holder_name or subject
    covering = fields.get("provider") if kind == "warranty" else None  # "a protection plan from Best Buy"
    qualifier = country if kind == "visa" else maker.casefold() if maker is not None else \
        covering.casefold() if isinstance(covering, str) else item
    if kind == "insurance" and _NEW.search(sentence):
        qualifier = "new"  # "my new job's insurance starts 1 February": not the policy talked about
    key = "/".join(part.casefold() for part in (kind, subject if subject != "user" else None, qualifier) if part)
    same_item = previous is not None and (item is None or fold(item) == fold(previous.fields.get("item"))) and \
        fold(fields.get("provider")) in (None, fold(previous.fields.get("provider")))
    if kind == "warranty" and maker is None and previous is not None and previous.key and \
            previous.fields.get("kind") == "warranty" and same_item:
        key = previous.key  # the recap of the warranty just talked about
    elif previous is not None and previous.kind == DOMAIN and qualifier is None and previous.key and \
            previous.key.startswith(key + "/") and previous.fields.get("subject", "user") == subject:
        key = previous.key  # "my Indian visa was approved. The visa is valid ...": the same visa
        fields = {**{k: v for k, v in previous.fields.items() if k in _NAMING}, **fields}
    elif previous is not None and previous.kind == DOMAIN and previous.key == kind and key != kind and \
            qualifier != "new" and \
            previous.fields.get("subject", "user") == subject and _agree(previous.fields, fields):
        key = previous.key  # "Valid until: 2026-04-25", then "Saved: China M visa ...": the visa just read
    elif (qualifier is None or (DOMAIN, key) not in context.prior.entities) and \
            (previous is None or previous.kind != DOMAIN or previous.key != key):
        key = _earlier(context, kind, subject, fields) or key  # "your warranty runs to April 2": the Whirlpool's
    if set(fields) <= {"kind", "item", "holder", "country"}:
        _mention(context, DOMAIN, key, {**fields, "subject": subject})
        return []
    facts.append(_typed(DOMAIN, key, conversation_fields(context, subject, fields), context.business))
    return facts


_MONTH_YEAR = re.compile(r"\b(?:bought|purchased|got|ordered|since)\b[^.;]{0,40}?\b(?:in\s+)?(?P<month>"
                         + "|".join(sorted(MONTHS, key=len, reverse=True))
                         + r")\.?,?\s+(?P<year>(?:19|20)\d\d)\b", re.I)
_TRIP_WORDS = re.compile(r"\b(?:booked|flights?|fly|flying|airlines?|airways|depart\w*|itinerary)\b", re.I)
_NOT_NAMES_HERE = frozenset("is was has had and or will just also who".split())
_HOLDER = re.compile(r"\b(?P<name>[A-Z][a-z]{2,})(?:'s|’s)\s+(?:\w+\s+)?(?:passport|visa|e-?visa|licen[cs]e)\b")
_THEIRS = re.compile(r"\b(?:her|his|their)\s+(?:\w+\s+)?(?:passports?|visas?|licen[cs]es?|id)\b|"
                     r"\b(?:hers|his|theirs)\s+(?:expires?|is|runs|was)\b", re.I)
_OPENER = re.compile(r"^\W*(?P<name>[A-Z][a-z]{2,})\s+(?:needs|has|is|was|got|just|also|will|still)\b")
_OLD = re.compile(r"\b(?:old|previous|former|last)\s+(?:\w+\s+)?passport\b", re.I)
_NEW_ONE = re.compile(r"\bnew\s+(?:one|passport)\b", re.I)
# a passport renewed or replaced, done: "I renewed my passport", "the new passport came", "got my new passport"
RENEWED = re.compile(
    r"\b(?:renewed|replaced)\b|\brenewal (?:came through|went through|was approved|is done|arrived|got approved)\b|"
    r"\bnew (?:one|passport)\b[^.;]{0,30}?\b(?:came|arrived|is here|turned up|showed up|"
    r"got here|was issued|has been issued)\b|\b(?:got|received|picked up|collected|have|has) (?:my |his |her |the |"
    r"a |our |their )?(?:brand[- ]new |new )(?:\w+ )?passport\b", re.I)
# ... but not one still to be done: "I need to renew it", "once the new passport arrives"
_NOT_YET = re.compile(r"\b(?:need|needs|must|should|will|going to|have to|has to|want to|plan\w* to|hope|hoping|"
                      r"waiting|until (?:it|the new|my new)|once|when|if|apply\w*|applied|renewing|to renew|before|"
                      r"not yet|haven't|hasn't|soon)\b", re.I)


def _renewed(sentence: str) -> bool:
    """The sentence says a passport was renewed (or a new one arrived), as done."""
    found = RENEWED.search(sentence)
    return found is not None and not _NOT_YET.search(sentence)
_RELATION_NAMED = re.compile(rf"\b(?i:my|our|your)\s+(?P<rel>(?i:{'|'.join(map(re.escape, RELATIONS))}))"
                             r"(?:\s+(?P<name>[A-Z][a-z]+))?\b")


# a relation named in full before the document: "your father Ramesh Iyer's passport"
_RELATION_HOLDER = re.compile(rf"\b(?i:my|our|your)\s+(?P<rel>(?i:{'|'.join(map(re.escape, RELATIONS))}))\s+"
                              r"(?P<name>[A-Z][a-z]+\s+[A-Z][a-z]+)(?:'s|’s)\s+(?:\w+\s+)?(?:passport|visa|e-?visa|"
                              r"licen[cs]e|id)\b")
# the name a session gives the person it talks about: "His name is Ramesh Iyer."
_NAME_IS = re.compile(r"\b(?i:his|her|their) (?i:full )?(?i:name) is (?P<name>[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)")


def _name_given(context: Context, relation: str) -> str | None:
    """The name the session gave the relation it talks about ("my daughter Maya", "His name is
    Ramesh Iyer.")."""
    for said in reversed(context.said):
        named = [m.group("name") for m in _RELATION_NAMED.finditer(said)
                 if m.group("rel").lower() == relation and m.group("name") and m.group("name").lower() not in
                 _NOT_NAMES_HERE]
        if named:
            return named[-1]
        found = _NAME_IS.search(said)
        if found is not None and said is not context.said[-1]:
            return found.group("name")
    return None


def _relation_of(name: str, context: Context) -> str | None:
    """The relation a name was given this session ("my daughter Maya") or by an earlier
    session's document (a passport held by Maya, the daughter's)."""
    for said in reversed(context.said):
        for match in _RELATION_NAMED.finditer(said):
            if match.group("name") == name:
                return match.group("rel").lower()
    held = {str(fields["subject"]) for _, fields in context.prior.of_kind(DOMAIN)
            if fields.get("holder") == name and fields.get("subject") in RELATIONS}
    return held.pop() if len(held) == 1 else None


def _person_named_before(context: Context) -> str | None:
    """The person other than the user the session last named ("my daughter Sofia" -> Sofia,
    "my son" -> son), for "her passport"; None when none was."""
    for said in reversed(context.said[:-1]):
        found = list(_RELATION_NAMED.finditer(said))
        if found:
            name = found[-1].group("name")
            return name if name is not None and name.lower() not in _NOT_NAMES_HERE else found[-1].group("rel").lower()
        honoured = list(_HONOURED.finditer(said))
        if honoured:  # "I look after Mr Osei's diary ... His passport": Osei's (`common.person_named`: Mr Osei's)
            return honoured[-1].group("name")
    return None


_HONOURED = re.compile(r"\b(?:Mr|Mrs|Ms|Miss|Mx|Dr)\.?\s+(?P<name>[A-Z][a-z]+(?:-[A-Z][a-z]+)?)\b")


def _earlier(context: Context, kind: str, subject: str, stated: dict[str, JsonValue]) -> str | None:
    """The key of the one document of `kind` (and `subject`) earlier sessions stated that
    agrees with what the sentence states (item, provider, country), or of the one of them
    whose item or provider this session named; None otherwise."""
    found = [(key, fields) for key, fields in context.prior.of_kind(DOMAIN)
             if fields.get("kind") == kind and fields.get("subject", "user") == subject
             and all(fold(fields.get(name)) in (None, fold(stated.get(name))) or name not in stated
                     for name in ("item", "provider", "country"))]
    if len(found) == 1:
        return found[0][0]
    said = " ".join(context.said).casefold()
    names = {key: [str(fields[name]).casefold() for name in ("item", "provider") if isinstance(fields.get(name), str)]
             for key, fields in found}
    named = [key for key, words in names.items() if any(re.search(rf"\b{re.escape(w)}\b", said) for w in words)]
    return named[0] if len(named) == 1 else None


# a pasted form's country line: "Country: China", "Issuing country: India"
_FIELD_COUNTRY = re.compile(r"^\W*(?:country|issuing country|country of issue|destination|valid for)\s*:\s*"
                            r"(?P<name>[A-Za-z][A-Za-z .'-]{1,40})$", re.I)


def _agree(earlier: Mapping[str, JsonValue], stated: Mapping[str, JsonValue]) -> bool:
    """No value the two state differently (dates, number, provider, country)."""
    return all(earlier.get(name) in (None, stated.get(name)) or name not in stated
               for name in ("expiry_date", "start_date", "number", "provider", "country"))


def fold(value: JsonValue) -> str | None:
    return value.casefold() if isinstance(value, str) else None


_MAKER_AFTER = re.compile(r"\b(?:warranty|plan|coverage)\s+(?:from|by|through|with|via)\s+(?:the\s+)?"
                          r"(?P<name>[A-Z][\w&-]+(?:\s+&\s+[A-Z][\w&-]+|\s+[A-Z][\w&-]+)?)")


def _maker(sentence: str, item: str | None) -> str | None:
    """Who gives a warranty: the name before "warranty" ("Bosch's one-year warranty") or
    after it ("a 2 yr warranty from LG"), or for "the manufacturer's warranty" the brand the
    item starts with."""
    after = _MAKER_AFTER.search(sentence)
    if after is not None and after.group("name").casefold() not in _NOT_MAKERS:
        return after.group("name")
    for match in _MAKER.finditer(sentence):
        name = match.group("name")
        if name.split()[0].casefold() not in _NOT_MAKERS:
            return name
    gave = MAKER_GAVE.search(sentence)  # "Apple gave me 12 months warranty", "Samsung give 3 years warranty"
    if gave is not None and gave.group("name").split()[0].casefold() not in _NOT_MAKERS:
        initials = re.sub(r"[^A-Z]", "", gave.group("name"))
        brand = "".join(word[0] for word in (item or "").split() if word[:1].isupper())
        if not (gave.group("name").isupper() and len(initials) > 1 and brand.startswith(initials)):
            return gave.group("name")  # "F&P gave it ..." for a Fisher & Paykel fridge: the item's brand names it
    if re.search(r"\bmanufacturer(?:'s|’s)\s+warranty", sentence, re.I) and item and item[:1].isupper():
        return item.split()[0]
    return None


def _mention(context: Context, kind: str, key: str, fields: dict[str, JsonValue]) -> None:
    """A document named without values: what a later "it expires ..." is about."""
    context.last[DOMAIN] = TypedFact(kind, key, fields)
    context.topic = DOMAIN


def _elided_other(sentence: str, context: Context, previous: TypedFact) -> list[TypedFact] | None:
    """Another person's document of the kind just talked about, its noun left out ("Your mom's
    expires June 3", "Chloe's runs out in May" after the user's passport); None when the
    sentence names no other owner or is the user's ("Mine is ..."); [] when it gives no date."""
    kind = "passport" if previous.kind == "passport" else str(previous.fields.get("kind", ""))
    owner = subject_of(sentence, context) if kind in _PERSONAL and not _MINE.search(sentence) else "user"
    if owner == "user" or owner.casefold() in _NOT_NAMES_HERE:
        return None
    dated = document_dates(sentence, context, kind)
    if not dated:
        return []
    who = whose(owner, context)
    named = family_word(owner) is None and owner.casefold() not in RELATIONS
    holder = owner if named else name_for(who, context) or who
    fields: dict[str, JsonValue] = {"kind": kind, "holder": holder, **dated}
    return [_typed(DOMAIN, f"{kind}/{who.casefold()}", conversation_fields(context, who, fields), context.business)]


def _typed(kind: str, key: str | None, fields: dict[str, JsonValue], business: str | None = None) -> TypedFact:
    """The fact; an insurance policy or warranty without a provider, stated in a session with
    a business (the insurer's phone line), is that business's."""
    if business is not None and fields.get("kind") in ("insurance", "warranty") and "provider" not in fields:
        fields = {**fields, "provider": business}
    return TypedFact(kind, key, fields)


# a receipt's or order's lines, pasted one to a line: "Purchase date: 12/03/2024", "Item: Bosch 500 Series dishwasher"
_FIELD_DATE = re.compile(r"^\W*(?:(?:date\s+(?:of\s+)?)?purchase(?:d)?(?:\s+date)?|order\s+date|date\s+purchased|"
                         r"bought(?:\s+on)?|delivery\s+date|delivered)\s*[:=-]\s*(?P<value>\S.*)$|"
                         # a receipt's heading with its date: "Currys receipt 14/02/2025"
                         r"^\W*(?:[\w'’&]+\s+){0,2}(?:receipt|invoice)\s*(?:date)?\s*[:#-]?\s*"
                         r"(?P<heading>\d{1,4}[/.-]\d{1,2}[/.-]\d{1,4})\s*$", re.I)
_FIELD_ITEM = re.compile(r"^\W*(?:item|product|model|description|appliance)(?:\s+(?:name|purchased))?\s*[:=-]\s*"
                         r"(?:(?:a|an|the|1\s*x?)\s+)?(?P<value>[A-Za-z0-9][\w'’&.+/ -]{1,60}?)\s*$", re.I)


def _receipt_line(sentence: str, context: Context) -> tuple[str | None, str] | None:
    """A purchase told by a receipt's lines (date and item on lines of their own, either first)."""
    item_line, date_line = _FIELD_ITEM.match(sentence), _FIELD_DATE.match(sentence)
    known = context.purchase
    if date_line is not None:
        dates = recognize(date_line.group("value") or date_line.group("heading"), context.timestamp).dates
        if not dates:
            return None
        pending = context.last.get("receipt_item")
        item = known[0] if known is not None and not known[1] else \
            str(pending.fields["item"]) if pending is not None else None
        context.purchase = (item, dates[0])
    elif item_line is not None and not recognize(item_line.group("value"), context.timestamp).amounts_usd:
        item = " ".join(item_line.group("value").split())
        if known is not None and known[0] is None:
            context.purchase = (item, known[1])  # the date's line came first
        else:
            context.last["receipt_item"] = TypedFact(DOMAIN, None, {"item": item})
            return None
    else:
        return None
    if context.purchase[0] is not None and context.purchase[1]:
        context.purchases.append((context.purchase[0], context.purchase[1]))
    return context.purchase


def _purchase(sentence: str, context: Context) -> tuple[str | None, str] | None:
    """A purchase the sentence states ("I bought a Bosch dishwasher on May 2"); remembered."""
    if bought_items(sentence)[0]:
        return None  # several things bought: `_bought_several`
    if (_FIELD_DATE.match(sentence) or _FIELD_ITEM.match(sentence)) is not None:
        return _receipt_line(sentence, context)
    match = _PURCHASE.search(sentence) or next((m for p in _PURCHASED if (m := p.search(sentence))), None)
    if match is None:
        return None
    dates = recognize(sentence[match.start():], context.timestamp).dates or \
        recognize(sentence, context.timestamp).dates
    same = _same_day(sentence, context)
    if not dates and same is None:
        return None
    item = _with_noun(" ".join(match.group("item").split()), sentence) or None
    context.purchase = (item, dates[0] if dates else str(same))
    if item is not None:
        context.purchases.append((item, context.purchase[1]))
    order = _ORDER.search(sentence)
    context.purchase_number = order.group("id") if order is not None else None
    return context.purchase


def _bought_several(sentence: str, context: Context) -> int:
    """Remember each of several things the sentence says were bought ("got a Bosch washer and
    an LG dryer today"), on that day; where the list ends (0 when there is none)."""
    several, end = bought_items(sentence)
    if not several:
        return 0
    dates = recognize(sentence, context.timestamp).dates
    day = dates[0] if dates else _same_day(sentence, context)
    if day is None:
        return 0
    known = {item for item, _ in context.purchases}
    context.purchases += [(item, day) for item in several if item not in known]
    context.purchase = (several[-1], day)
    return end


# what an item bought replaces: "the old water heater gave up ... put in a new Rheem 50-gallon"
_REPLACES = re.compile(r"\b(?:old|previous|broken|dead)\s+(?P<noun>[a-z]+(?:\s+(?!one\b|that\b|which\b)[a-z]+)?)\s+"
                       r"(?:gave up|died|broke|quit|finally|had|was|is|stopped|sprang|flooded|conked)")


def _with_noun(item: str, sentence: str) -> str:
    """An item named by its brand and model only ("Rheem 50-gallon") with what it is, when
    the sentence says what it replaces ("the old water heater gave up")."""
    if any(word.isalpha() and word.islower() for word in item.split()):
        return item
    old = _REPLACES.search(sentence)
    return f"{item} {old.group('noun')}" if old is not None and old.group("noun") != "one" else item


# an insurer the list does not know: "travel insurance through Cover-More", "Saved: TravelSure single-trip policy"
_INSURERS = (
    re.compile(r"\b(?:insurance|policy|cover|coverage|plan)\s+(?:through|with|from|via|by)\s+"
               r"(?P<name>[A-Z][\w&'-]+(?:\s+[A-Z][\w&'-]+){0,2})"),
    re.compile(r"^\W*(?i:noted|saved|recorded|got it|confirmed)\W+(?:(?i:your)\s+)?"
               r"(?P<name>[A-Z][\w&'-]+(?:\s+[A-Z][\w&'-]+)?)\s+(?:[\w-]+\s+){0,3}?(?i:insurance|policy|cover)\b"),
)
_NOT_INSURERS = frozenset("my your our the a an travel health medical annual single multi trip europe worldwide "
                          "international basic premium standard comprehensive essential new this that work".split())


def _insurer(sentence: str) -> str | None:
    """The insurer a sentence names by where a policy comes from, not a place, a month or a plan's words."""
    for pattern in _INSURERS:
        match = pattern.search(sentence)
        if match is None:
            continue
        name = match.group("name")
        first = name.split()[0].casefold()
        if first in _NOT_INSURERS or first.rstrip(".") in MONTHS or country_of(name) is not None or \
                first in ADJECTIVES:
            continue
        return name
    return None


def _same_day(sentence: str, context: Context) -> str | None:
    """The day of the purchase told just before, for "same day got a Breville espresso machine"."""
    return context.purchase[1] if context.purchase is not None and SAME_DAY.search(sentence) else None


_INSURANCE_KINDS = re.compile(
    r"\b(?:travel|health|medical|dental|vision|car|auto|home|homeowners|renters|life|pet|trip cancellation|"
    r"liability|umbrella|disability)(?=\s+(?:insurance|policy|coverage|plan))", re.I
)
_NOT_ITEM = frozenset(
    "is has had have with got get came comes come it on a an full limited extended manufacturer manufacturer's "
    "standard its new still under out of he she they we i you your by hardware labor labour parts manufacturer's "
    "one-year two-year yr yrs mo mos carries carry includes include offers gives covered covers".split()
)
_DURATION_WORD = re.compile(r"\d|\b(?:year|month|day|week)s?\b", re.I)


def _item(sentence: str, kind: str, purchase: tuple[str | None, str] | None,
          context_item: str | None = None) -> str | None:
    if kind == "warranty" and purchase is not None and purchase[0]:
        return purchase[0]
    if kind == "insurance":
        kinds = _INSURANCE_KINDS.search(sentence)
        return kinds.group(0).lower() if kinds is not None else None
    if kind not in ("warranty", "certificate"):
        return None
    after = _ITEM_AFTER.search(sentence) if kind == "warranty" else None
    if after is not None:  # "AppleCare+ on my MacBook Air runs out June 30"
        return after.group("item")
    match = _ITEM_BEFORE.search(sentence)
    if match is None:
        return None
    words = [re.sub(r"(?:'s|’s|s')$", "", word) for word in match.group("item").split()]  # "the laptop's warranty"
    last = max((i for i, w in enumerate(words) if w.lower() in _ITEM_STOP), default=-1)
    words = [w for w in words[last + 1:] if w.lower() not in _ITEM_STOP]  # "covered by your warranty": none
    words = [w for w in words if w.lower() not in _NOT_ITEM and not _DURATION_WORD.search(w)]
    if kind == "warranty" and context_item is not None and not words:
        return context_item
    return " ".join(words[-2:]).lower() or None


def _country(sentence: str) -> str | None:
    word: str
    for word in re.findall(r"[A-Za-z][A-Za-z.]+", sentence):
        folded = word.casefold().rstrip(".")
        if folded in ADJECTIVES and (word[0].isupper() or folded == "schengen"):
            return ADJECTIVES[folded]
        if len(word) > 3 and (found := country_of(word)) is not None and found.casefold() == folded:
            return found
    return None


_NAMING = ("kind", "holder", "item", "country")
# "her school term ends on June 20": something else's end, not the document's
_OTHER_THING = re.compile(
    r"\b(?:[A-Z][a-z]+(?:'s|’s)|my|her|his|their|our)\s+(?!(?:new\s+)?(?:expiry|expiration|validity|visa|policy|"
    r"coverage|cover|plan|warranty|passport|licen[cs]e|insurance|card|one)\b)[a-z]+(?:\s+[a-z]+)?\s+"
    r"(?:ends?|expires?|finish\w*|runs?|lapses?)\b")
# personal documents: "Emma's passport" is Emma's; "Bosch's warranty" or "Lowe's" is the user's
_PERSONAL = frozenset({"passport", "visa", "drivers_licence", "id_card"})
_NEW = re.compile(r"\bnew\s+(?:job|employer|policy|insurance|plan|company)\b", re.I)
_YOUR = re.compile(r"\byour\b", re.I)
_MINE = re.compile(r"^\W*(?:and\s+)?(?:mine|my own)\b|\b(?:mine|my own one) (?:is|was|expires|runs|lasts)\b", re.I)
# an assistant's recap of what the user said: "Saved: Vietnam e-visa valid January 15, 2026 to ..."
_RECAP = re.compile(r"^\W*(?:noted|saved|recorded|updated|got it|confirmed|so)\b", re.I)
_ISSUER = re.compile(r"\b(?P<adj>[A-Z][A-Za-z.]+)\s+passports?\b")


def _passport_country(sentence: str) -> str | None:
    """The issuing country an adjective before "passport" names ("my US passport")."""
    match = _ISSUER.search(sentence)
    if match is None:
        return None
    word = match.group("adj").casefold().rstrip(".")
    country = ADJECTIVES.get(word)
    return country if country is not None else country_of(match.group("adj"))
