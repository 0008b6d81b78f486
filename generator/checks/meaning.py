"""Comparing each sentence with the claims it rests on (checks.alignment), within those claims and never across
the pooled ledger: its figures and dates bound to what they measure, its quotations word for word with their
speaker, the people and organisations it names, its negations, opposites and hedges, and its superlatives and
absolutes. What differs is a Disagreement: the rule it breaks, where, and a message that quotes the claim."""

from __future__ import annotations

import difflib
import functools
import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace

from ..content.limits import MAX_SENTENCE_CHARS, MAX_STORY_FIGURES
from .alignment import Claims, ClaimRef, Place, Sentence, rests_on, terms
from .lexicon import lexicon
from .quantities import Quantity, When, agrees, comparable, converted, weekday
from .statements import Entity, Statement, claim_statement, content_stems, plain_words, read, stem, worth_reading

MIN_FRAME = 1.0     # a figure is bound to a claim's when the words near both weigh this much together
BIND_MARGIN = 1.5   # a figure the same as a claim's is bound to another claim's only this much more surely...
MIN_BIND = 2.0      # ...and this surely
SWAP_MARGIN = 0.5   # two figures each bound more surely to the other's claim, by this much together: a swap
MIN_CLAUSE = 2      # clauses compared for their sense share at least this many words...
MIN_CLAUSE_SHARE = 0.4  # ...and this share of the shorter one's
_ELLIPSIS = re.compile(r"\.\s?\.\s?\.|…")
_BRACKETS = re.compile(r"\[[^\]]*\]")
_WORD = re.compile(r"[^\W_]+(?:['’-][^\W_]+)*")
_RETRACTION_WORDS = re.compile(r"\b(?:retract|withdr[ae]w|correct(?:ed|ion)|earlier version|erroneous|mistaken|"
                               r"misstat|misreport|misrecord|since been|no longer stands)", re.IGNORECASE)
_SPEECH = re.compile(r"\b(?:said|says|told|according to|added|warned|argued|wrote|stated|insisted|noted|explained|"
                     r"estimated|estimates|projected|forecast|expects|expected|believes|reported|reports)\b", re.I)


@dataclass(frozen=True)
class Disagreement:
    """A sentence that says something its claims do not: the rule (LP026, LP027, LP031, LP033–LP036), where in
    the place's text, and the message."""

    code: str
    start: int
    end: int
    message: str


@dataclass
class Context:
    """What one story's sentences are compared with besides their claims."""

    claims: Claims
    dates: dict[str, list[tuple[int, int, int]]]  # manifest id ("": the story) -> the days it was published (and
                                                  # withdrawn) on, in its own zone and in UTC
    known: dict[str, str]                # the words of the people and organisations its sources name: which
    ledger: tuple[str, ...]              # its ledger's manifests
    titled: list[When] = field(default_factory=list)  # the dates and years its manifests' titles give
    spoken: frozenset[str] = frozenset()               # the words its sources use (stems), titles too
    corrected: frozenset[str] = frozenset()            # the manifests its corrections name
    figures: int = 0                                   # how many figures its sentences have shown so far


def disagreements(place: Place, context: Context) -> list[Disagreement]:
    """What each sentence of a place says that its claims do not: at most one finding per word it is about. A
    correction note is not judged: it says what an earlier version got wrong."""
    if place.kind == "correction":
        return []
    found: list[Disagreement] = []
    listed = context.claims.listed(place.cited)
    words = plain_words(place.text)
    if not worth_reading(place.text, words) and _TELLING.isdisjoint(words) and not any(r.retracted for r in listed):
        return found  # (what no sentence of it can hold, the place as a whole does not hold either)
    for sentence in place.sentences:
        mine = _sentence(place, sentence, listed, context)
        found.extend(Disagreement(d.code, d.start + sentence.start, d.end + sentence.start, d.message) for d in mine)
    return found


def _sentence(place: Place, sentence: Sentence, listed: list[ClaimRef], context: Context) -> list[Disagreement]:
    if len(sentence.text) > MAX_SENTENCE_CHARS:  # (what a reader cannot take in, the checks do not read closely either)
        return [Disagreement("LP032", 0, 1, f"the sentence is {len(sentence.text):,} characters long, and the checks "
                             f"compare sentences of at most {MAX_SENTENCE_CHARS:,} with their claims: expected it split "
                             "into sentences")]
    words = plain_words(sentence.text)
    worth = worth_reading(sentence.text, words)
    if not listed:
        if not worth:
            return []
        claims: tuple[ClaimRef, ...] = ()
    elif worth or any(ref.retracted for ref in listed) or _may_invent(sentence.text, words):
        claims = rests_on(sentence, place, context.claims)
    else:
        return []
    withdrawn = next((ref for ref in claims if ref.retracted and _states_much(sentence.text, ref, context.claims)), None)
    if withdrawn is not None and not _RETRACTION_WORDS.search(sentence.text):
        return [_retracted(sentence, withdrawn, withdrawn.manifest_id in context.corrected)]
    invented = _invented(sentence, claims, context) if place.unit is not None else None
    if not worth:
        return [invented] if invented else []
    if context.figures > MAX_STORY_FIGURES:
        return []  # (past the limit, which its first sentence past it reports, a story is not read further)
    said = read(sentence.text, context.known)
    context.figures += len(said.quantities)
    if context.figures > MAX_STORY_FIGURES:
        return [Disagreement("LP031", 0, 1, f"the story holds more than {MAX_STORY_FIGURES:,} figures, and the "
                             "checks compare at most that many with their claims (this sentence is past them): "
                             "expected the figures in a table of a manifest, cited, or the story split")]
    pool = listed or []
    checks: list[Callable[[], list[Disagreement]]] = [
        lambda: _quotes(said, claims, place, context),
        lambda: _figures(said, claims, pool, place, context),
        lambda: _whens(said, claims, pool, place, context),
        lambda: _senses(said, claims, pool, place.kind == "table row"),
        lambda: _actors(said, claims, pool, place, context),
        lambda: _superlatives(said, pool, place, context),
    ]
    found: list[Disagreement] = []
    for check in checks:
        for disagreement in check():
            if not any(d.start < disagreement.end and disagreement.start < d.end for d in found):
                found.append(disagreement)
    return found or ([invented] if invented else [])


_ABOUT_SOURCES = re.compile(r"\b(?:report|reports|filing|minutes|figures|numbers|documents?|judgment|statement|data|"
                            r"study|survey|update|release|audit|records?|order|verdict|sources?|notice|announcement|"
                            r"preprint|paper|analysis|guide|count|tracker|presentation|summary|complaint|ruling|"
                            r"says|said|say)\b", re.I)
_MODAL = frozenset({"may", "might", "could", "would", "should", "perhaps", "possibly", "likely", "if", "whether",
                    "unless", "probably"})
