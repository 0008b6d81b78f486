"""What a sentence or a claim states, read closely enough to compare the two (checks.meaning): its words in
clauses, its quantities and dates (checks.quantities), the people and organisations it names, what it quotes,
and the words that turn its meaning: negations, opposites, hedges, superlatives and absolutes (lexicon.yaml).
A claim is read once per process; a sentence only when it holds something to compare (`worth_reading`)."""

from __future__ import annotations

import bisect
import functools
import itertools
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

import snowballstemmer
from stop_words import get_stop_words

from .lexicon import Lexicon, lexicon
from .quantities import FUNCTION as _FUNCTION, Quantity, When, quantities

_STEMMER = snowballstemmer.stemmer("english")
_STOP = frozenset(get_stop_words("en")) | {"said", "says", "also", "would", "will", "per", "cent", "percent"}

# Numbers whole (12,500 and 3.2 are one token), words with their inner hyphens, apostrophes and digits (NO2 is
# no 'no'), and the marks that end a clause.
_TOKEN = re.compile(r"\d+(?:[.,]\d+)*|[^\W\d_][^\W_]*(?:[-'’][^\W_]+)*|[^\W_]+|[;:,()\[\]\u2014\u2013?!]")
_BREAKS = frozenset(";:,()[]\u2014\u2013?!")
BORROWED = 64  # the words each side a figure's frame may reach: a table's row, never a whole long text
_OPENERS = frozenset({"at", "in", "for", "among", "across", "on", "by", "within", "outside", "inside"})
_JOINS = frozenset({"but", "while", "whereas", "although", "though", "however", "and", "or", "which",
                    "who", "whose", "where", "when", "because", "as", "than", "so", "that", "if", "unless",
                    "whether"})  # ("since", "after", "until": mostly before a date, which belongs to its clause)
_QUOTE = re.compile(r"[\"“”]([^\"“”]{1,2000})[\"“”]|(?<![\w’'])[‘']([^‘’'\n]{2,2000}?)[’'](?![\w‘’'])")
_MARKS = re.compile(r"[\d\"“”‘’]")
_NAMED = re.compile(r" [A-Z]")
_PLAIN = re.compile(r"[a-z]+(?:[-'][a-z]+)*")
_TRAILING = frozenset({"up", "down", "rising", "falling", "dropping", "climbing", "declining", "compared", "higher",
                       "lower"})
_NUMBERS = frozenset("two three four five six seven eight nine ten twelve twenty fifty hundred".split())
_LINKS = frozenset({"of", "for", "and", "&", "de", "la", "van", "von", "der", "du", "le"})  # inside a name


def plain_words(text: str) -> frozenset[str]:
    """A text's words, lower-cased, as the word lists match them (every word of lexicon.yaml is plain ASCII)."""
    return frozenset(_PLAIN.findall(text.lower().replace("’", "'")))


def worth_reading(text: str, words: frozenset[str] | None = None) -> bool:
    """Whether a sentence holds anything the meaning checks compare: a digit, a quotation mark, a capitalised
    word after a word, or a word of lexicon.yaml (`words`: its `plain_words`, when already found)."""
    if _MARKS.search(text) or any(m.start() and text[m.start() - 1].isalnum() for m in _NAMED.finditer(text)):
        return True  # (a capital after a word, not after a sentence's end: "the Harbor Board")
    return not lexicon().marked.isdisjoint(plain_words(text) if words is None else words)


@functools.lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    return _STEMMER.stemWord(word)


@dataclass(frozen=True)
class Token:
    text: str    # as written
    word: str    # lower-cased, curly apostrophes straightened
    start: int
    clause: int


@dataclass(frozen=True)
class Quote:
    start: int
    end: int
    text: str    # as written, between the marks


@dataclass(frozen=True)
class Entity:
    """A person or an organisation a text names: its words (lower-cased; a person's without titles), where it
    starts; `generic` when named only by what it is ("the association")."""

    kind: str    # "person" | "organisation"
    words: frozenset[str]
    start: int
    text: str
    clause: int
    generic: bool = False


@dataclass
class Clause:
    """One clause of a text: its content stems, and the marks of meaning it holds."""

    stems: set[str] = field(default_factory=set)
    capitals: set[str] = field(default_factory=set)  # the stems of its words written capitalised (names)
    negations: int = 0
    negated: set[str] = field(default_factory=set)  # the stems of the words just after its negations
    senses: dict[str, int] = field(default_factory=dict)   # opposites entry -> +1 / -1 (0: both), negations applied
    sense_words: dict[str, str] = field(default_factory=dict)
    possible: bool = False   # hedges: may, could, proposes
    intends: bool = False    # plans, expects, will
    asserts: bool = False    # will, approved: says it is or will be so
    done: bool = False       # approved, has: says it is done


