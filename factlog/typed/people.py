"""People from a sentence: the user's relatives, where the user lives, loyalty programs and
preferences.

- `relative` (key `relative/<name>`, else `relative/<relationship>`; subject "user"): a
  family member named with the relation ("my daughter Maya", "Tom, my husband,", "my kids
  Ava and Ben", "my husband's name is Tom"), with `age` ("Maya is 12", "my 12-year-old
  son Leo", "she's eleven", "Ava (8)"), `birthday` ("MM-DD": "Tom's birthday is June 3")
  or `birth_date` when a year is given ("born March 3, 2015"). A relative needs a name, an
  age or a birthday; a pronoun ("she's eleven") is the session's last relative when the
  relation fits it. `relationship` is the family word, singular (mom -> mother, dad ->
  father, grandma -> grandmother, kid -> child); friends, bosses and colleagues are not
  relatives.
- `profile` (singular): `home_city` from "I live in Seattle", "we're based in Austin", "we
  just moved to Denver" (not "used to live", "moving to", "thinking of moving").
- `loyalty_program` (key `loyalty/<program>[/<subject>]`): a program from the bundled table
  (`PROGRAMS`: "Delta SkyMiles", "my frequent flyer number with United", "Marriott
  Bonvoy"), with `provider`, `number` and `tier` ("Gold Medallion" -> "Gold"); it needs a
  number, a tier or a membership ("I'm a Hilton Honors member"); "thinking of joining"
  and questions without a number state none.
- `preference` (key `preference/<topic>[/<condition>][/<subject>]`): `topic` and `value`
  from a closed table: seat (aisle, window, exit row, bulkhead), diet (vegetarian, vegan,
  ...), bed (king, queen), airline (a carrier), stops (nonstop), flight time (morning,
  ...), contact (email, text, phone); `condition` "long flights" etc. when said. It needs a
  person saying so ("I prefer", "I'm vegetarian", "my husband likes the window", "I'm an
  aisle person"); negations ("I hate the middle seat"), hypotheticals and questions
  state none.

The assistant's sentences are read with "you" as the user ("Noted: you prefer aisle
seats", "your husband Mike"). Relatives found are remembered in `context.entities`
(`relative/<name>`) and the last one in `context.last[DOMAIN]`; whose thing a sentence is
about comes from `factlog.typed.common.subject_of` and the care module's names.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from factlog.model import JsonValue
from factlog.recognizers import NUMBER_WORDS, dates_and_times_at
from factlog.relations import FAMILY, FEMALE, MALE, PLURALS, composed, family_word, gendered
from factlog.typed.care import given_name
from factlog.typed.common import conversation_fields, relation_of, subject_of
from factlog.typed.model import Context, TypedFact
from factlog.typed.places import place_name
from factlog.typed.stance import ends_in_question, is_conditional, is_planned, is_question

DOMAIN = "people"

# the relation vocabulary is `factlog.relations`' (one owner for every reader and the label matcher)
_FAMILY = FAMILY
_PLURAL = PLURALS
_SHE = FEMALE
_HE = MALE

_REL = "|".join(sorted(map(re.escape, _FAMILY), key=len, reverse=True))
_RELS = "|".join(sorted(_PLURAL, key=len, reverse=True))
_OWN = r"(?:my|our)"
_AGE_WORD = "|".join(sorted(["one", *NUMBER_WORDS], key=len, reverse=True))
_NUM = rf"(?:\d{{1,2}}|(?:{_AGE_WORD})(?:-(?:one|two|three|four|five|six|seven|eight|nine))?)"
_ADJ = (rf"(?:(?:youngest|oldest|eldest|older|younger|little|big|baby|twin|late|teenage|adult|step|new|"
        rf"{_NUM}[- ](?:year|yr)[- ]old)\s+)")
_NAME = r"(?-i:[A-Z][a-z]+(?:-[A-Z][a-z]+)?)"
# "my daughter Maya", "my youngest son, Leo", "your husband Mike" (the assistant, read as "my")
_MY_REL_NAME = re.compile(rf"\b{_OWN}\s+(?P<adj>{_ADJ}*)(?P<rel>{_REL})(?!'s|’s|-)(?:,\s*|\s+)(?P<name>{_NAME})\b",
                          re.I)
_NAME_MY_REL = re.compile(rf"\b(?P<name>{_NAME})(?:,\s*|\s+\()(?:who(?:'s| is)\s+)?{_OWN}\s+(?P<adj>{_ADJ}*)"
                          rf"(?P<rel>{_REL})\b(?!['’]s)", re.I)  # not "Joy, my mum's carer"
_REL_IS_NAMED = re.compile(rf"\b{_OWN}\s+(?P<adj>{_ADJ}*)(?P<rel>{_REL})(?:'s|’s)?\s+name\s+is\s+(?P<name>{_NAME})\b"
                           rf"|\b{_OWN}\s+(?P<adj2>{_ADJ}*)(?P<rel2>{_REL})\s+is\s+(?:called|named)\s+(?P<name2>{_NAME})\b",
                           re.I)
# "Anna is my wife", "Ken's my brother-in-law", "Tom is our son"
_NAME_IS_MY_REL = re.compile(rf"(?:^|[.;:,!\n]\s*|\band\s+)(?P<name>{_NAME})(?:\s+is|['’]s)\s+{_OWN}\s+(?P<adj>{_ADJ}*)"
                             rf"(?P<rel>{_REL})\b(?!['’]s|-)", re.I)
_NAME_IS_MY_REL_LOWER = re.compile(rf"(?:^|[.;:,!]\s*|\band\s+)(?P<name>[a-z]{{3,}})(?:\s+is|['’]s)\s+{_OWN}\s+"
                                   rf"(?P<adj>{_ADJ}*)(?P<rel>{_REL})\b(?!['’]s|-)")
# a texted or dictated sentence writes names in lower case: "my sis lily is allergic", "my son noah has"
_MY_REL_LOWER = re.compile(rf"\b{_OWN}\s+(?P<adj>{_ADJ}*)(?P<rel>{_REL})\s+(?P<name>[a-z]{{3,}})"
                           r"(?=['’]s\s|\s+(?:is|was|has|had|got|gets|says|said|turned|turns|and|just|needs|will|can|takes|took)"
                           r"\b|\s*[,.!?;]|\s*\(\s*\d{1,2}\s*\)|\s*$)")  # "my son leo (6)"
_NOT_LOWER_NAMES = frozenset(
    "is was has had got gets says said and just needs will can takes took the who that what when which she her he him "
    "his they them their also still too now then here there again always never only really actually literally lol "
    "tho though though thats its it's doesnt didnt isnt wasnt cant wont dont and but because cause since with from "
    "for about over at in on to of off out up down back home today tomorrow tmrw tonight yesterday rn omg lmao ok okay "
    "yes yeah ya no nope sure pls plz thx thanks hello hi hey dear morning evening afternoon".split())
_INSTITUTION = re.compile(r"\s+(?-i:[A-Z])\w*\s*(?:Academy|School|College|University|Hospital|Clinic|Centre|Center|"
                          r"Hall|Street|Road|Avenue|Inc|LLC|Ltd|Group|Company|Bank|Church)\b|"
                          r"\s+(?:Academy|School|College|University|Hospital|Clinic|Centre|Center|Hall|Street|Road|"
                          r"Avenue|Inc|LLC|Ltd|Group|Company|Bank|Church)\b")
# an answer to "What's his name?": "Seamus.", "It's Seamus", "Her name is Ava"
_ANSWER_NAME = re.compile(r"^\W*(?:(?:it['’]s|its|his name is|her name is|he['’]s called|she['’]s called|"
                          rf"that['’]s)\s+)?(?P<name>{_NAME})\s*[.!]?\s*$", re.I)
_NAME_QUESTION = re.compile(r"\b(?:what(?:['’]s| is| was)\s+(?P<pronoun>his|her|their)\s+name|"
                            r"(?P<pronoun2>his|her)\s+name\b[^?]*\?|what(?:['’]s| is) (?P<pronoun3>he|she) called|"
                            rf"(?:my|our)\s+(?P<rel>{_REL})['’]s\s+name\b[^?]*\?)", re.I)
_LISTED_AFTER = r"(?:\s*\(\d{1,2}\)|\s+\d{1,2}(?![\d:/]|\.\d|\s*(?:am|pm|%|mg|years?\s+ago)))?"  # "Ava (8)", "Ruby 10"
# "my kids Ava and Ben", "my two, Ruby 10 and Sam 7" (a count alone is the user's children)
_MY_RELS_NAMES = re.compile(
    rf"\b{_OWN}\s+(?:(?:(?:two|three|four|2|3|4)\s+)?(?P<rels>{_RELS})|(?P<count>two|three|four|2|3|4)(?=,)),?\s+"
    rf"(?P<names>{_NAME}{_LISTED_AFTER}(?:,\s*{_NAME}{_LISTED_AFTER})*,?\s+and\s+{_NAME}{_LISTED_AFTER})",
    re.I)
_LISTED_AGE = re.compile(r"\s*,\s*(?:aged?\s+)?(?P<age>\d{1,2})\s*[,)](?![\d/:])")
# the user with a relation, "my" left out: "Me and wife Mei Ling thinking of going Bali"
_ME_AND_REL = re.compile(rf"\b(?:me|I)\s+and\s+(?:my\s+)?(?P<adj>{_ADJ}*)(?P<rel>{_REL})\s+"
                         rf"(?P<name>{_NAME}(?:\s+{_NAME})?)\b(?!['’]s)", re.I)
# a name with its relation in brackets, "my" left out as lists do: "Kwame (husband)", "Efua (our daughter, 19)"
_NAME_PAREN_REL = re.compile(rf"\b(?P<name>{_NAME})\s*\((?:{_OWN}\s+)?(?P<adj>{_ADJ}*)(?P<rel>{_REL})\b(?!['’]s|-)"
                             r"(?:\s*,\s*(?:aged?\s+)?(?P<age>\d{1,2})\b(?!\s*(?:/|:|am|pm|mg)))?", re.I)
# a relation of a relation: "my husband's younger sister Chiamaka", "Aroha's brother Tama", "his daughter Mia",
# "my daughter Fiona's bairns: Isla ... and Callum", "her children Isla (9) and Callum (12)"
_OWNER = (rf"(?:{_OWN}\s+(?P<outer>{_REL})(?:\s+(?P<outername>{_NAME}))?['’]s|(?P<ownername>{_NAME})['’]s|"
          r"(?P<pron>(?-i:[Hh]is|[Hh]er)))")
_REL_OF_REL = re.compile(rf"(?<![\w'’])(?:{_OWNER})\s+(?P<adj>{_ADJ}*)(?:(?P<inner>{_REL})\b(?!['’]s|-)(?:,\s*|\s+)"
                         rf"(?P<name>{_NAME})\b(?!['’]s)|(?P<inners>{_RELS})\b\s*[:,(]?\s*(?=(?-i:[A-Z]))|"
                         rf"(?P<alone>{_REL})\b(?!['’]s|-))", re.I)
_LIST_NAME = re.compile(rf"(?<!\bin )(?<!\bon )(?<!\bat )(?<!\bto )(?<!\bfrom )(?<!\bfor )\b(?P<name>{_NAME})\b"
                        r"(?:\s*\((?P<age>\d{1,2})\))?(?P<pronoun>,?\s+(?:she|he)\b)?")
# a spouse named without the word: "Harold and I have been married fifty years", "married to Tom"
_MARRIED = re.compile(rf"\b(?P<name>{_NAME})\s+and\s+(?-i:I)\b[^.!?]{{0,40}}?(?<!not )(?<!never )\bmarried\b|"
                      rf"\b(?:I['’]m|I am|I was|I got|I've been|I have been)\s+married\s+to\s+(?P<name2>{_NAME})\b")
_HE_AFTER = re.compile(r"\b(?P<pronoun>he|him|his|she|her)\b", re.I)
_LISTED = re.compile(rf"(?P<name>{_NAME})(?:\s*\((?P<age>\d{{1,2}})\)|\s+(?P<age2>\d{{1,2}})\b(?![:/]|\.\d))?")
_MY_REL = re.compile(rf"\b{_OWN}\s+(?P<adj>{_ADJ}*)(?P<rel>{_REL})(?!-)\b", re.I)
_YEAR_OLD = re.compile(rf"(?P<n>{_NUM})[- ](?:year|yr)[- ]old", re.I)
_AGE_AFTER = re.compile(
    rf"^(?:['’]s\s+|\s*\((?=\s*{_NUM}\s*\))\s*|"  # "my son Ben (9)"
    r"(?:,?\s+|\s*[(–—-]\s*)(?:(?:she|he|who)(?:['’]s|\s+is)\s+|(?:who\s+)?(?:just\s+|now\s+|recently\s+)?"
    rf"(?:is|turned|aged?)\s+|(?:(?:she|he|who)\s+)?(?:has|have)\s+(?={_NUM}\s+years)))(?:now\s+|just\s+|only\s+)?(?P<n>{_NUM})"
    rf"(?:\s+(?:years?|yrs?)(?:\s+old)?|\s*y/?o)?(?=\s*(?:[.,;!)–—-]|$|and\b|but\b|now\b|so\b|too\b|already\b|"
    r"yesterday\b|today\b|last\b|this\b))", re.I)
_LEAD = r"^\W*(?:(?:sorry|no|wait|actually|i mean|i meant|oops|oh|and|also)\b[,!.]?\s*)*"  # "Sorry, I mean her ..."
_PRONOUN_AGE = re.compile(
    rf"{_LEAD}(?P<pronoun>she|he)(?:'s|’s|\s+is|\s+turned|\s+just\s+turned)\s+(?:now\s+|only\s+|just\s+)?(?P<n>{_NUM})"
    rf"(?:\s+(?:years?|yrs?)(?:\s+old)?)?(?=\s*(?:[.,;!)]|$|and\b|but\b|now\b|so\b))", re.I)
_BIRTHDAY = re.compile(
    r"^['’]s\s+(?:birthday|bday|b-day|date of birth|dob)(?!\s+(?:party|dinner|present|gift|card|cake|trip|"
    rf"celebration|lunch|plans?))\b|\b(?:was|were)\s+born\b|\bturns\s+{_NUM}\s+on\b", re.I)
_PRONOUN_BIRTHDAY = re.compile(rf"{_LEAD}(?:(?P<pronoun>she|he)\s+was\s+born|(?P<pronoun2>her|his)\s+(?:birthday|bday|"
                               r"date of birth)(?!\s+(?:party|dinner|present|gift|card|cake)))\b", re.I)
_YEAR = re.compile(r"\b(?:19|20)\d{2}\b")

# -- where the user lives
_HOME = re.compile(
    r"\b(?:I|[Ww]e)(?:'m|’m|'re|’re|\s+am|\s+are)?\s+(?:(?:currently|now|still|actually|also|both)\s+)?"
    r"(?:live|reside|based|living|residing)\s+(?:here\s+)?(?:in|out\s+of)\s+(?:the\s+)?(?P<city>[A-Z][\w.'-]+(?:\s+[A-Z][\w.'-]+){0,2})"
    r"|\b(?:I|[Ww]e)\s+(?:just\s+|recently\s+|finally\s+)?(?:moved|relocated)\s+to\s+"
    r"(?P<moved>[A-Z][\w.'-]+(?:\s+[A-Z][\w.'-]+){0,2})")
_NOT_PLACE = frozenset("the a an i january february march april may june july august september october november "
                       "december monday tuesday wednesday thursday friday saturday sunday".split())

# -- loyalty programs: (program, provider, other names of the program, other names of the provider)
PROGRAMS: tuple[tuple[str, str, tuple[str, ...], tuple[str, ...]], ...] = (
    ("SkyMiles", "Delta", (), ("Delta Air Lines",)),
    ("MileagePlus", "United", ("Mileage Plus",), ("United Airlines",)),
    ("AAdvantage", "American Airlines", ("AAdvantage",), ("American",)),
    ("Rapid Rewards", "Southwest", (), ("Southwest Airlines",)),
    ("TrueBlue", "JetBlue", ("True Blue",), ()),
    ("Mileage Plan", "Alaska Airlines", (), ("Alaska",)),
    ("Aeroplan", "Air Canada", (), ()),
    ("Flying Blue", "Air France-KLM", (), ("Air France", "KLM")),
    ("Executive Club", "British Airways", ("Avios",), ("BA",)),
    ("Miles & More", "Lufthansa", ("Miles and More",), ()),
    ("KrisFlyer", "Singapore Airlines", (), ()),
    ("Asia Miles", "Cathay Pacific", (), ()),
    ("Skywards", "Emirates", (), ()),
    ("Privilege Club", "Qatar Airways", (), ()),
    ("SKYPASS", "Korean Air", (), ()),
    ("ANA Mileage Club", "ANA", (), ("All Nippon Airways",)),
    ("JAL Mileage Bank", "Japan Airlines", ("Mileage Bank",), ("JAL",)),
    ("Qantas Frequent Flyer", "Qantas", (), ()),
    ("Miles&Smiles", "Turkish Airlines", ("Miles & Smiles", "Miles and Smiles"), ()),
    ("Flying Club", "Virgin Atlantic", (), ()),
    ("Etihad Guest", "Etihad", (), ()),
    ("LifeMiles", "Avianca", (), ()),
    ("HawaiianMiles", "Hawaiian Airlines", (), ()),
    ("Marriott Bonvoy", "Marriott", ("Bonvoy",), ()),
    ("Hilton Honors", "Hilton", ("HHonors",), ()),
    ("World of Hyatt", "Hyatt", (), ()),
    ("IHG One Rewards", "IHG", ("IHG Rewards",), ()),
    ("Wyndham Rewards", "Wyndham", (), ()),
    ("Gold Plus Rewards", "Hertz", ("Hertz Gold",), ()),
    ("Emerald Club", "National", (), ()),
    ("Guest Rewards", "Amtrak", ("Amtrak Guest Rewards",), ()),
)


def _alternatives(names: list[tuple[str, int]]) -> tuple[re.Pattern[str], dict[str, int]]:
    """One pattern for the names (longest first), and each name's (case-folded) program."""
    ordered = sorted(names, key=lambda item: len(item[0]), reverse=True)
    pattern = re.compile(r"(?<![\w-])(?:" + "|".join(re.escape(name) for name, _ in ordered) + r")(?![\w-])", re.I)
    return pattern, {name.casefold(): index for name, index in names}