_POINTING = frozenset({"this", "that", "these", "those", "it", "its", "such", "they", "them", "their", "here", "there"})
_TELLING = frozenset({"will", "shall", "approved", "adopted", "passed", "decided", "agreed", "signed", "completed",
                      "confirmed", "ordered", "awarded", "granted", "opened", "launched", "closed", "hired", "fired",
                      "banned", "built", "bought", "sold", "voted", "announced", "paid", "raised", "cut", "added",
                      "asked", "imposed", "required", "introduced", "suspended", "cancelled", "canceled", "delayed",
                      "appointed", "resigned", "arrested", "charged", "fined", "sued", "acquired",
                      "merged", "donated", "pledged", "promised", "extended", "expanded", "declared", "issued"})


def _may_invent(text: str, words: frozenset[str]) -> bool:
    """Whether a sentence's words (`plain_words`) could make it a fact of its own (`_invented`), before it is
    aligned."""
    if text.rstrip().endswith((":", "?")) or _TELLING.isdisjoint(words) or not _POINTING.isdisjoint(words):
        return False
    return not _ABOUT_SOURCES.search(text) and _MODAL.isdisjoint(words)


def _invented(sentence: Sentence, claims: tuple[ClaimRef, ...], context: Context) -> Disagreement | None:
    """A sentence that tells of something done or to be done, in words of its own, neither hedged, nor about the
    sources, nor pointing back at what came before: a fact the sources do not give ("The award will be paid by
    the company's insurer."). It rests on no claim and says two or more things no source says, or rests on
    claims only by a name and one word and says three ("The county has also imposed a curfew in Port Avery")."""
    text = sentence.text
    if not _may_invent(text, plain_words(text)):
        return None
    names = {stem(word.lower()) for word in _WORD.findall(text)[1:] if word[:1].isupper()}
    stems = content_stems(text)
    new = sorted(stems - context.spoken - names)  # (a place or a person the site knows is no new fact)
    shared = (stems - names) & set().union(*(context.claims.terms[(r.manifest_id, r.claim_id)] for r in claims))
    if len(new) < 2 or claims and (len(shared) > 1 or len(new) < 3):
        return None
    rests = "rests on no claim of the manifests cited" if not claims else "shares almost nothing with the claims"
    return Disagreement("LP032", 0, len(text), f"the sentence {rests}, and says what "
                        f"none of the sources says (not in them: {', '.join(new[:6])}): expected a claim that states "
                        "it, cited, or the sentence left out")


def _states_much(text: str, ref: ClaimRef, claims: Claims) -> bool:
    """Whether a sentence says much of what a claim says: half of the claim's words and figures, or a figure of it
    and two of its words (a sentence that only names what the claim is about does not state it)."""
    stated = claims.terms[(ref.manifest_id, ref.claim_id)]
    shared = terms(text) & stated
    figures = sum(term[0] == "#" for term in shared)
    return len(shared) >= 0.5 * len(stated) or figures and len(shared) - figures >= 2


def _retracted(sentence: Sentence, ref: ClaimRef, corrected: bool) -> Disagreement:
    fix = ("the statement removed or rewritten; a correction does not withdraw it while the story still says it"
           if corrected else f"a correction naming manifest '{ref.manifest_id}', and the statement removed or rewritten")
    return Disagreement("LP026", 0, len(sentence.text), f"the sentence still states claim '{ref.claim_id}' of "
                        f"{ref.named}, which was retracted (\"{_short(ref.text)}\"): expected {fix}")


# --- figures -------------------------------------------------------------------------------------------------

def _frame(statement: Statement, offset: int, end: int, noun: str = "") -> set[str]:
    """The words a figure or date is said of: the content words nearest it in its clause, ("=" and its stem) the
    noun it counts, and (">from", ">to") the end of a change it is: "from $612 to $654" is not "from $654 to
    $612", whatever the order of the words."""
    found = statement.window(offset, end) | statement.named_before(offset)
    for word in noun.split():
        found |= {stem(word), "=" + stem(word)}
    role = _ROLE.search(statement.text, max(0, offset - 24), offset)
    if role is not None:
        found.add(">" + role[1].lower())
    return found


_ROLE = re.compile(r"\b(from|to)\s+(?:[a-z]+\s+)?$", re.I)


@functools.lru_cache(maxsize=1 << 14)
def _claim_frames(text: str) -> tuple[list[frozenset[str]], list[frozenset[str]]]:
    """The frame of each figure and of each date of a claim, in order (a claim is read once per process)."""
    stated = claim_statement(text)
    return ([frozenset(_frame(stated, other.start, other.end, other.noun)) for other in stated.quantities],
            [frozenset(_frame(stated, other.start, other.end)) for other in stated.whens])


def _bound(frame: set[str], other: set[str], claims: Claims) -> float:
    """How surely two figures are said of the same thing: the distinctive words near both, and twice over
    when they count the same noun."""
    return sum(1.0 if term[0] in "=@" else 2.0 if term[0] == ">" else claims.weight(term)
               for term in frame & other if term != "~")


def _figures(said: Statement, aligned: tuple[ClaimRef, ...], pool: list[ClaimRef], place: Place,
             context: Context) -> list[Disagreement]:
    judged, frames = [], {}
    for quantity in said.quantities:
        if said.quoted(quantity.start) or quantity.derived:
            continue  # a quotation is compared word for word; a share read off two counts, by its counts
        frame = frames[quantity] = _frame(said, quantity.start, quantity.end, quantity.noun)
        candidates = []
        for ref in pool:
            for other, theirs in zip(claim_statement(ref.text).quantities, _claim_frames(ref.text)[0]):
                if comparable(quantity, other):
                    bound = _bound(frame, theirs, context.claims) + 0.5 * (ref in aligned)
                    core = _bound({t for t in frame if t[0] not in "@>"}, theirs, context.claims)
                    candidates.append((bound, agrees(quantity, other), ref, other, frame & theirs, theirs, core))
        judged.append((quantity, candidates))
    found, swapped = _swaps(judged)
    units = Counter(q.unit for q in said.quantities)
    for quantity, candidates in judged:
        if quantity in swapped:
            continue
        borrowed = "~" in frames[quantity] and units[quantity.unit] > 1  # a row of figures: which is which, its words do not say
        total = re.search(r"\d[\d,.]*\s+of\s+(?:the\s+|its\s+)?$", said.text[max(0, quantity.start - 24):quantity.start])
        if any(c[1] for c in candidates) and (borrowed or total):
            problem = None  # (the 17 of "11 of 17" is a total, said of what the 11 is)
        elif any(c[1] for c in candidates):
            strict = [c for c in candidates if _strict(quantity, c[3]) or c[1]]
            problem = _judge(quantity, strict, lambda other: _figure_hint(quantity, other))
        elif _qualifies(quantity):
            bound = any(c[6] >= MIN_BIND and _strict(quantity, c[3]) for c in candidates)
            problem = (_unmatched(quantity, candidates, place, context) if bound else None) or _elsewhere(
                quantity, place, context) or _unmatched(quantity, candidates, place, context)
            if problem is not None and problem.code == "LP031" and _derived(quantity, said, pool, candidates, context.claims,
                                                                              place.kind in _HEADLINES):
                problem = None
        else:  # a small count ("two documents") is judged only against a claim's count of the same thing, or
            # one the words around both say is it ("17 were taken to hospital": "11 of whom were taken to hospital")
            problem = _unmatched(quantity, [c for c in candidates if any(t[0] == "=" for t in c[4])
                                            or c[6] >= MIN_BIND], place, context)
        if problem is not None:
            found.append(problem)
    return found


