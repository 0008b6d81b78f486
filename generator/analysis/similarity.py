"""How alike two story bodies are: their words, word 5-shingles and exact Jaccard, and the features (a MinHash
signature and the most frequent candidate words) that the site-wide indexes compare."""

from __future__ import annotations

import re
import string
import sys
from array import array
from typing import NamedTuple

import numpy as np

from ..content.cites import CITE
from .minhash import sketch

SHINGLE = 5


CANDIDATE_TERMS = 48      # per story, the most frequent words among which the distinctive ones are chosen


_MARKS = string.punctuation + "“”‘’„‚—–―…«»‹›·•¡¿§¶†‡※"  # punctuation: what separates words besides spaces


_PUNCTUATION = {ord(mark): " " for mark in _MARKS}


# Per byte of UTF-8 text, 1 inside a word, 0 where words break (bytes of characters beyond ASCII are inside:
# those that separate are made spaces first): bytes.translate maps a body through it in one pass.
_INSIDE = bytes(0 if byte < 128 and (chr(byte).isspace() or chr(byte) in _MARKS) else 1 for byte in range(256))


_WIDE_BREAK = re.compile("[" + re.escape("".join(mark for mark in _MARKS if ord(mark) > 127)) + r"]|[^\S\x00-\x7f]")


_BASE = 0x100000001B3     # word hashes: a polynomial in this odd number over each word's bytes (mod 2**64)


_MIX = np.array([0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9, 0xD6E8FEB86659FD93,
                 0xFF51AFD7ED558CCD], dtype=np.uint64)


_STOP = frozenset("""about above after again against also among because been before being below between both
could does doing down during each from further have having here into itself just more most much must only other
over same says said should since some such than that their them then there these they this those through under
until very were what when where which while whom will with would your years year""".split())


def words(text: str) -> list[str]:
    """A body's words, lower-cased, without its citation markers (Markdown and other punctuation falls away)."""
    return CITE.sub(" ", text).lower().translate(_PUNCTUATION).split()


class Words(NamedTuple):
    """A body's words (those of `words`) as spans of its lower-cased UTF-8 bytes, each with a stable 64-bit
    hash: found and hashed by a few array operations, where a list of strings costs one object per word."""

    data: bytes
    starts: np.ndarray
    ends: np.ndarray
    codes: np.ndarray

    def word(self, i: int) -> str:
        return self.data[self.starts[i]: self.ends[i]].decode("utf-8")


def tokens(text: str, keep: bool = True) -> Words:
    """The words of `words(text)`, found as the runs of bytes between spaces and punctuation. The last texts'
    are kept (`keep`): reading a story, its wording check (LP032) and then its features here find the words
    of the same body."""
    kept = _KEPT.get(id(text)) if keep else None
    if kept is not None and kept[0] is text:
        return kept[1]
    found = _tokens(text)
    if keep:
        if len(_KEPT) >= _KEEP:
            del _KEPT[next(iter(_KEPT))]
        _KEPT[id(text)] = (text, found)
    return found


_KEEP = 2  # a story's body, and one more: the read of one story asks for no other text in between
_KEPT: dict[int, tuple[str, Words]] = {}  # id of a text -> (the text, its words)


def _tokens(text: str) -> Words:
    text = CITE.sub(" ", text).lower()
    if not text.isascii():
        text = _WIDE_BREAK.sub(" ", text)
    data = text.encode("utf-8")
    inside = np.frombuffer(b"\0" + data.translate(_INSIDE) + b"\0", dtype=bool)
    edges = np.flatnonzero(inside[1:] != inside[:-1])
    starts, ends = edges[0::2], edges[1::2]
    return Words(data, starts, ends, _hashes(data, starts, ends))