_AIRLINE_PROGRAMS = 23  # the first ones are airlines, the rest hotels, cars and rail
_PROGRAM_NAMES, _PROGRAM_OF = _alternatives([(name, i) for i, p in enumerate(PROGRAMS) for name in (p[0], *p[2])])
_PROVIDER_NAMES, _PROVIDER_OF = _alternatives([(name, i) for i, p in enumerate(PROGRAMS) for name in (p[1], *p[3])])
_LOYALTY_CUE = re.compile(r"\b(?:frequent[- ]fl(?:y|i)er|loyalty|rewards?|miles|mileage|member(?:ship)?|elite|"
                          r"status|medallion|points|tier)\b", re.I)
_MEMBER = re.compile(r"\b(?:I'm|I am|I've been|we're|we are)\s+(?:a\s+|an\s+)?(?:[\w&'-]+\s+){0,3}"
                     r"(?:member|elite|enrolled)\b|\b(?:I|we)\s+(?:just\s+)?(?:signed up|joined|enrolled)\b"
                     r"|\b(?:my|our)\s+(?:[\w&'-]+\s+){0,3}(?:account|membership|number|status)\b", re.I)
_NUMBER = re.compile(r"(?<![\w$.,/-])(?=(?:[A-Z-]*\d){5})(?P<number>[A-Z]{0,3}\d[\dA-Z-]{4,15}[\dA-Z])(?![\w$%/-]|,\d)")
_TIER = re.compile(r"\b(?P<tier>executive platinum|platinum pro|a-list preferred|a-list|"
                   r"premier (?:silver|gold|platinum|1k)|1k|silver|gold|platinum|"
                   r"diamond|titanium|ambassador|globalist|explorist|discoverist|mosaic|premier|emerald|"
                   r"president's circle)\b(?!\s+(?:card|amex|visa|credit))", re.I)