def _swaps(judged: list) -> tuple[list[Disagreement], set]:
    """Two figures of a sentence exchanged: each is the value of a claim's figure, and each is said of what the
    other's claim figure is said of ("property tax 22% and sales tax 38%" where the claims say 38% and 22%)."""
    found, swapped = [], set()
    judged = [(quantity, candidates) for quantity, candidates in judged if any(c[1] for c in candidates)]
    for i, (first, first_candidates) in enumerate(judged):  # (each of a swap is some claim figure's value)
        for second, second_candidates in judged[i + 1:]:
            if first in swapped or second in swapped or first.unit != second.unit or first.value == second.value:
                continue
            pair = _crossed(first_candidates, second_candidates)
            if pair is not None:
                (ref, stated_first), (_, stated_second) = pair
                swapped |= {first, second}
                found.append(Disagreement("LP031", first.start, second.end,
                                          f"the sentence swaps '{first.text}' and '{second.text}': the claim says "
                                          f"'{stated_first.text}' of what the sentence gives '{first.text}' "
                                          f"({ref.named}: \"{_short(ref.text)}\"): expected each figure with what "
                                          "it measures"))
    return found, swapped


def _crossed(first: list, second: list):
    """The two claim figures a swap exchanges, if each figure's words fit the other's claim figure better than the
    claim figure of its own value they fit best."""
    a = max((c for c in first if c[1]), key=lambda c: c[0], default=None)
    b = max((c for c in second if c[1]), key=lambda c: c[0], default=None)
    if a is None or b is None or a[3] is b[3]:
        return None
    into_b = next((c[0] for c in first if c[3] is b[3]), None)
    into_a = next((c[0] for c in second if c[3] is a[3]), None)
    if into_b is None or into_a is None:
        return None
    margin = 2.0 if a[2] is b[2] else SWAP_MARGIN  # (two figures of one claim: told apart less surely)
    if into_b > a[0] and into_a > b[0] and (into_b - a[0]) + (into_a - b[0]) >= margin:
        return (b[2], b[3]), (a[2], a[3])
    return None


def _strict(said: Quantity, stated: Quantity) -> bool:
    """Whether a claim's figure is of the very kind of the sentence's (the same unit, or units of one
    dimension), so that a different value is a change, not another fact: a plain count and a sum of money, or a
    count and a distance, are other facts."""
    if said.unit == stated.unit:
        return said.unit != "share" or said.words == stated.words
    return said.physical and stated.physical or {said.unit, stated.unit} == {"share", "%"} and said.words


def _unmatched(quantity: Quantity, candidates: list, place: Place, context: Context) -> Disagreement | None:
    """A figure no claim supports: reported against the claim figure of its kind it is bound to ("89 cases"
    where the claim counts 98 cases); a figure by LP031's definition also when none is, as stated by no claim."""
    strict = [c for c in candidates if _strict(quantity, c[3])]
    if strict:
        best = max(strict, key=lambda c: c[0])
        if best[6] >= MIN_FRAME or _qualifies(quantity):
            if best[6] < MIN_FRAME:
                best = min(strict, key=lambda c: _distance(quantity.text, c[3]))
            return _changed(quantity.text, quantity.start, quantity.end, best, _figure_hint(quantity, best[3]))
    if not _qualifies(quantity):
        return None
    alike = [o for ref in context.claims.listed(place.cited) for o in claim_statement(ref.text).quantities
             if _core(o) == _core(quantity)]  # the same number in another unit or scale: the likelier slip first
    alike.sort(key=lambda o: o.unit != quantity.unit and not {o.unit, quantity.unit} <= {"%", "pp"})
    hint = f" (one says '{alike[0].text}')" if alike else ""
    return Disagreement("LP031", quantity.start, quantity.end, f"figure '{quantity.text}' is in none of the claims "
                        f"{_cited(place, context)}{hint}: expected the value, unit and scale a cited claim states")


def _core(quantity: Quantity) -> str:
    """A figure's number as written, without its unit or scale: what a figure that slipped a unit shares."""
    found = re.search(r"\d[\d,]*(?:\.\d+)?", quantity.text)
    return found[0].replace(",", "") if found else quantity.text


def _qualifies(quantity: Quantity) -> bool:
    """A figure by LP031's first definition: three or more digits, a decimal, a unit, a currency, a scale; or a
    share ("three in five")."""
    if quantity.unit == "share":
        return not quantity.derived
    if quantity.words:
        return False
    digits = sum(c.isdigit() for c in quantity.text)
    return digits >= 3 or quantity.unit not in ("", "share") or "." in quantity.text or quantity.value >= 100


def _judge(said: Quantity | When, candidates: list, hint) -> Disagreement | None:
    """Among a figure's candidates in the claims (bound, agrees, claim, figure), one of which agrees: none when
    an agreeing one binds about as well as the best bound; else the best bound one, whose value the sentence
    gave another's."""
    if not candidates:
        return None
    best = max(candidates, key=lambda c: c[0])
    closest = max((c for c in candidates if c[1]), key=lambda c: c[0], default=None)
    if best[1] or best[0] < MIN_BIND or len(best) > 5 and ("~" in best[5] or best[6] < MIN_FRAME):
        return None  # (a claim figure alone in its clause, or near only a name, may be said of anything there)
    if isinstance(said, Quantity) and not _qualifies(said) and not any(t[0] == "=" for t in best[4]):
        return None  # (a small count is bound to another only by the noun it counts)
    if len(best) > 6 and closest is not None and best[6] < closest[6] + BIND_MARGIN:
        return None  # (bound to another claim's figure only by a name near both: "beat the Rams 104-98")
    if closest is not None and (best[0] < closest[0] + BIND_MARGIN or closest[2] is best[2] and (
            len(best) < 7 or best[6] < closest[6] + 2 * BIND_MARGIN)):
        return None  # (two figures of one claim, "9.5%, up from 8.1%", are told apart only by the words of one)
    return _changed(said.text, said.start, said.end, best, hint(best[3]))


def _changed(text: str, start: int, end: int, candidate, hint: str) -> Disagreement:
    ref, other = candidate[2], candidate[3]
    return Disagreement("LP031", start, end, f"the sentence says '{text}' where the claim it rests on says "
                        f"'{other.text}' ({ref.named}: \"{_short(ref.text)}\"): expected {hint}")


MAX_WORKED = 32  # figures in one sentence past which none is taken for worked out from others