@dataclass
class Statement:
    """A text read closely. Offsets are into `text`."""

    text: str
    tokens: list[Token]
    clauses: list[Clause]
    quantities: list[Quantity]
    whens: list[When]
    quotes: list[Quote]
    entities: list[Entity]
    superlatives: dict[int, tuple[str, int]]   # lexicon group -> (word as written, offset)
    absolutes: dict[int, tuple[str, int]]
    attributes: bool = False   # says who said it (said, according to)
    hedged: bool = False       # a clause hedges (may, could, if, plans, expects)
    possible: bool = False     # a clause gives it as possible (may, could, if)

    def clause_at(self, offset: int) -> int:
        """The clause of the token at or before this offset."""
        at = bisect.bisect_right(self._starts, offset)
        return self.tokens[at - 1].clause if at else 0

    @functools.cached_property
    def _starts(self) -> list[int]:
        return [token.start for token in self.tokens]

    @functools.cached_property
    def _nearby(self) -> tuple[list[int], list[Token]]:
        """The tokens a figure may be said of (`_near`), and where each starts."""
        found = [token for token in self.tokens if _near(token.word)]
        return [token.start for token in found], found

    def named_before(self, offset: int) -> set[str]:
        """The name written last before a place in the sentence ("Port Avery ... got 9.8 inches"): what a figure
        there is most likely said of, as "@" and the stems of its words."""
        starts, runs = self._names
        at = bisect.bisect_left(starts, offset)
        return set(runs[at - 1]) if at else set()

    @functools.cached_property
    def _names(self) -> tuple[list[int], list[frozenset[str]]]:
        """Where each capitalised word starts, and the run of names it ends (`named_before`)."""
        starts: list[int] = []
        runs: list[frozenset[str]] = []
        run: list[Token] = []
        last = -2
        for i, token in enumerate(self.tokens):
            if token.text[:1].isupper() and token.word not in _FUNCTION and token.word not in _BREAKS:
                if i != last + 1:
                    run = []
                run.append(token)
                last = i
                starts.append(token.start)
                runs.append(frozenset("@" + stem(t.word.removesuffix("'s")) for t in run))
        return starts, runs

    def quoted(self, offset: int) -> bool:
        return any(quote.start <= offset < quote.end for quote in self.quotes)

    def window(self, offset: int, end: int, size: int = 3) -> set[str]:
        """The stems of the content words nearest a place in the text, `size` on each side in its clause: what
        a figure or date there is said of; when its clause has none, all the text's (a table's cell is said of
        its row)."""
        clause = self.clause_at(offset)
        starts, nearby = self._nearby
        first, last = bisect.bisect_left(starts, offset), bisect.bisect_left(starts, end)
        # A clause's words are next to one another: read out from the figure until the clause ends, never the
        # whole text (a claim of a MiB holds tens of thousands of figures).
        own = [t for t in itertools.islice(itertools.takewhile(lambda t: t.clause == clause,
                                                               reversed(nearby[max(0, first - BORROWED):first])), size)]
        own += itertools.islice(itertools.takewhile(lambda t: t.clause == clause, nearby[last:last + BORROWED]), size)
        if own:
            return {_term(t) for t in own}
        around = (*nearby[max(0, first - BORROWED):first], *nearby[last:last + BORROWED])
        return {"~", *(_term(t) for t in around)}  # "~": words borrowed from the clauses around


def _near(word: str) -> bool:
    """A word that says what a figure near it is of: a content word, or a year ("the first quarter of 2026")."""
    return _content(word) or len(word) == 4 and word.isdigit() and 1800 <= int(word) <= 2100


def _term(token: Token) -> str:
    """A word near a figure as its frame holds it: a year as '#2026', a name as '@' and its stem (a name says
    less surely what a figure measures than a common word: it is on every figure of its sentence)."""
    word = token.word
    if word[0].isdigit():
        return "#" + word.replace(",", "")
    return ("@" if token.text[:1].isupper() and token.start else "") + stem(word.removesuffix("'s"))


def _content(word: str) -> bool:
    return word not in _FUNCTION and not word[0].isdigit() and len(word) > 1 and word not in _BREAKS


def content_stems(text: str) -> frozenset[str]:
    """The stems of a text's words that are not stop words or numbers: what alignment compares."""
    found = frozenset(map(_content_stem, _TOKEN.findall(text.lower().replace("’", "'"))))
    return found - {""} if "" in found else found