# -- preferences
_PERSON = (rf"(?:\bI|\bwe|\b{_OWN}\s+(?:{_ADJ})*(?:{_REL})(?:\s+{_NAME})?|\b(?:she|he)|(?-i:\b[A-Z][a-z]+))")
_GAP = r"(?:\s+|(?=['’]d\b))"  # "I prefer", "I'd rather"
_PREFER = (r"(?:(?:['’]d|would|always|usually|generally|really|definitely|strongly|much|also|still|mostly|only)\s+)*"
           r"(?:prefers?|preferred|likes?|loves?|(?:take|takes|pick|picks|choose|chooses|book|books|get|gets|"
           r"request|requests|go for|goes for|ask for|asks for|sit in|sits in|sit by|sits by)(?=.{0,12}\b(?:always|"
           r"usually)\b)|['’]d rather(?: have)?|rather have)")
_SEAT = re.compile(rf"{_PERSON}{_GAP}(?:always\s+|usually\s+)?{_PREFER}\s+(?:to\s+(?:sit|be)\s+(?:in|on|by)\s+)?"
                   r"(?:an?\s+|the\s+)?(?P<v>aisle|window|exit[- ]row|bulkhead)(?:\s+seats?)?\b"
                   rf"|{_PERSON}(?:'m|’m|\s+am|'s|’s|\s+is|'re|\s+are)\s+(?:an?\s+)?(?:(?:total|definitely|always)\s+)?"
                   r"(?P<v2>aisle|window)(?:[- ]seat)?\s+(?:kind of\s+|type of\s+|sort of\s+)?"
                   r"(?:person|guy|girl|gal|fan|sitter)\b", re.I)