def _derived(quantity: Quantity, said: Statement, pool: list[ClaimRef], candidates: list, claims: Claims,
             headline: bool = False) -> bool:
    """A figure the reporter worked out from two of the claims' (a sum, a difference, a share of one in the other,
    a change in percent or in points, a half or a double where the sentence says so), unless it is bound to a
    claim's figure of its kind that says otherwise."""
    if any(_strict(quantity, c[3]) and c[6] >= MIN_BIND for c in candidates):
        return False  # said of what a claim figure measures (its words, not only a name near it)
    if len(said.quantities) > MAX_WORKED:  # each figure against each pair of the others: a table row of 1,000
        return False                     # figures took hours (docs/security.md bounds a story's time)
    restated = _restated(quantity, said)
    if restated is not None:  # "48%, or nearly half": the share is that figure's, nothing worked out
        return agrees(quantity, restated)
    own = [q for q in said.quantities if q is not quantity and not q.derived]
    cued = bool(_WORKED.search(said.text)) or headline  # (a headline sums up what the body works out)
    figures = [q for ref in pool for q in claim_statement(ref.text).quantities if not q.derived]
    figures += [q for q in own if q.unit == quantity.unit]
    values: list[float] = []
    shares: list[float] = []  # shares worked out: judged as a share written for them is (a hedge, a point or two)
    for a in figures:
        if said.text.lower().count("half") and a.unit == quantity.unit:
            values.append(a.value / 2)
        if ("double" in said.text.lower() or "twice" in said.text.lower()) and a.unit == quantity.unit:
            values.append(a.value * 2)
        for b in figures:
            if a is b or not b.value or not cued and not any(_same_figure(x, o) for x in (a, b) for o in own):
                continue  # worked out from a figure the sentence gives, or where it says it works one out
            if (a.unit == b.unit == quantity.unit or a.unit == b.unit and quantity.unit == "") and a.unit != "%" and min(
                    abs(a.value), abs(b.value)) >= 0.05 * abs(quantity.value):  # (a difference of percentages is points)
                values += [a.value + b.value, abs(a.value - b.value)]
            if a.unit == b.unit and quantity.unit in ("%", "share") and a.unit not in ("%", "share"):
                share = a.value / b.value
                if quantity.unit == "share" and 0 < share < 1:
                    shares.append(share)
                values += [share * 100 if quantity.unit == "%" else share, (a.value - b.value) / b.value * 100]
            if a.unit == b.unit == "%" and quantity.unit in ("pp", ""):
                values.append(abs(a.value - b.value))
            if a.unit == b.unit == "%" and quantity.unit == "share" and a.value + b.value < 100:
                shares.append((a.value + b.value) / 100)
            if a.unit == b.unit and quantity.unit == "x" and a.unit not in ("%", "share"):
                values.append(a.value / b.value)
    if quantity.unit == "share":  # "six in seven ended without a charge": the rest of a claim's 14.6%
        shares += [1 - f.value / 100 for f in figures if f.unit == "%" and 0 < f.value < 100]
    if any(agrees(quantity, Quantity(0, 0, "", share, "share")) for share in shares):
        return True
    step = quantity.coarse if quantity.hedge else quantity.precision
    points = {"below": -1, "under": -1, "above": 1, "over": 1, "least": 1}.get(quantity.hedge, 0)
    return any(abs(quantity.value - value) <= step / 2 + 0.005 * abs(value) + 1e-9
               and (value - quantity.value) * points >= 0 for value in values)


_HEADLINES = ("title", "description", "heading")
_WORKED = re.compile(r"\b(?:together|combined|in all|altogether|total|totals|totalling|totaling|gap|difference|"
                     r"margin|up by|down by|outstanding|remaining|remain|left|leaves|leaving|times|half|twice|double|"
                     r"doubled|between them|of them|of those|of whom|of which|a rise of|a fall of|an increase of|"
                     r"a decrease of|a drop of|rose|risen|rise|rises|rising|grew|grown|fell|fallen|dropped|increased|"
                     r"decreased|declined|climbed|up|down)\b", re.I)


def _same_figure(a: Quantity, b: Quantity) -> bool:
    return a.unit == b.unit and abs(a.value - b.value) <= max(a.precision, b.precision) / 2 + 1e-9


def _restated(quantity: Quantity, said: Statement) -> Quantity | None:
    """The percentage a share restates when the sentence writes it just before ("48%, or nearly half")."""
    if quantity.unit != "share":
        return None
    before = [q for q in said.quantities if q.end <= quantity.start and q.unit == "%"]
    if before and quantity.start - before[-1].end <= 80 and re.search(
            r"\b(?:or|about|roughly|nearly|almost|just|some|around)\b|[—–(]", said.text[before[-1].end:quantity.start]):
        return before[-1]
    return None


def _distance(text: str, other) -> float:
    return 1 - difflib.SequenceMatcher(None, text, other.text).ratio()


def _figure_hint(said: Quantity, stated: Quantity) -> str:
    if said.physical and stated.physical and said.unit != stated.unit and "degree" not in (said.unit, stated.unit):
        value = converted(stated.value, stated.unit, said.unit)
        if value is not None:
            return f"{stated.text}, or about {_round(value, said)} in the sentence's unit"
    if said.hedge in ("over", "above", "under", "below", "least"):
        return f"{stated.text}, or a hedge that points from the claim's value the right way"
    if said.unit == "share":
        return f"{stated.text}, or a share that matches it"
    return f"{stated.text}, or the claim's value rounded to what the sentence writes, with a hedge"


def _round(value: float, like: Quantity) -> str:
    step = like.coarse if like.coarse > 1 else 1
    return f"{round(value / step) * step:,.0f}" if step >= 1 else f"{value:.1f}"


def _elsewhere(quantity: Quantity, place: Place, context: Context) -> Disagreement | None:
    """A figure stated only by a claim the ledger does not list (LP027), or only by another manifest's claim. A
    hedged figure is not taken for another claim's on its value alone ("about 60%" of a sum the reporter works
    out is not the turnout of 61.7%)."""
    if quantity.hedge:
        return None
    claims = context.claims
    for ref in claims.unlisted(place.cited):
        if any(comparable(quantity, other) and agrees(quantity, other) for other in claim_statement(ref.text).quantities):
            return _unlisted(quantity.start, quantity.end, f"'{quantity.text}'", ref)
    others = [manifest for manifest in context.ledger if manifest not in place.cited]
    for ref in claims.listed(others):
        if any(comparable(quantity, other) and agrees(quantity, other) for other in claim_statement(ref.text).quantities):
            return Disagreement("LP031", quantity.start, quantity.end,
                                f"figure '{quantity.text}' is stated by claim '{ref.claim_id}' of {ref.named}, which "
                                f"the {place.kind} does not cite: expected [cites: {ref.manifest_id}]")
    return None


def _unlisted(start: int, end: int, what: str, ref: ClaimRef) -> Disagreement:
    return Disagreement("LP027", start, end,
                        f"{what} rests on claim '{ref.claim_id}' of {ref.named} (\"{_short(ref.text)}\"), which the "
                        f"ledger does not list: expected it in the ledger, e.g. claims: [..., \"{ref.claim_id}\"]")


def _cited(place: Place, context: Context) -> str:
    if set(place.cited) == set(context.ledger) and place.kind in ("title", "description", "heading", "caption"):
        return "the ledger uses"
    return f"the ledger uses from {', '.join(place.cited)}"


# --- dates ---------------------------------------------------------------------------------------------------