@functools.lru_cache(maxsize=1 << 16)
def _content_stem(word: str) -> str:
    return stem(word) if word not in _STOP and _content(word) else ""


@functools.lru_cache(maxsize=1 << 14)
def claim_statement(text: str) -> Statement:
    """A claim as read: claims are cited by many stories, each is read once."""
    return read(text, lenient=True)


def read(text: str, known: Mapping[str, str] | None = None, lenient: bool = False) -> Statement:
    """Read a text closely. `known`: the words of the people and organisations its sources name, and which each
    is (a name a sentence gives alone, "Ruiz", is one of them)."""
    known = known or {}
    words = lexicon()
    tokens = _tokens(text)
    quotes = _quotes(text)
    clauses = [Clause() for _ in range(max(t.clause for t in tokens) + 1)] if tokens else [Clause()]
    lowered = [token.word for token in tokens]
    superlatives: dict[int, tuple[str, int]] = {}
    absolutes: dict[int, tuple[str, int]] = {}
    attributes = False
    skip_to = 0  # a phrase that is no negation ("not only") covers the tokens before this one
    for i, token in enumerate(tokens):
        clause = clauses[token.clause]
        word = token.word
        if word in _BREAKS:
            continue
        if _content(word):
            clause.stems.add(stem(word))
            if token.text[0].isupper() and i and tokens[i - 1].word not in (":", ";", "(", "?", "!"):
                clause.capitals.add(stem(word))
        elif word[0].isdigit():
            clause.stems.add("#" + word.replace(",", ""))  # a number says which fact a clause is about
        if word.endswith("n't") and i >= skip_to:
            clause.negations += 1
            clause.negated |= _following(tokens, i + 1)
        if word not in words.index or i < skip_to:
            continue
        in_quote = bool(quotes) and any(quote.start <= token.start < quote.end for quote in quotes)
        counted: set[str] = set()  # each kind of list counts the longest entry at a token, once
        for key, length in words.at(lowered, i):
            kind = key[0]
            if kind in counted:
                continue
            counted.add(kind)
            if kind == "not_negation":
                skip_to = i + length
                break
            if kind == "negator":
                clause.negations += 1
                clause.negated |= _following(tokens, i + length)
            elif kind == "opposite":
                negated = _negated(tokens, i, words)
                side = -key[2] if negated else key[2]
                before = clause.senses.get(key[1])
                clause.senses[key[1]] = side if before in (None, side) else 0
                clause.sense_words.setdefault(key[1], "not " * negated + " ".join(t.text for t in tokens[i:i + length]))
                counted.discard(kind)  # (a word may be in several entries)
            elif kind in ("possible", "intends", "asserts", "done"):
                setattr(clause, kind, True)
            elif kind == "attributes":
                attributes = True
            elif (lenient or not in_quote) and _superlative(lowered, i, length, words):
                found = superlatives if kind == "superlative" else absolutes
                found.setdefault(key[1], (" ".join(t.text for t in tokens[i:i + length]), token.start))
    found, whens = quantities(text, frozenset(lowered))
    return Statement(text, tokens, clauses, found, whens, quotes, _entities(tokens, words, known, lenient), superlatives,
                     absolutes, attributes, any(clause.possible or clause.intends for clause in clauses),
                     any(clause.possible for clause in clauses))


def _following(tokens: list[Token], start: int) -> set[str]:
    """The stems of the first two content words from `start` in its clause: what a negation there denies."""
    found = []
    for token in tokens[start:start + 5]:
        if token.clause != tokens[start - 1].clause or len(found) == 2:
            break
        if _content(token.word):
            found.append(stem(token.word))
    return set(found)


def _negated(tokens: list[Token], i: int, words: Lexicon) -> bool:
    """Whether a negation stands just before the word at i, in its clause ("did not approve", "has never been
    approved"): what the word says is then turned round."""
    lowered = [token.word for token in tokens]
    for j in range(i - 1, max(-1, i - 4), -1):
        if tokens[j].clause != tokens[i].clause:
            return False
        if lowered[j].endswith("n't") or words.negators.find(lowered, j) and not words.not_negation.find(lowered, j):
            return True
    return False