_DIETS = ("vegetarian", "vegan", "pescatarian", "gluten-free", "kosher", "halal", "dairy-free", "lactose-free")
_DIET = re.compile(rf"(?:(?-i:\bim)|{_PERSON}(?:'m|’m|\s+am|'s|’s|\s+is|'re|\s+are|\s+eats?|\s+keeps?|"
                   r"\s+(?:has|have)\s+been|['’]ve\s+been|\s+(?:went|go|goes|gone|turned)|\s+(?:eat|eats)\s+only|\s+follows?\s+an?))\s+"
                   r"(?:(?:a|an|strictly|strict|fully|completely|now|also|100%|totally)\s+)*"
                   rf"(?P<v>{'|'.join(_DIETS)})\b(?!-|\s+(?:restaurant|restaurants|option|options|menu|place|food|"
                   r"meals?|recipes?|dish|dishes|cafe|bakery|version|one|ones|pizza|burger)\b)", re.I)
_BED = re.compile(rf"{_PERSON}{_GAP}{_PREFER}\s+(?:an?\s+|the\s+)?(?P<v>king|queen|two queens|two doubles|double|twin)"
                  r"(?:[- ]size)?\s+(?:beds?|room)\b", re.I)
_CARRIERS = "|".join(sorted((re.escape(name) for p in PROGRAMS[:_AIRLINE_PROGRAMS] for name in (p[1], *p[3])), key=len,
                           reverse=True))
_AIRLINE = re.compile(rf"{_PERSON}{_GAP}(?:(?:always|usually|only|mostly|prefer to|'d rather)\s+)+fly\s+"
                      rf"(?P<v>{_CARRIERS})\b|{_PERSON}{_GAP}{_PREFER}\s+(?:flying\s+|to fly\s+)?(?P<v2>{_CARRIERS})\b"
                      r"(?!\s+\w+\s+(?:card|number))", re.I)