def _whens(said: Statement, aligned: tuple[ClaimRef, ...], pool: list[ClaimRef], place: Place,
           context: Context) -> list[Disagreement]:
    """Each date and period against the claims': bound to the one its words are said of, else stated by none;
    a date may also be the day a cited source or the story was published, unless a claim dates what the
    sentence speaks of otherwise."""
    found = []
    days = [day for key in ("", *place.cited) for day in context.dates.get(key, ())]  # the story's, the cited ones'
    year = days[0][0] if days else None
    for when in said.whens:
        if said.quoted(when.start):
            continue
        frame = _frame(said, when.start, when.end)
        candidates = []
        for ref in pool:
            for other, theirs in zip(claim_statement(ref.text).whens, _claim_frames(ref.text)[1]):
                verdict = _when_agrees(when, other, year)
                if verdict is not None:
                    bound = _bound(frame, theirs, context.claims) + 0.5 * (ref in aligned)
                    candidates.append((bound, verdict, ref, other))
        published = any(_published_agrees(when, day) for day in days)
        titled = any(_when_agrees(when, other, year) for other in context.titled)
        hint = lambda other: f"{other.text}, as the claim dates it"  # noqa: E731
        if when.kind == "year" and titled:
            problem = None  # the year a source's title is about ("crime statistics, calendar year 2025")
        elif any(c[1] for c in candidates):
            problem = None if "~" in frame else _judge(when, candidates, hint)
        else:
            best = max(candidates, key=lambda c: c[0], default=None)
            problem = None
            need = MIN_BIND if published or titled else MIN_FRAME  # a date a title or a publication gives: surely bound
            if best is not None and best[0] >= need and not (published and _speech(said, when)):
                problem = _changed(when.text, when.start, when.end, best, hint(best[3]))
            elif not published and not titled and when.kind not in ("season", "time"):
                problem = Disagreement("LP031", when.start, when.end, f"date '{when.text}' is in none of the claims "
                                       f"{_cited(place, context)}, nor the published date of a cited manifest or "
                                       "of the story: expected a date as a cited claim states it")
        if problem is not None:
            found.append(problem)
    return found


def _speech(said: Statement, when: When) -> bool:
    """A date in a clause about saying or publishing ("said on Tuesday") may be the day the source spoke."""
    clause = said.clause_at(when.start)
    text = " ".join(t.text for t in said.tokens if t.clause == clause)
    return bool(_SPEECH.search(text)) or bool(re.search(r"\b(?:publish|releas|announc|issu|post|file)", text, re.I))


def _when_agrees(said: When, stated: When, year: int | None) -> bool | None:
    """Whether a claim's date or period states a sentence's (None: not of a kind to compare)."""
    kind, value = said.kind, said.value
    other, got = stated.kind, stated.value
    if kind == "date":
        if other == "date":
            return value[1:] == got[1:] and (value[0] is None or got[0] is None or value[0] == got[0])
        return None
    if kind == "month":
        if other in ("date", "month"):
            months = got[1]
            return value[1] == months and (value[0] is None or got[0] is None or value[0] == got[0])
        if other == "quarter":  # "between July and September": the third quarter
            return (value[1] - 1) // 3 + 1 == got[0]
        return None
    if kind == "year":
        if other == "year":
            return value == got
        if other in ("date", "month"):
            return None if got[0] is None else value[0] == got[0]
        if other == "fiscal":
            return value[0] in got
        return None
    if kind == "weekday":
        if other == "weekday":
            return value == got
        if other == "date":
            found = weekday(got, year)
            return None if found is None else found == value[0]
        return None
    if kind in ("quarter", "half", "season", "fiscal", "time"):
        if other == kind:
            return value == got
        if kind == "quarter" and other in ("date", "month"):
            return (got[1] - 1) // 3 + 1 == value[0]
        return None
    return None


def _published_agrees(when: When, day: tuple[int, int, int]) -> bool:
    kind, value = when.kind, when.value
    if kind == "date":
        return value[1:] == day[1:] and value[0] in (None, day[0])
    if kind == "weekday":
        return weekday((day[0], day[1], day[2]), None) == value[0]
    if kind == "month":
        return value[1] == day[1] and value[0] in (None, day[0])
    if kind == "year":
        return value[0] == day[0]
    return False


# --- quotations ----------------------------------------------------------------------------------------------

def _quotes(said: Statement, aligned: tuple[ClaimRef, ...], place: Place, context: Context) -> list[Disagreement]:
    found = []
    claims = context.claims
    others = [manifest for manifest in context.ledger if manifest not in place.cited]
    sources = [*claims.listed(place.cited), *claims.unlisted(place.cited), *claims.listed(others)]
    for quote in said.quotes:
        fragments = _fragments(quote.text)
        if not fragments:
            continue
        home = next((ref for ref in sources if _contains(_normal(ref.text), fragments)), None)
        if home is None:
            if len(fragments) == 1 and len(fragments[0]) <= 2 and any(
                    _contains(_normal(ref.title), fragments) for ref in sources):
                continue  # a title quoted
            found.append(_misquoted(quote, fragments, sources))
            continue
        if not home.listed:
            found.append(_unlisted(quote.start, quote.end, f"the quotation \"{_short(quote.text)}\"", home))
            continue
        speaker = _speaker(said, quote, home, context)
        if speaker is not None:
            found.append(speaker)
    return found


@functools.lru_cache(maxsize=1 << 14)
def _normal(text: str) -> tuple[str, ...]:
    """A text's words as quotations are compared (claims are compared with every quotation of a story)."""
    return tuple(word.lower().replace("’", "'") for word in _WORD.findall(text))


def _fragments(text: str) -> list[tuple[str, ...]]:
    """A quotation's words, cut where an ellipsis or a [bracketed] insertion stands."""
    parts = _BRACKETS.split(text)
    return [words for part in parts for piece in _ELLIPSIS.split(part) if (words := _normal(piece))]


def _contains(words: tuple[str, ...], fragments: list[tuple[str, ...]]) -> bool:
    """Whether each fragment stands in `words`, in order."""
    at = 0
    for fragment in fragments:
        size = len(fragment)
        for start in range(at, len(words) - size + 1):
            if words[start:start + size] == fragment:
                at = start + size
                break
        else:
            return False
    return True


def _misquoted(quote, fragments: list[tuple[str, ...]], sources: list[ClaimRef]) -> Disagreement:
    words = [word for fragment in fragments for word in fragment]
    best, ratio = None, 0.0
    for ref in sources:
        claim = _normal(ref.text)
        matcher = difflib.SequenceMatcher(None, words, claim, autojunk=False)
        blocks = sum(block.size for block in matcher.get_matching_blocks())
        score = blocks / max(len(words), 1)
        if score > ratio:
            best, ratio = ref, score
    if best is not None and ratio >= 0.6 and len(words) >= 3:
        said, stated = _difference(words, _normal(best.text))
        return Disagreement("LP034", quote.start, quote.end,
                            f"the quotation differs from the claim it comes from: the claim says '{stated}', the "
                            f"sentence quotes '{said}' ({best.named}: \"{_short(best.text)}\"): expected the words "
                            "as they were said (an ellipsis for a cut, [brackets] for a word added)")
    return Disagreement("LP034", quote.start, quote.end,
                        f"no claim of the manifests cited contains the quotation \"{_short(quote.text)}\": expected "
                        "words a cited claim quotes, word for word")