def _superlative(lowered: list[str], i: int, length: int, words: Lexicon) -> bool:
    """Whether the entry at token i reads as a superlative or absolute: "first quarter", "the council's record",
    "only 12", "not all" and "all of that" do not."""
    word = lowered[i]
    before = lowered[i - 1] if i else ""
    after = lowered[i + length] if i + length < len(lowered) else ""
    if before in ("not", "nearly", "almost", "virtually", "practically", "near"):
        return False
    if lowered[i:i + 2] == ["the", "most"]:
        return length == 2 and after[:1].isalpha() and after not in ("of", "in", "to", "from", "on", "for")
    if length > 1:
        return True
    if word == "first":
        return before in ("the", "its", "their", "was", "is", "became") and after not in words.ordinal_after and (
            "to" in lowered[i + 1:i + 5] or after in ("", "time", "ever"))
    if word == "record":
        return before in ("new", "set", "broke", "break", "breaking", "beat", "all-time") or after[:1].isdigit() or (
            before == "a" and after not in ("of", "is", "was", "becomes", "became", "shows", "showed", "says", "said",
                                            "that", "for", "from", "in", "on", "and", ",", "")) or after in (
            "high", "low", "highs", "lows", "level", "levels", "number", "numbers", "year", "turnout", "amount",
            "temperature", "temperatures", "sales", "profit", "profits", "revenue", "demand", "heat", "rainfall",
            "quarter", "month", "season", "total", "share", "margin", "crowd", "attendance", "pace", "time")
    if word in ("only", "sole", "lone"):
        return before in ("the", "its", "their", "his", "her", "our") and after[:1].isalpha()
    if word == "all":
        if after == "of" and before not in ("they", "we", "you", "it", "them", "these", "those", "both"):
            return (lowered[i + 2] if i + 2 < len(lowered) else "") in ("the", "its", "their", "his", "her")
        if before in ("they", "we", "you", "it", "them", "these", "those", "both", "of", "across", "among", "in",
                      "for", "from", "with"):
            return False  # "they all point the same way", "24.8% of all entries": a set already given
        return after not in ("that", "this", "these", "those", "it", "them", "but", "", ",", "along", "over", "told",
                             "around", "the") and before != "at"
    if word == "every":
        return before not in ("with", "for", "per") and after not in ("day", "week", "month", "year", "hour", "minute",
                                                                     "weekday", "weekend", "time", "quarter", "season",
                                                                     "election", "meeting", "session", "term",
                             "other", "few", "two", "three", "four", "five", "six", "ten", "summer", "winter")
    if word == "each":
        return False  # (a claim's "each" states what "every" does; a sentence's is no absolute)
    if word in ("top", "bottom", "best", "worst", "maximum", "minimum", "least"):
        return before in ("the", "its", "their", "a", "an", "was", "is") and after not in ("of", "up", "out") and not (
            after[:1].isdigit() or after in _NUMBERS)
    return True


def _tokens(text: str) -> list[Token]:
    """The text's tokens, each with the clause it is in: a clause ends at a mark (; : , ( ) — ? !) or before a
    word that joins clauses (but, while, which...)."""
    tokens: list[Token] = []
    clause, opened, first = 0, False, 0  # (first: where the clause begins, in tokens)
    for match in _TOKEN.finditer(text):
        raw = match[0]
        word = raw.lower().replace("’", "'")
        if word in _BREAKS:
            # (a comma after a short opening phrase ends no clause: "At state schools, 19.7% passed")
            if opened and not (word == "," and tokens[first].word in _OPENERS and len(tokens) - first <= 4):
                clause, opened, first = clause + 1, False, len(tokens) + 1
            tokens.append(Token(raw, word, match.start(), clause))
            continue
        if not opened and word in _TRAILING and tokens and tokens[-1].word == ",":
            clause -= 1  # ", up from 2,731": the change belongs to the clause before the comma
            tokens[-1] = Token(tokens[-1].text, ",", tokens[-1].start, clause)
            opened = True
        if word in _JOINS and opened and not (word in ("and", "or") and _joins_words(text, match.end())):
            clause, opened, first = clause + 1, False, len(tokens)
        tokens.append(Token(raw, word, match.start(), clause))
        opened = True
    return tokens


_NEXT = re.compile(r"\s+([^\W\d_][\w'-]*)")


def _joins_words(text: str, end: int) -> bool:
    """Whether an "and" or "or" joins words rather than clauses: a lower-case word of no list follows it
    ("embezzlement and forgery"), not a determiner, a name, a number or a verb of lexicon.yaml ("and fell")."""
    found = _NEXT.match(text, end)
    if found is None:
        return False
    word = found[1]
    return word[0].islower() and word not in _FUNCTION and word not in lexicon().index


def _quotes(text: str) -> list[Quote]:
    found = []
    for match in _QUOTE.finditer(text):
        inner = match[1] if match[1] is not None else match[2]
        start = match.start(1) if match[1] is not None else match.start(2)
        found.append(Quote(start, start + len(inner), inner))
    return found