_STOPS = re.compile(rf"{_PERSON}{_GAP}(?:{_PREFER}|(?:always|usually|only)\s+(?:fly|book|take))\s+"
                    r"(?P<v>nonstop|non-stop|direct)(?:\s+flights?)?\b", re.I)
_FLIGHT_TIME = re.compile(rf"{_PERSON}{_GAP}{_PREFER}\s+(?:an?\s+)?(?P<v>morning|afternoon|evening|early|late|"
                          r"red-eye|overnight)\s+(?:flights?|departures?)\b", re.I)
_CONTACT = re.compile(rf"{_PERSON}{_GAP}{_PREFER}\s+(?:to be (?:contacted|reached)\s+|being (?:contacted|reached)\s+)?"
                      r"(?:by|via|over|through)?\s*(?P<v>email|e-mail|text(?:ing|s)?|sms|phone|calls?)\b"
                      r"|\bbest (?:way )?to (?:reach|contact) me is (?:by |via )?"
                      r"(?P<v2>email|e-mail|text|phone|call)\b", re.I)
_PREFERENCES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("seat", _SEAT), ("diet", _DIET), ("bed", _BED), ("airline", _AIRLINE), ("stops", _STOPS),
    ("flight time", _FLIGHT_TIME), ("contact", _CONTACT),
)
_VALUES = {"exit-row": "exit row", "non-stop": "nonstop", "direct": "nonstop", "e-mail": "email", "texting": "text",
           "texts": "text", "sms": "text", "call": "phone", "calls": "phone", "two doubles": "two doubles"}
_CONDITION = re.compile(r"\b(?:on|for|during)\s+(?:any\s+)?(?P<c>(?:long|short|long-haul|short-haul|longer|shorter|"
                        r"overnight|red-eye|international|domestic|transatlantic|business|work)\s+(?:flights?|trips?)|"
                        r"flights? (?:over|longer than|under|shorter than) \w+ hours?)\b", re.I)
_NEGATED = re.compile(r"\b(?:don't|do not|doesn't|does not|never|hate|hates|can't stand|avoid|avoids|not|no longer|"
                      r"dislike|dislikes|won't|wasn't|used to|stopped|quit)\b", re.I)
_YOU = ((re.compile(r"\byou(?:'re|’re| are)\b", re.I), "I'm"), (re.compile(r"\byou(?:'ve|’ve)\b", re.I), "I've"),
        (re.compile(r"\byour\b", re.I), "my"), (re.compile(r"\byourself\b", re.I), "myself"),
        (re.compile(r"\byou\b", re.I), "I"))

TRIGGERS = (
    re.compile(rf"\b(?:{_REL}|{_RELS}|in-laws?)\b", re.I),  # run lowercased by the reader's trigger set
    re.compile(r"^\W*(?:it['’]s\s+|his name is\s+|her name is\s+)?(?-i:[A-Z][a-z]+)\s*[.!]?\s*$", re.I),
    re.compile(r"^\W*(?:yes|yeah|yep|yup|correct|that['’]s right)\b", re.I),  # "Is Noah your son?" "Yes"
    re.compile(r"\b(?:live|living|reside|based|moved|relocated|married)\b|\b(?:my|our)\s+(?:two|three|four|[234]),",
               re.I),
    _PROGRAM_NAMES, _LOYALTY_CUE,
    re.compile(rf"\b(?:prefers?|preferred|rather|aisle|window|{'|'.join(_DIETS)}|king|queen|nonstop|direct|"
               r"birthday|bday|born|years? old|year-old|turned|(?:is|'s) \d{1,2}\b|(?:she|he)(?:'s|’s|\s+is)\s+\w+\W*$|"
               r"(?:always|usually|only|mostly) fly|(?:reach|contact) me)", re.I),
)


@dataclass(frozen=True)
class _Person:
    name: str | None
    rel: str


def read(sentence: str, context: Context) -> list[TypedFact]:
    text = _as_user(sentence) if context.speaker == "assistant" else sentence
    facts = _relatives(text, context)
    facts += _profile(text, context)
    facts += _loyalty(text, context)
    facts += _preferences(text, context)
    return facts


_OWNED = re.compile(r"\b(?:my|our|your)\s", re.I)


def prescan(text: str, context: Context, speaker: str = "user") -> None:
    """Note the relations a message gives its names before the session's sentences are read,
    so a pasted form or list above "Anna is my wife", or "Ruby (she's 7)" before the
    assistant's "Ruby, your daughter", is already theirs (`context.relations`)."""
    if speaker == "user":
        for married in _MARRIED.finditer(text):
            name = given_name(married.group("name") or married.group("name2") or "")
            if name is not None:
                context.relations.setdefault(name, _spouse(text, married.end()))
    if not _OWNED.search(text) and "(" not in text:  # every naming below says "my", "our" (or "your"), or brackets it
        return
    if speaker == "assistant":
        text = _as_user(text)
    for pattern in (_NAME_IS_MY_REL, _MY_REL_NAME, _NAME_MY_REL, _NAME_PAREN_REL):
        for match in pattern.finditer(text):
            name = given_name(match.group("name"))
            rel = _relation(match.group("rel"))
            if name is not None and rel and name.casefold() not in _NOT_LOWER_NAMES:
                context.relations.setdefault(name, rel)


def _spouse(text: str, start: int) -> str:
    """ "husband" or "wife" by the next he/she the message says after `start`, else "spouse"."""
    pronoun = _HE_AFTER.search(text, start)
    if pronoun is None:
        return "spouse"
    return "husband" if pronoun.group("pronoun").casefold() in ("he", "him", "his") else "wife"


def _as_user(sentence: str) -> str:
    """An assistant's sentence with the user as "I" ("your husband" -> "my husband")."""
    for pattern, replacement in _YOU:
        sentence = pattern.sub(replacement, sentence)
    return sentence


# -- relatives ----------------------------------------------------------------------------


def _relation(word: str) -> str:
    return family_word(word) or ""