def _difference(words: list[str], claim: tuple[str, ...]) -> tuple[str, str]:
    """The first run of words a quotation changed, and what the claim has there."""
    matcher = difflib.SequenceMatcher(None, words, claim, autojunk=False)
    blocks = matcher.get_matching_blocks()
    start = blocks[0]
    if start.size and start.a == 0:
        claim_start = start.b
    else:
        claim_start = max(0, start.b - start.a)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal" and j1 >= claim_start and i1 < len(words):
            said = " ".join(words[max(0, i1 - 1):min(len(words), i2 + 1)])
            stated = " ".join(claim[max(0, j1 - 1):j2 + 1])
            return said, stated
    return " ".join(words), " ".join(claim)


def _speaker(said: Statement, quote, home: ClaimRef, context: Context) -> Disagreement | None:
    """A quotation given to a named person or organisation must be given to the one the claim gives it to."""
    given = _named(said, outside_quotes=True)
    stated = _named(claim_statement(home.text), outside_quotes=True)
    for kind in ("person", "organisation"):
        mine, theirs = given.get(kind), stated.get(kind)
        if mine and theirs and not _same(mine, theirs, _outside_quotes(home.text)):
            return Disagreement("LP034", quote.start, quote.end,
                                f"the sentence gives these words to '{mine[0].text}', the claim to "
                                f"'{theirs[0].text}' ({home.named}: \"{_short(home.text)}\"): expected the speaker "
                                "the claim names")
    return None


def _outside_quotes(text: str) -> str:
    return re.sub(r"[\"“”][^\"“”]*[\"“”]", " ", text)


def _named(statement: Statement, outside_quotes: bool = False, clause: int | None = None) -> dict[str, list[Entity]]:
    found: dict[str, list[Entity]] = {}
    for entity in statement.entities:
        if outside_quotes and statement.quoted(entity.start) or clause is not None and entity.clause != clause:
            continue
        found.setdefault(entity.kind, []).append(entity)
    return found


# Organisations named by what they are that may be one and the same: a city's department is the city; "the
# company" may be any business, whatever its name ends in.
_GOVERNMENT = frozenset({"city", "council", "county", "state", "government", "administration", "mayor", "borough",
                         "municipality", "town", "department", "ministry", "agency", "authority", "office",
                         "commission", "board", "committee"})
_UMBRELLAS = frozenset({"city", "county", "state", "government", "administration", "municipality", "town", "borough",
                        "company", "firm", "district"})  # (what any of its bodies may be called)
_BUSINESS = frozenset({"company", "firm", "corporation", "corp", "inc", "ltd", "llc", "plc", "group", "labs",
                       "holdings", "partners", "ventures", "industries", "technologies", "systems", "co", "brands",
                       "enterprises", "bank", "airline", "airlines", "insurer", "developer", "contractor", "landlord",
                       "operator", "utility", "motors", "pharmaceuticals", "stores", "foods"})


_KINDS_OF_BODY = (
    _GOVERNMENT | {"service", "services", "bureau"},
    _BUSINESS | {"power", "energy", "water", "electric", "gas", "labs"},
    frozenset({"association", "union", "coalition", "alliance", "campaign", "party", "club", "foundation", "trust",
               "society", "federation", "league"}),
    frozenset({"court", "jury", "judge", "prosecutors", "prosecution", "defence", "defense", "police"}),
    frozenset({"school", "schools", "district", "university", "college"}),
    frozenset({"hospital", "hospitals", "clinic", "health"}),
)


def _bodies(words: set[str]) -> set[int]:
    return {i for i, kind in enumerate(_KINDS_OF_BODY) if words & kind}


def _same(mine: list[Entity], theirs: list[Entity], text: str = "") -> bool:
    """Whether two texts may name the same person or organisation: by any word of a name ("Ruiz" is "Ana
    Ruiz"), or the claim's `text` names one the sentence does in any words. An organisation named by what it is
    ("the council") may be any named one, unless the named one says it is something else (an association is no
    county); two organisations of government ("the city", "the council") may be one."""
    words = set().union(*(entity.words for entity in theirs)) | set(_normal(text))
    if any(entity.words & words for entity in mine):
        return True
    mine_words, theirs_words = set().union(*map(_kind_word, mine)), set().union(*map(_kind_word, theirs))
    if all(e.generic for e in (*mine, *theirs)) and mine_words and theirs_words and not (
            mine_words & theirs_words) and not (mine_words | theirs_words) & _UMBRELLAS:
        return False  # (a board is not an authority, though the city may be either)
    mine_kinds, theirs_kinds = _bodies(mine_words), _bodies(theirs_words)
    if mine_kinds & theirs_kinds:
        return True  # (a city's department is the city; "the company" may be any business)
    generic = any(e.generic for e in mine) or any(e.generic for e in theirs)
    return generic and not (mine_kinds and theirs_kinds)


def _kind_word(entity: Entity) -> set[str]:
    """What an organisation says it is: the last word of its name ("Westerholt County": county)."""
    last = entity.text.split()[-1].lower().removesuffix("'s").removesuffix("’s") if entity.text else ""
    return {last} & lexicon().organisations


# --- actors --------------------------------------------------------------------------------------------------

def _actors(said: Statement, aligned: tuple[ClaimRef, ...], pool: list[ClaimRef], place: Place,
            context: Context) -> list[Disagreement]:
    """A clause that names a person or organisation where the claim clause it matches names another; a
    source given to one who is not its author ("according to the city housing department")."""
    refs = list(aligned) or pool
    problem = _attributed(said, refs, context)
    if problem is not None:
        return [problem]
    for index, clause in enumerate(said.clauses):
        named = _named(said, outside_quotes=True, clause=index)
        if not named:
            continue
        match = _matching_clause(clause, refs)
        if match is None:
            continue
        ref, other = match
        stated = claim_statement(ref.text)
        theirs_all = _named(stated, outside_quotes=True, clause=stated.clauses.index(other))
        for kind, mine in named.items():
            theirs = theirs_all.get(kind)
            if not theirs:
                continue
            everyone = [e for e in said.entities if e.clause == index and e.kind == kind]
            if not all(e.generic for e in (*mine, *theirs)):  # a named one: who comes first in each
                mine, theirs = _first(said, index, mine), _first(stated, stated.clauses.index(other), theirs)
                if not mine or not theirs or _same(theirs, everyone):
                    continue  # (the claim's first one is in the sentence too, in another place: no telling)
            if len(everyone) > 1 and any(e.generic for e in everyone) or all(e.generic for e in (*mine, *theirs)) and (
                    len(theirs) > 1):
                continue  # an organisation named by what it is beside another in one clause: which is which, no telling
            if not _same(mine, theirs, ref.text):
                entity = mine[0]
                return [Disagreement("LP036", entity.start, entity.start + len(entity.text),
                                     f"the sentence names '{entity.text}' where the claim it rests on names "
                                     f"'{theirs[0].text}' ({ref.named}: \"{_short(ref.text)}\"): expected who the "
                                     "claim says said or did it")]
    return []