def _entities(tokens: list[Token], words: Lexicon, known: Mapping[str, str], lenient: bool = False) -> list[Entity]:
    """The people and organisations a text names: runs of capitalised words, an organisation when one of them
    says so (Authority, Inc, Council), a person when a title stands before them (Mayor Ana Ruiz) or when the
    sources name the person so; a single capitalised word the sources give as a name is that name."""
    found = []
    i = 0
    while i < len(tokens):
        if not _capital(tokens[i]):
            i += 1
            continue
        end = i
        while end + 1 < len(tokens) and (_capital(tokens[end + 1]) or (
                tokens[end + 1].word in _LINKS and end + 2 < len(tokens) and _capital(tokens[end + 2]))):
            end += 1
        run = tokens[i:end + 1]
        first = i == 0 or tokens[i - 1].word in _BREAKS and tokens[i - 1].word not in ",()"
        titled = [t for t in run if t.word.removesuffix("'s") in words.titles]
        before = tokens[i - 1].word if i else ""
        name = frozenset(t.word.removesuffix("'s") for t in run
                         if t.word not in _LINKS and t.word.removesuffix("'s") not in words.titles
                         and t.word.removesuffix("'s") not in words.not_names and len(t.word) > 1)
        kinds = {known[word] for word in name if word in known}
        if first and len(run) == 1 and not kinds:
            name = frozenset()
        if name:
            last = run[-1].word.removesuffix("'s")
            if last in words.organisations or kinds == {"organisation"}:
                kind = "organisation"
            elif titled or before in words.titles or len(name) >= 2 and _speaks(tokens, i, end, words) or kinds:
                kind = "person"
            elif any(t.word.removesuffix("'s") in words.organisations for t in run):
                kind = "organisation"
            else:
                kind = ""
            following = tokens[end + 1].word if end + 1 < len(tokens) else ""
            if following in words.organisations:  # "Tamsworth Valley board", "the Authority's board"
                kind, name = "organisation", name | {following}
            if kind == "organisation":
                name = name | {t.word.removesuffix("'s") for t in run if t.word.removesuffix("'s") in words.organisations}
            if kind:
                found.append(Entity(kind, name, run[0].start, " ".join(t.text for t in run), run[0].clause))
        i = end + 1
    found.extend(_generic(tokens, words, lenient))
    return found


_MEMBERS = frozenset({"members", "member", "staff", "officials", "official", "workers", "spokesperson", "spokesman",
                      "spokeswoman", "survey", "leaders", "chair", "president", "lawyers", "lawyer", "said", "says"})
_DETERMINERS = frozenset({"the", "its", "their", "a", "an", "this", "that", "his", "her"})


def _generic(tokens: list[Token], words: Lexicon, lenient: bool) -> list[Entity]:
    """Organisations named by what they are: "the association", "the district attorney's office" (the words from
    the determiner to the organisation's word); in a claim (`lenient`), "612 association members" too."""
    found = []
    for j, token in enumerate(tokens):
        word = token.word.removesuffix("'s")
        if word not in words.generic_organisations or _capital(token) or j + 1 < len(tokens) and _capital(tokens[j + 1]):
            continue
        start = j
        while start > 0 and j - start < 3 and not _capital(tokens[start - 1]) and tokens[start - 1].word not in _BREAKS \
                and tokens[start - 1].word not in _DETERMINERS and _content(tokens[start - 1].word):
            start -= 1
        following = tokens[j + 1].word if j + 1 < len(tokens) else ""
        if start > 0 and tokens[start - 1].word in _DETERMINERS or lenient and following in _MEMBERS and not (
                start > 0 and _capital(tokens[start - 1])):
            named = frozenset(t.word.removesuffix("'s") for t in tokens[start:j + 1])
            found.append(Entity("organisation", named, tokens[start].start,
                                " ".join(t.text for t in tokens[start:j + 1]), token.clause, True))
    return found


def _capital(token: Token) -> bool:
    return token.text[:1].isupper() and token.word not in _BREAKS


def _speaks(tokens: list[Token], start: int, end: int, words: Lexicon) -> bool:
    """A run of names next to a word of saying: "said Ana Ruiz", "Ana Ruiz, the mayor, said"."""
    near = [t.word for t in tokens[max(0, start - 2):start]] + [t.word for t in tokens[end + 1:end + 6]]
    return any(word in words.speech for word in near)


def people(texts: list[str]) -> dict[str, str]:
    """The words of the people and organisations these texts (a story's sources) name, and which each is."""
    found: dict[str, str] = {}
    for text in texts:
        for entity in claim_statement(text).entities:
            for word in entity.words:
                found.setdefault(word, entity.kind)
    return found