def _relatives(text: str, context: Context) -> list[TypedFact]:
    found: dict[str, dict[str, JsonValue]] = {}  # key -> fields, in order
    named: list[tuple[int, int, _Person]] = []  # (start, end, person) of each naming
    lower = re.search(r"[A-Z]", re.sub(r"\bI\b", "", text[1:])) is None  # typed or dictated all in lower case
    lowered = (_MY_REL_LOWER, _NAME_IS_MY_REL_LOWER) if lower else ()
    for pattern in (_MY_REL_NAME, _NAME_MY_REL, _REL_IS_NAMED, _NAME_IS_MY_REL, _NAME_PAREN_REL, _ME_AND_REL,
                    *lowered):
        for match in pattern.finditer(text):
            rel = match.group("rel") or match.groupdict().get("rel2") or ""
            raw = match.group("name") or match.groupdict().get("name2") or ""
            name = given_name(raw) if raw.casefold() not in _NOT_LOWER_NAMES else None
            if name is None and raw[:1].isupper() and place_name(raw) is not None and pattern is not _NAME_MY_REL:
                name = raw  # "my daughter Sofia", "my son Austin": after the relation, a city's name is a name
            if _INSTITUTION.match(text, match.end()):
                continue  # "the school of my daughter, Brightwood Academy"
            if name is None or not _relation(rel) or any(start <= match.start() < end for start, end, _ in named):
                continue
            person = _Person(name, _relation(rel))
            named.append((match.start(), match.end(), person))
            fields = _add(found, context, person)
            age = _YEAR_OLD.search(match.group("adj") or match.groupdict().get("adj2") or "")
            if age is not None:
                _set_age(fields, age.group("n"))
            elif match.groupdict().get("age"):
                _set_age(fields, match.group("age"))
            elif (listed := _LISTED_AGE.match(text, match.end())) is not None:  # "Efua (our daughter, 19, ...)"
                _set_age(fields, listed.group("age"))
    _relations_of_relations(text, context, found, named)
    _married(text, context, found, named)
    for match in _MY_RELS_NAMES.finditer(text):
        rel = _PLURAL.get(match.group("rels").casefold(), "") if match.group("rels") else "child"
        if not rel:
            continue
        for item in _LISTED.finditer(match.group("names")):
            name = given_name(item.group("name"))
            if name is not None and item.group("name").casefold() != "and":
                fields = _add(found, context, _Person(name, rel))
                if item.group("age") or item.group("age2"):
                    _set_age(fields, item.group("age") or item.group("age2"))
    answered = (_answered_name(text, context) or _confirmed_relation(text, context)) if not named else None
    if answered is not None:  # ages after it are the relation's: "Yes, my son, he's 9."
        _add(found, context, answered)
    _ages_and_birthdays(text, context, found, named)
    return [TypedFact("relative", key, conversation_fields(context, "user", fields)) for key, fields in found.items()]


def _owner_relation(match: re.Match[str], context: Context) -> str | None:
    """The user's relation to the owner a `_REL_OF_REL` match names ("my husband's", "Aroha's", "his")."""
    if match.group("outer"):
        return _relation(match.group("outer")) or None
    if match.group("ownername"):
        name = given_name(match.group("ownername"))
        return relation_of(name, context) if name is not None else None
    last = context.last.get(DOMAIN)
    rel = str(last.fields.get("relationship", "")) if last is not None else ""
    female = match.group("pron").casefold() == "her"
    return rel if rel and (rel not in _SHE | _HE or (rel in _SHE) == female) else None


def _relations_of_relations(text: str, context: Context, found: dict[str, dict[str, JsonValue]],
                            named: list[tuple[int, int, _Person]]) -> None:
    """Relatives named as a relative's relative: "my wife's brother Tama" -> brother-in-law,
    "his daughter Mia" after "my partner Dev" -> stepdaughter, "Fiona's bairns: Isla, she's
    nine, and Callum" after "my daughter Fiona" -> grandchildren (granddaughter by the "she")."""
    for match in _REL_OF_REL.finditer(text):
        if any(start <= match.start("adj") < end for start, end, _ in named):
            continue
        owner = _owner_relation(match, context)
        inner = match.group("inner") or match.group("inners") or match.group("alone") or ""
        rel = composed(owner, inner) if owner else None
        if rel is None:
            continue
        if match.group("alone"):  # unnamed, a relative only with an age: "my wife's mum is 84", "her dad (79)"
            age = _AGE_AFTER.match(text[match.end():])
            if age is not None and not _hypothetical(text) and _name_of(rel, context) is None:
                person = _Person(None, rel)
                named.append((match.start(), match.end(), person))
                _set_age(_add(found, context, person), age.group("n"))
            continue
        if match.group("name"):
            name = given_name(match.group("name"))
            if name is not None and relation_of(name, context) is None:
                person = _Person(name, rel)
                named.append((match.start(), match.end(), person))
                fields = _add(found, context, person)
                context.relations.setdefault(name, rel)
                age = _YEAR_OLD.search(match.group("adj") or "")
                if age is not None:
                    _set_age(fields, age.group("n"))
            continue
        for item in _LIST_NAME.finditer(text, match.end()):  # the names listed after "her children"
            name = given_name(item.group("name"))
            if name is None or name.casefold() in _NOT_LOWER_NAMES or relation_of(name, context) is not None:
                continue
            said = (item.group("pronoun") or "").split()
            person = _Person(name, gendered(rel, said[-1].casefold() == "she") if said else rel)
            named.append((item.start(), item.end(), person))
            fields = _add(found, context, person)
            context.relations.setdefault(name, person.rel)
            if item.group("age"):
                _set_age(fields, item.group("age"))


def _married(text: str, context: Context, found: dict[str, dict[str, JsonValue]],
             named: list[tuple[int, int, _Person]]) -> None:
    """A spouse named without the word: "Harold and I have been married fifty years"."""
    if context.speaker != "user":
        return
    for match in _MARRIED.finditer(text):
        name = given_name(match.group("name") or match.group("name2") or "")
        if name is None or any(start <= match.start() < end for start, end, _ in named):
            continue
        rel = context.relations.get(name) or _spouse(text, match.end())
        if family_word(rel) is None:
            continue
        person = _Person(name, family_word(rel) or rel)
        named.append((match.start(), match.end(), person))
        _add(found, context, person)