def _first(statement: Statement, clause: int, entities: list[Entity]) -> list[Entity]:
    """The entity that opens its clause (its first four words): who says or does what the clause says."""
    opening = [t.start for t in statement.tokens if t.clause == clause][:4]
    return [e for e in entities if opening and e.start <= opening[-1]][:1]


_ACCORDING = re.compile(r"\baccording to\b", re.I)


def _attributed(said: Statement, refs: list[ClaimRef], context: Context) -> Disagreement | None:
    """"according to X": X must be a source the sentence's claims come from (their manifest's title, or a name
    the claims give)."""
    found = _ACCORDING.search(said.text)
    if found is None:
        return None
    after = [e for e in said.entities if e.start >= found.end() and e.start - found.end() <= 12]
    if not after or not refs:
        return None
    entity = after[0]
    if entity.generic and entity.words & _GOVERNMENT:
        return None  # "according to the state": a government may publish under any of its names
    known = set()
    for ref in refs:
        known |= set(_normal(ref.title)) | set(_normal(ref.text))
        for other in context.claims.refs.get(ref.manifest_id, ()):
            known |= set(_normal(other.text))
    if entity.words & known:
        return None
    ref = refs[0]
    return Disagreement("LP036", entity.start, entity.start + len(entity.text),
                        f"the sentence gives its source as '{entity.text}', which is not who the claim comes from "
                        f"({ref.named}): expected the source the manifest names")


# --- senses: negation, opposites, certainty ------------------------------------------------------------------

def _senses(said: Statement, aligned: tuple[ClaimRef, ...], pool: list[ClaimRef], row: bool = False) -> list[Disagreement]:
    """Each clause's sense against the claim clauses it speaks of; a table row's cells are one statement
    ("French; 2,115; up 9%": the "up" is said of French)."""
    refs = list(aligned) or pool
    if not refs:
        return []
    combined = list(aligned)  # what one claim proposes, another may say was done
    found = []
    whole = set().union(*(clause.stems for clause in said.clauses)) if row else set()
    for index, clause in enumerate(said.clauses):
        if row and clause.senses and sum(t[0] != "#" for t in clause.stems) < MIN_CLAUSE:  # (a cell: "up 9%")
            clause = replace(clause, stems=whole)
        problem = _turned(said, index) or _flipped(said, index, clause, [*aligned, *(r for r in pool if r not in aligned)])
        if problem is None and len(clause.stems) >= MIN_CLAUSE:
            match = _matching_clause(clause, refs) or _matching_clause(clause, pool)
            if match is not None:
                problem = _opposed(said, index, clause, match[1], match[0], combined)
        if problem is not None:
            found.append(problem)
    return found


def _turned(said: Statement, index: int) -> Disagreement | None:
    """A change said one way of figures that run the other: "edged down from 52.3% to 52.6%"."""
    clause = said.clauses[index]
    side = clause.senses.get("direction")
    if not side:
        return None
    mine = [q for q in said.quantities if said.clause_at(q.start) == index]
    for first, second in zip(mine, mine[1:]):
        between = said.text[first.end:second.start].lower()
        before = said.text[max(0, first.start - 6):first.start].lower()
        if first.unit != second.unit or first.value == second.value:
            continue
        if before.rstrip().endswith("from") and between.strip() == "to":
            rise = second.value > first.value
        elif before.rstrip().endswith("to") and between.strip() == "from":
            rise = first.value > second.value
        else:
            continue
        if rise != (side > 0):
            start, end = _clause_span(said, index)
            return Disagreement("LP033", start, end,
                                f"the sentence says '{clause.sense_words['direction']}' of a change from "
                                f"'{(first if before.rstrip().endswith('from') else second).text}' to "
                                f"'{(second if before.rstrip().endswith('from') else first).text}', which is a "
                                f"{'rise' if rise else 'fall'}: expected the direction its figures show")
    return None


def _flipped(said: Statement, index: int, clause, refs: list[ClaimRef]) -> Disagreement | None:
    """An opposite word where the claim clauses this one speaks of say the other: of all the claim clauses it
    shares words with, one says the opposite and shares words with it that none saying the same shares
    ("convicts him of embezzlement and forgery" where he was acquitted of forgery)."""
    if not clause.senses:
        return None
    near = []
    for ref in refs:
        stated = claim_statement(ref.text)
        for other in stated.clauses:
            shared = clause.stems & other.stems
            words = [term for term in shared if term[0] != "#" or not _year(term)]
            if len(words) >= MIN_CLAUSE and len(shared) >= 0.25 * min(len(clause.stems), len(other.stems)):
                near.append((len(shared), shared, ref, other, stated))
    for name, side in clause.senses.items():
        if not side or name == "approval" and _SOME_OF.match(said.text, _clause_span(said, index)[0]):
            continue  # ("two council members voted against" what the council approved: some of it, not its decision)
        opposite = [n for n in near if n[3].senses.get(name) == -side and _same_subject(name, said, index, n[4], n[3])]
        same = [n for n in near if n[3].senses.get(name) == side]
        if not opposite:
            continue
        best = max(opposite, key=lambda n: n[0])
        only = best[1] - set().union(*(n[1] for n in same)) if same else best[1]
        if same and not any(term[0] != "#" for term in only):
            continue
        ref, other = best[2], best[3]
        start, end = _clause_span(said, index)
        return Disagreement("LP033", start, end,
                            f"the sentence says '{clause.sense_words[name]}' where the claim it rests on says "
                            f"'{other.sense_words[name]}' ({ref.named}: \"{_short(ref.text)}\"): expected what the "
                            "claim states")
    return None


def _matching_clause(clause, refs: list[ClaimRef]):
    """The clause of the claims that says most of what this one says (shares most words), if one shares enough."""
    best, best_shared = None, 0
    for ref in refs:
        for other in claim_statement(ref.text).clauses:
            shared = len(clause.stems & other.stems)
            if shared > best_shared:
                best, best_shared = (ref, other), shared
    if best is None or best_shared < MIN_CLAUSE:
        return None
    smaller = min(len(clause.stems), len(best[1].stems))
    return best if best_shared >= MIN_CLAUSE_SHARE * smaller else None


def _year(term: str) -> bool:
    """A number term that is a year or a small count: it names no fact on its own."""
    digits = term[1:]
    return digits.isdigit() and (len(digits) < 3 or 1800 <= int(digits) <= 2100)


_SUBJECT_BOUND = ("result", "comparison")
_SOME_OF = re.compile(r"\W*(?:the\s+|only\s+)?(?:\d+|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
                      r"several|some|many|few|a\s+few|most|half)\b", re.I)


def _same_subject(name: str, said: Statement, index: int, stated: Statement, other) -> bool:
    """For a sense that depends on who comes first ("A beat B"), whether both clauses name the same one first."""
    if name not in _SUBJECT_BOUND:
        return True
    mine = next((e for e in said.entities if e.clause == index), None)
    theirs = next((e for e in stated.entities if stated.clauses[e.clause] is other), None)
    return mine is not None and theirs is not None and bool(mine.words & theirs.words)