def _hashes(data: bytes, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Per span, its bytes as a polynomial in _BASE (prefix sums, so every span at once), length mixed in,
    then the splitmix64 finalizer; never 0."""
    powers, inverse = _powers(len(data) + 1)
    prefix = np.zeros(len(data) + 1, dtype=np.uint64)
    np.cumsum((np.frombuffer(data, dtype=np.uint8).astype(np.uint64) + 1) * powers[:len(data)], out=prefix[1:])
    value = (prefix[ends] - prefix[starts]) * inverse[starts] + (ends - starts).astype(np.uint64) * _MIX[0]
    value ^= value >> np.uint64(30)
    value *= np.uint64(0xBF58476D1CE4E5B9)
    value ^= value >> np.uint64(27)
    value *= np.uint64(0x94D049BB133111EB)
    value ^= value >> np.uint64(31)
    value[value == 0] = 1
    return value


_POWERS: list[np.ndarray] = []


def _powers(size: int) -> tuple[np.ndarray, np.ndarray]:
    """_BASE**i and its inverse**i mod 2**64 for i below at least `size` (grown as longer bodies come)."""
    if not _POWERS or _POWERS[0].size < size:
        count = max(size, 1 << 16, 2 * _POWERS[0].size if _POWERS else 0)
        _POWERS[:] = [np.cumprod(np.concatenate((np.ones(1, np.uint64), np.full(count - 1, base, np.uint64))))
                      for base in (_BASE, pow(_BASE, -1, 1 << 64))]
    return _POWERS[0], _POWERS[1]


def shingles(text: str) -> np.ndarray:
    """The sorted distinct 64-bit hashes of the text's word 5-shingles (one shingle if it is shorter)."""
    return _shingles(tokens(text).codes)


def _shingles(codes: np.ndarray) -> np.ndarray:
    if codes.size == 0:
        return codes
    width = min(SHINGLE, codes.size)
    count = codes.size - width + 1
    mixed = np.zeros(count, dtype=np.uint64)
    for k in range(width):
        mixed += codes[k: k + count] * _MIX[k]
    mixed.sort()
    return mixed[np.concatenate(([True], mixed[1:] != mixed[:-1]))]  # np.unique, without its slow hash path


class _Candidates(dict):
    """word -> whether it may be a distinctive word: four letters or more, all letters, not a stop word.
    Remembers at most MAX_REMEMBERED words: a preview or a desk running for days meets new ones without end."""

    def __missing__(self, word: str) -> bool:
        found = len(word) >= 4 and word.isalpha() and word not in _STOP
        if len(self) < MAX_REMEMBERED:
            self[word] = found
        return found


MAX_REMEMBERED = 1 << 20


_CANDIDATE = _Candidates()


def jaccard(a: np.ndarray, b: np.ndarray) -> float:
    """Exact Jaccard similarity of two shingle sets from `shingles` (0 when either is empty)."""
    if a.size == 0 or b.size == 0:
        return 0.0
    shared = np.intersect1d(a, b, assume_unique=True).size
    return shared / (a.size + b.size - shared)


class Features(NamedTuple):
    """What similarity needs of one body, computed once (in a build worker) and reused: its MinHash
    signature, whether it has any words, and its most frequent candidate words for related stories with their
    counts."""

    sketch: np.ndarray
    empty: bool
    words: tuple[str, ...]
    numbers: array  # of "I": the counts as one object the cyclic collector does not walk, not a tuple of ints

    def plain(self) -> tuple[bytes, bool, tuple[str, ...], bytes]:
        """These features as a few plain values (the signature and counts as bytes), to send to another process
        or keep in a file: thousands of them pickle and load far quicker than thousands of arrays (and a word
        that many stories share is pickled once, as the one object a process keeps of it)."""
        return self.sketch.tobytes(), self.empty, self.words, self.numbers.tobytes()

    @classmethod
    def from_plain(cls, data: tuple[bytes, bool, tuple[str, ...], bytes]) -> Features:
        sketch, empty, words, numbers = data
        return cls(np.frombuffer(sketch, dtype=np.uint64), empty, words, array("I", numbers))


def features(text: str) -> Features:
    found = tokens(text)
    return Features(sketch(_shingles(found.codes)), found.codes.size == 0, *_frequent(found))


def _frequent(found: Words) -> tuple[tuple[str, ...], array]:
    """The CANDIDATE_TERMS most frequent words of four letters or more, no stop words (candidates for
    distinctive words), most frequent first, then by first use, and how often each is used. Counted by
    hash: only the distinct words met before enough are found are made strings."""
    if found.codes.size == 0:
        return (), array("I")
    codes = found.codes
    ordered = np.argsort(codes)
    groups = np.flatnonzero(np.concatenate(([True], codes[ordered[1:]] != codes[ordered[:-1]])))
    counts = np.diff(np.append(groups, codes.size))
    firsts = np.minimum.reduceat(ordered, groups)  # where each distinct word is first used
    order = np.argsort((counts.max() - counts) * codes.size + firsts)  # most used first, then first used
    order = order[(found.ends[firsts] - found.starts[firsts])[order] >= 4]  # under 4 bytes is under 4 letters
    chosen: list[str] = []
    numbers: list[int] = []
    step = 2 * CANDIDATE_TERMS  # most of the words looked at are taken: take them out a few at a time
    for begin in range(0, order.size, step):
        part = order[begin: begin + step]
        at = firsts[part]
        for start, end, count in zip(found.starts[at].tolist(), found.ends[at].tolist(), counts[part].tolist()):
            word = found.data[start:end].decode("utf-8")
            if _CANDIDATE[word]:
                chosen.append(sys.intern(word))  # one copy per word
                numbers.append(count)
                if len(chosen) == CANDIDATE_TERMS:
                    return tuple(chosen), array("I", numbers)
    return tuple(chosen), array("I", numbers)