_IS_YOUR_REL = re.compile(rf"\bis\s+(?P<name>{_NAME})\s+your\s+(?P<rel>{_REL})\b[^?]*\?", re.I)
_YES = re.compile(r"^\W*(?:yes|yeah|yep|yup|ya|correct|right|that['’]s right|exactly|indeed)\b", re.I)


def _confirmed_relation(text: str, context: Context) -> _Person | None:
    """A relation the user confirms: "Yes, my son" to the assistant's "Is Noah your son?"."""
    if context.speaker != "user" or len(context.said) < 2 or not _YES.match(text):
        return None
    asked = _IS_YOUR_REL.search(context.said[-2])
    name = given_name(asked.group("name")) if asked is not None else None
    return _Person(name, _relation(asked.group("rel"))) if asked is not None and name is not None else None


def _answered_name(text: str, context: Context) -> _Person | None:
    """The name a sentence gives in answer to the assistant's "What's his name?" (the last
    question said), for the relation the assistant spoke of just before ("your father")."""
    answer = _ANSWER_NAME.match(text)
    if answer is None or len(context.said) < 2 or context.speaker != "user":
        return None
    question = _NAME_QUESTION.search(_as_user(context.said[-2]))
    name = given_name(answer.group("name"))
    if question is None or name is None or name.casefold() in _NOT_LOWER_NAMES:
        return None
    if question.group("rel"):
        return _Person(name, _relation(question.group("rel")))
    said = (question.group("pronoun") or question.group("pronoun2") or question.group("pronoun3") or "").casefold()
    for earlier in reversed(context.said[-4:-1]):  # "Noted: your father takes warfarin ... What's his name?"
        for match in reversed([*_MY_REL.finditer(_as_user(earlier))]):
            rel = _relation(match.group("rel"))
            if said in ("he", "his") and rel in _SHE or said in ("she", "her") and rel in _HE:
                continue
            if rel and _name_of(rel, context) is None:
                return _Person(name, rel)
    return None


def _key(person: _Person) -> str:
    return f"relative/{(person.name or person.rel).casefold()}"


def _add(found: dict[str, dict[str, JsonValue]], context: Context, person: _Person) -> dict[str, JsonValue]:
    key = _key(person)
    fields = found.setdefault(key, {})
    if person.name is not None:
        fields["name"] = person.name
    fields["relationship"] = person.rel
    context.entities[key] = {**context.entities.get(key, {}), "name": person.name, "relationship": person.rel}
    context.last[DOMAIN] = TypedFact("relative", key, {"relationship": person.rel})
    return fields


def _known(name: str, context: Context) -> _Person | None:
    """A name the session gave a relation to (here, or in the health and schedule readers)."""
    stated = context.entities.get(f"relative/{name.casefold()}")
    rel = stated.get("relationship") if stated else _relation(context.relations.get(name, ""))
    return _Person(name, str(rel)) if rel else None


def _ages_and_birthdays(text: str, context: Context, found: dict[str, dict[str, JsonValue]],
                        named: list[tuple[int, int, _Person]]) -> None:
    """Ages and birthdays said of a relative: named here, by name, or as "she"/"he"."""
    subjects: list[tuple[int, _Person]] = [(end, person) for _, end, person in named]
    for match in _MY_REL.finditer(text):
        if not any(start <= match.start() < end for start, end, _ in named):
            subjects.append((match.end(), _Person(_name_of(_relation(match.group("rel")), context),
                                                  _relation(match.group("rel")))))
    for match in re.finditer(rf"\b{_NAME}\b", text):
        name = given_name(match.group(0))
        person = _known(name, context) if name is not None else None
        if person is not None and not any(start <= match.start() < end for start, end, _ in named):
            subjects.append((match.end(), person))
    pronoun = _PRONOUN_AGE.match(text) or _PRONOUN_BIRTHDAY.match(text)
    last = _last_relative(context, pronoun) if pronoun is not None else None
    if last is not None:
        subjects.append((0, last))
    starts = sorted(end for end, _ in subjects)
    for end, person in subjects:
        upto = next((start for start in starts if start > end), len(text))  # up to the next person named
        rest = text[end:upto] if end else text
        age = _AGE_AFTER.match(rest) if end else _PRONOUN_AGE.match(rest)
        if age is not None and not _hypothetical(text):
            _set_age(_add(found, context, person), age.group("n"))
        born = _BIRTHDAY.search(rest) if end else _PRONOUN_BIRTHDAY.match(rest)
        if born is not None and not _hypothetical(text):
            _set_birthday(_add(found, context, person), text[:upto], end + born.end(), context)


def _name_of(rel: str, context: Context) -> str | None:
    """The name the session gave the one relative of this relation, if it gave one."""
    names = [str(fields["name"]) for key, fields in context.entities.items()
             if key.startswith("relative/") and fields.get("relationship") == rel and fields.get("name")]
    return names[0] if len(set(names)) == 1 else None


def _last_relative(context: Context, pronoun: re.Match[str]) -> _Person | None:
    last = context.last.get(DOMAIN)
    if last is None:
        return None
    rel = str(last.fields.get("relationship", ""))
    said = (pronoun.group("pronoun") or pronoun.groupdict().get("pronoun2") or "").casefold()
    if (said in ("she", "her") and rel in _HE) or (said in ("he", "his") and rel in _SHE):
        return None
    stated = context.entities.get(last.key or "", {})
    name = stated.get("name")
    return _Person(str(name) if name else None, rel)


def _number(word: str) -> int | None:
    word = word.casefold()
    if word.isdigit():
        return int(word)
    total = 0
    for part in word.split("-"):
        value = 1 if part == "one" else NUMBER_WORDS.get(part)
        if value is None or value == 12 and part == "dozen":
            return None
        total += value
    return total


def _set_age(fields: dict[str, JsonValue], word: str) -> None:
    age = _number(word)
    if age is not None and 0 < age < 120:
        fields["age"] = age