def _negations(statement: Statement) -> int:
    return sum(clause.negations for clause in statement.clauses)


def _opposed(said: Statement, index: int, clause, other, ref: ClaimRef, combined: list[ClaimRef]) -> Disagreement | None:
    """A clause that turns its claim clause round: an opposite word (after its negations), a negation alone
    where the two say the same otherwise, or a hedge dropped."""
    start, end = _clause_span(said, index)
    sign = -1 if clause.negations % 2 else 1
    other_sign = -1 if other.negations % 2 else 1
    stated = claim_statement(ref.text)
    comparative = bool(clause.senses) and bool(stated.superlatives)  # "no total has been higher": the highest
    denied = clause.negated & other.stems if sign < 0 else other.negated & clause.stems  # ("without a home": homeless)
    if -1 in (other.senses.values() if sign < 0 else clause.senses.values()):
        denied = set()  # ("can no longer be watered": "is banned")
    if sign != other_sign and denied and not (set(clause.senses) & set(other.senses)) and not comparative and (
            _close(clause, other, both=True) and _negations(said) % 2 != _negations(stated) % 2):
        what = "a negation the claim does not make" if sign < 0 else "no negation where the claim has one"
        return Disagreement("LP033", start, end, f"the sentence has {what} ({ref.named}: \"{_short(ref.text)}\"): "
                            "expected what the claim states, not its opposite")
    if sign == other_sign and _about(clause, other) and (_overstated(said, clause, stated) or _modal_dropped(
            said, index, stated, stated.clauses.index(other))) and not any(
            _about(clause, c) and not c.possible and not c.intends for r in combined if r is not ref
            for c in claim_statement(r.text).clauses):
        done = any(c.done for c in said.clauses)
        return Disagreement("LP033", start, end,
                            f"the sentence states as {'done' if done else 'certain'} what the claim gives as "
                            f"{'possible or proposed' if stated.possible else 'intended'} ({ref.named}: "
                            f"\"{_short(ref.text)}\"): expected the claim's hedge (may, could, proposes, plans)")
    return None


_MAYBE, _SURELY = frozenset({"may", "might", "could", "possibly", "perhaps"}), frozenset({"will", "shall", "must"})


def _modal_dropped(said: Statement, index: int, stated: Statement, other: int) -> bool:
    """A clause that says "will" or "must" where the claim clause it matches says "may" or "could", and none of
    its words of possibility ("the agency will seek a court order" for "may seek")."""
    mine = {t.word for t in said.tokens if t.clause == index}
    theirs = {t.word for t in stated.tokens if t.clause == other}
    return bool(mine & _SURELY) and bool(theirs & _MAYBE) and not mine & _MAYBE


def _overstated(said: Statement, clause, stated: Statement) -> bool:
    """A possibility (may, proposes) stated as what will be or was; an intention (plans to, would) as what was
    done. (Another claim the sentence rests on may say it was done: the caller asks.)"""
    if said.hedged:
        return False
    if stated.possible:
        return clause.asserts or clause.done
    intends = any(c.intends for c in stated.clauses) and not any(c.done for c in stated.clauses)
    return intends and clause.done and not said.attributes


def _about(clause, other) -> bool:
    """Whether two clauses speak of the same thing: they share two words, one of them no name, and half the
    shorter one's."""
    shared = clause.stems & other.stems
    names = clause.capitals | other.capitals
    return len(shared) >= 2 and bool(shared - names) and len(shared) >= 0.4 * min(len(clause.stems), len(other.stems))


def _close(clause, other, both: bool = False) -> bool:
    """Whether two clauses say nearly the same: most of the shorter one's words (of each, with `both`) shared."""
    shared = len(clause.stems & other.stems)
    sizes = (len(clause.stems), len(other.stems))
    return shared >= 2 and shared >= 0.55 * (max(sizes) if both else min(sizes))


def _clause_span(said: Statement, index: int) -> tuple[int, int]:
    tokens = [t for t in said.tokens if t.clause == index and t.word not in ",;:()"]
    if not tokens:
        return 0, len(said.text)
    return tokens[0].start, tokens[-1].start + len(tokens[-1].text)


# --- superlatives and absolutes ------------------------------------------------------------------------------

_META = re.compile(r"\b(?:figures?|numbers?|data|documents?|sources?|statements?|reports?)\b", re.I)
_TALLY = re.compile(r"\b\d+\s*(?:-|–|to)\s*0\b|\bunanimous")


def _superlatives(said: Statement, pool: list[ClaimRef], place: Place, context: Context) -> list[Disagreement]:
    """A superlative or absolute must be one a cited claim states (one of the same group of lexicon.yaml); a
    hedged sentence ("may be the first") states none, nor one about the sources ("every figure comes from the
    company")."""
    if said.possible:
        return []
    found = []
    words = lexicon()
    meta = bool(_META.search(said.text))
    for kind, marks, groups in (("superlative", said.superlatives, words.superlatives),
                                ("absolute", said.absolutes, words.absolutes)):
        for group, (text, at) in marks.items() if not (meta and kind == "absolute") else ():
            if any(group in _marks(ref.text, kind) for ref in pool):
                continue
            if kind == "superlative" and group in (1, 2) and _bounded(said, pool, "under" if group == 1 else "least"):
                continue  # "the longest input it accepts, 256,000 tokens": the claim's "up to 256,000 tokens"
            if kind == "absolute" and text.lower().startswith("unanim") and any(_TALLY.search(r.text) for r in pool):
                continue  # a vote of 5-0 is unanimous
            unlisted = next((ref for ref in context.claims.unlisted(place.cited) if group in _marks(ref.text, kind)), None)
            if unlisted is not None:
                found.append(_unlisted(at, at + len(text), f"'{text}'", unlisted))
                continue
            found.append(Disagreement("LP035", at, at + len(text),
                                      f"'{text}' is not stated by the claims {_cited(place, context)}: expected "
                                      f"{'a superlative' if kind == 'superlative' else 'an absolute'} only where a "
                                      "cited claim states it"))
    return found


def _bounded(said: Statement, pool: list[ClaimRef], hedge: str) -> bool:
    """Whether a figure of the sentence is one a claim gives as a limit ("up to 256,000": the most; "at least
    40": the fewest): the sentence's superlative then names that limit."""
    return any(other.hedge == hedge and comparable(mine, other) and agrees(mine, other)
               for mine in said.quantities for ref in pool for other in claim_statement(ref.text).quantities)


def _marks(text: str, kind: str) -> dict:
    """The superlatives or absolutes a claim states (read as a sentence's are: "every quarter" is none)."""
    stated = claim_statement(text)
    return stated.superlatives if kind == "superlative" else stated.absolutes


def _short(text: str, size: int = 120) -> str:
    text = " ".join(text.split())
    return text if len(text) <= size else text[:size - 1].rstrip() + "…"


def published_days(moments: Iterable) -> list[tuple[int, int, int]]:
    import datetime as dt
    days = []
    for moment in moments:
        for day in {moment.date(), moment.astimezone(dt.timezone.utc).date()}:
            days.append((day.year, day.month, day.day))
    return days
