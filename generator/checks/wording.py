"""A text's distinctive wording, for LP032 and the evidence a reader sees: its words without stop words (the
`stop-words` package's English list), reduced to their Snowball stems (`snowballstemmer`), so that 'voted',
'votes' and 'vote' are one term and 'the', 'which', 'said' none. Terms are small integers: a story's words
are found and hashed by the same array operations LP040 runs on its body (analysis.similarity.tokens, which
keeps that body's words for it), and each distinct word is stemmed once per process. A term's number is a
hash of its stem, the same in every process and at every moment, so that the tables that find it again can
be emptied whenever they grow large, with no term set held anywhere left in another numbering."""

from __future__ import annotations

import functools
import hashlib
import re

import numpy as np
import snowballstemmer
from stop_words import get_stop_words

from ..analysis.similarity import Words, tokens, words
from ..content.body import LINK_TARGETS, Body

_STEMMER = snowballstemmer.stemmer("english")
_STOP = frozenset(get_stop_words("en")) | {"http", "https", "www", "com", "org"}
_TARGET = re.compile(LINK_TARGETS.pattern.encode())  # (over a body's UTF-8 bytes)
_NONE, _UNKNOWN = -1, -2


class _Vocabulary:
    """Word hash -> term id (-1: no term) in a direct-mapped table looked up for a whole body at once (a word
    whose slot another holds goes to a dict); stem -> term id; and word -> term id for short texts."""

    BITS = 18

    def __init__(self) -> None:
        self.codes = np.zeros(1 << self.BITS, dtype=np.uint64)  # 0: empty (analysis.similarity never hashes to 0)
        self.terms = np.full(1 << self.BITS, _UNKNOWN, dtype=np.int64)
        self.overflow: dict[int, int] = {}
        self.stems: dict[str, int] = {}
        self.words: dict[str, int] = {}

    def lookup(self, words: Words) -> np.ndarray:
        """The term id of each word."""
        codes = words.codes
        slots = (codes & np.uint64((1 << self.BITS) - 1)).astype(np.intp)
        found = np.where(self.codes[slots] == codes, self.terms[slots], _UNKNOWN)
        missing = np.flatnonzero(found == _UNKNOWN)
        for i in missing.tolist():
            code = int(codes[i])
            term = self.overflow.get(code)
            if term is None:
                slot = int(slots[i])
                if self.codes[slot] == code:
                    term = int(self.terms[slot])
                else:
                    term = self.term(words.word(i))
                    if self.codes[slot] == 0:
                        self.codes[slot], self.terms[slot] = code, term
                    else:
                        self.overflow[code] = term
            found[i] = term
        return found

    def term(self, word: str) -> int:
        if len(word) < 2 or word in _STOP:
            return _NONE
        stem = word if word.isdigit() else _STEMMER.stemWord(word)
        found = self.stems.get(stem)
        if found is None:
            found = self.stems[stem] = _numbered(stem)
        return found

    def bounded(self) -> _Vocabulary:
        """This vocabulary, emptied first if it has grown large (a preview server checks for hours)."""
        if len(self.overflow) > MAX_OVERFLOW or len(self.stems) > MAX_STEMS or len(self.words) > MAX_STEMS:
            self.__init__()
        return self


def _numbered(stem: str) -> int:
    """A stem's term: 63 bits of its hash (never negative, so never _NONE or _UNKNOWN)."""
    return int.from_bytes(hashlib.blake2b(stem.encode(), digest_size=8).digest(), "little") >> 1


_VOCABULARY = _Vocabulary()
MAX_STEMS, MAX_OVERFLOW = 1 << 22, 1 << 20  # past either, the tables are emptied (the terms stay the same)


@functools.lru_cache(maxsize=1 << 14)
def text_terms(text: str) -> frozenset[int]:
    """The terms of one short text (a claim, a title, a passage on its own), from its words as
    analysis.similarity.words splits them (as `tokens` finds them in a body, without the arrays, which cost
    more than they save on a sentence)."""
    vocabulary = _VOCABULARY.bounded()
    known, term = vocabulary.words, vocabulary.term
    found = set(map(known.get, words(text)))
    if None in found:
        found = {known[word] if word in known else known.setdefault(word, term(word)) for word in words(text)}
    found.discard(_NONE)
    found.discard(None)
    return frozenset(found)


_LAST: list = []  # the last body's unit terms: its rules and then its evidence ask for them, in one process


def unit_terms(body_text: str, body: Body, body_line: int) -> list[set[int]]:
    """The terms of each of a body's units (body.units order), from one pass over the body's words (those
    analysis.similarity finds for LP040, found once for both): a unit's words are those of its own lines;
    link targets are no wording."""
    key = (id(body), body_text)
    if _LAST and _LAST[0] == key:
        return _LAST[1]
    body_words = tokens(body_text)
    term = _VOCABULARY.bounded().lookup(body_words)
    if b"](" in body_words.data or b"<" in body_words.data:
        term[_in_targets(body_words)] = _NONE
    newlines = np.flatnonzero(np.frombuffer(body_words.data, dtype=np.uint8) == 10)
    bounds = np.concatenate(([0], newlines + 1, [len(body_words.data) + 1]))  # where each body line starts
    owners, rows = [], []
    for index, unit in enumerate(body.units):
        # each line once: a table row's cells all name its line, and 20,000 cells made this quadratic
        for line in dict.fromkeys(line for line, _col, _text in unit.source):
            if 0 <= line - body_line - 1 < bounds.size - 1:
                owners.append(index)
                rows.append(line - body_line - 1)
    rows_at = np.array(rows, dtype=np.intp)
    firsts = np.searchsorted(body_words.starts, bounds[rows_at]).tolist()
    lasts = np.searchsorted(body_words.starts, bounds[rows_at + 1]).tolist()
    terms = term.tolist()
    found: list[set[int]] = [set() for _ in body.units]
    for index, first, last in zip(owners, firsts, lasts):
        found[index].update(terms[first:last])
    for each in found:
        each.discard(_NONE)
    _LAST[:] = [key, found]
    return found  # type: ignore[return-value]


def _in_targets(words: Words) -> np.ndarray:
    """Per word, whether it lies inside a link target `](…)`, an autolink `<scheme:…>` or a tag."""
    spans = [match.span() for match in _TARGET.finditer(words.data)]
    if not spans:
        return np.zeros(words.starts.size, dtype=bool)
    starts = np.array([start for start, _ in spans])
    ends = np.array([end for _, end in spans])
    at = np.searchsorted(starts, words.starts, side="right") - 1
    return (at >= 0) & (words.starts < ends[np.maximum(at, 0)])


def stem_words(text: str, terms: frozenset[int]) -> list[str]:
    """The words of text (lower-cased, in order, once) whose terms are among `terms`: what a finding quotes."""
    words = tokens(text, keep=False)
    found = _VOCABULARY.lookup(words)
    shown = [words.word(i) for i in np.flatnonzero(np.isin(found, list(terms))).tolist()]
    return list(dict.fromkeys(shown))