def _set_birthday(fields: dict[str, JsonValue], text: str, start: int, context: Context) -> None:
    dates = [(at, day) for at, day in dates_and_times_at(text, context.timestamp)[0] if at >= start]
    if not dates:
        return
    at, day = dates[0]
    if _YEAR.search(text[at:at + 24]) and day[:4] in text[at:at + 24]:
        fields["birth_date"] = day
    else:
        fields["birthday"] = day[5:]


def _hypothetical(text: str) -> bool:
    return is_conditional(text) or is_planned(text) and ends_in_question(text)


# -- profile ------------------------------------------------------------------------------


def _profile(text: str, context: Context) -> list[TypedFact]:
    match = _HOME.search(text)
    if match is None or is_conditional(text[:match.start()]) or is_planned(text[:match.start()]) \
            or is_question(text):
        return []
    words = (match.group("city") or match.group("moved")).split()
    if re.search(r"\b(?:next|soon|in \w+ (?:weeks?|months?))\b", text[match.end():], re.I) and match.group("moved"):
        return []
    for size in range(len(words), 0, -1):
        known = place_name(" ".join(words[:size]).rstrip(".,'"))
        if known is not None:
            return [TypedFact("profile", "profile", conversation_fields(context, "user", {"home_city": known}))]
    city = " ".join(w.rstrip(".,'") for w in words[:2] if w.casefold() not in _NOT_PLACE)
    if not city or words[0].casefold() in _NOT_PLACE:
        return []
    return [TypedFact("profile", "profile", conversation_fields(context, "user", {"home_city": city}))]


# -- loyalty programs ---------------------------------------------------------------------


def _loyalty(text: str, context: Context) -> list[TypedFact]:
    found = _PROGRAM_NAMES.search(text)
    index: int | None = _PROGRAM_OF[found.group(0).casefold()] if found is not None else None
    end = found.end() if found is not None else 0
    if index is None:
        provider = _PROVIDER_NAMES.search(text)
        if provider is None or not _LOYALTY_CUE.search(text):
            return []
        index, end = _PROVIDER_OF[provider.group(0).casefold()], provider.end()
    program, provider_name = PROGRAMS[index][0], PROGRAMS[index][1]
    fields: dict[str, JsonValue] = {"program": program, "provider": provider_name}
    number = next((m.group("number") for m in _NUMBER.finditer(text, end)), None) or \
        next((m.group("number") for m in _NUMBER.finditer(text[:end]) if _LOYALTY_CUE.search(text[m.end():end])), None)
    if number is not None:
        fields["number"] = number
    tier = _TIER.search(text)
    if tier is not None:
        fields["tier"] = _tier(tier.group("tier"))
    if number is None and (is_question(text) or is_planned(text) or _NEGATED.search(text) or
                           (tier is None and not _MEMBER.search(text))):
        return []
    subject = subject_of(text, context)
    if subject.casefold() in (provider_name.casefold(), program.casefold()) or _PROGRAM_NAMES.fullmatch(subject) \
            or _PROVIDER_NAMES.fullmatch(subject):
        subject = "user"
    key = f"loyalty/{program.casefold()}" + ("" if subject == "user" else f"/{subject.casefold()}")
    return [TypedFact("loyalty_program", key, conversation_fields(context, subject, fields))]


def _tier(word: str) -> str:
    special = {"1k": "1K", "a-list": "A-List", "a-list preferred": "A-List Preferred", "premier 1k": "Premier 1K"}
    return special.get(word.casefold(), " ".join(part.capitalize() for part in word.split()))


# -- preferences --------------------------------------------------------------------------


def _preferences(text: str, context: Context) -> list[TypedFact]:
    if is_question(text) or is_planned(text) and not re.search(r"\bprefer", text, re.I):
        return []
    facts: list[TypedFact] = []
    for topic, pattern in _PREFERENCES:
        for match in pattern.finditer(text):
            value = (match.group("v") or match.groupdict().get("v2") or "").casefold()
            clause = text[max(0, text.rfind(",", 0, match.start()) + 1):match.end()]
            if not value or _NEGATED.search(clause) or _NEGATED.search(text[match.start():match.end()]) \
                    or is_conditional(text[:match.start()]):
                continue
            value = _VALUES.get(value, value)
            if topic == "airline":
                value = _carrier(value)
            fields: dict[str, JsonValue] = {"topic": topic, "value": value}
            condition = _CONDITION.search(text, match.end()) if topic in ("seat", "stops", "flight time") else None
            if condition is not None:
                fields["condition"] = " ".join(condition.group("c").casefold().split())
            subject = _subject(match.group(0), context, named_only=topic == "diet")  # "Chipotle is vegan"
            if subject is None:
                continue
            key = "/".join(["preference", topic, *([str(fields["condition"])] if "condition" in fields else []),
                            *([] if subject == "user" else [subject.casefold()])])
            if all(fact.key != key for fact in facts):
                facts.append(TypedFact("preference", key, conversation_fields(context, subject, fields)))
    return facts


def _carrier(value: str) -> str:
    for program, provider, _, others in PROGRAMS[:_AIRLINE_PROGRAMS]:
        if value.casefold() in (provider.casefold(), *(o.casefold() for o in others)):
            return provider
    return value


def _subject(said: str, context: Context, named_only: bool) -> str | None:
    """Whose preference `said` (the match) states: "user", a relation, a name (unless
    `named_only`: then only a name the session gave a relation), or None (not a person)."""
    head = re.split(r"['’]", said.split()[0])[0]
    if head.casefold() in ("i", "we", "im") or re.match(r"best\b", said, re.I):
        return "user"
    mine = _MY_REL.match(said)
    if mine is not None:
        return _relation(mine.group("rel"))
    if head.casefold() in ("she", "he"):
        last = context.last.get(DOMAIN)
        return str(last.fields.get("relationship")) if last is not None else None
    name = given_name(head) if head[:1].isupper() else None
    if name is None:
        return None
    person = _known(name, context)
    return person.rel if person is not None else None if named_only else name

