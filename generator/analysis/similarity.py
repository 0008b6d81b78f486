"""How alike two story bodies are: word 5-shingles, exact Jaccard, and a MinHash LSH index so that a
large archive is never compared pair by pair (LP040 repeated stories; related stories build on it)."""

from __future__ import annotations

import bisect
import datetime as dt
import pickle
import re
import string
import sys
from collections.abc import Iterable, Iterator, Sequence
from typing import NamedTuple

import numpy as np

from ..content.cites import CITE

SHINGLE = 5


NUM_PERM = 128


SEED = 1


RECALL = 0.999            # chance that a pair exactly at the threshold becomes a candidate (LP040)


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


_PERMUTATIONS = np.random.default_rng(SEED).integers(1, 2 ** 63, size=(2, NUM_PERM), dtype=np.uint64)


_ODD = _PERMUTATIONS[0] | np.uint64(1)


_BIN_BITS = NUM_PERM.bit_length() - 1  # NUM_PERM is a power of two


_BAND_MIX = np.random.default_rng(SEED + 1).integers(1, 2 ** 63, size=NUM_PERM, dtype=np.uint64) | np.uint64(1)


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
    """The words of `words(text)`, found as the runs of bytes between spaces and punctuation. The last few
    texts' are kept (`keep`): a story's body is read by its wording check (LP032) and then for its features
    here, a batch of stories at a time (workers.lockstep)."""
    kept = _KEPT.get(id(text)) if keep else None
    if kept is not None and kept[0] is text:
        return kept[1]
    found = _tokens(text)
    if keep:
        if len(_KEPT) >= _KEEP:
            del _KEPT[next(iter(_KEPT))]
        _KEPT[id(text)] = (text, found)
    return found


_KEEP = 64  # more than a lockstep batch
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
    """word -> whether it may be a distinctive word: four letters or more, all letters, not a stop word."""

    def __missing__(self, word: str) -> bool:
        self[word] = found = len(word) >= 4 and word.isalpha() and word not in _STOP
        return found


_CANDIDATE = _Candidates()


def fingerprints(texts: Iterable[str]) -> list[np.ndarray]:
    """The shingle sets of many texts."""
    return [shingles(text) for text in texts]


def jaccard(a: np.ndarray, b: np.ndarray) -> float:
    """Exact Jaccard similarity of two shingle sets from `shingles` (0 when either is empty)."""
    if a.size == 0 or b.size == 0:
        return 0.0
    shared = np.intersect1d(a, b, assume_unique=True).size
    return shared / (a.size + b.size - shared)


def sketch(values: np.ndarray) -> np.ndarray:
    """The MinHash signature of a sorted shingle set by one-permutation hashing with densification: the
    hashes (already uniform) fall into NUM_PERM bins by their top bits, each bin keeps its least (found by
    binary search, the set being sorted), and an empty bin borrows from the next bin that is not empty."""
    if values.size == 0:
        return np.full(NUM_PERM, 0xFFFFFFFF, dtype=np.uint64)
    bins = np.arange(NUM_PERM, dtype=np.uint64)
    at = np.searchsorted(values, bins << np.uint64(64 - _BIN_BITS))
    least = values[np.minimum(at, values.size - 1)]
    full = np.flatnonzero((at < values.size) & ((least >> np.uint64(64 - _BIN_BITS)) == bins))
    donor = full[np.searchsorted(full, np.arange(NUM_PERM)) % full.size]
    distance = ((donor - np.arange(NUM_PERM)) % NUM_PERM).astype(np.uint64)
    return ((least[donor] * _ODD + distance * _PERMUTATIONS[1]) >> np.uint64(32)) & np.uint64(0xFFFFFFFF)


def estimate(a: np.ndarray, b: np.ndarray) -> float:
    """The Jaccard similarity two signatures estimate (their share of equal minimums)."""
    return float(np.count_nonzero(a == b)) / NUM_PERM


def bands(threshold: float, num_perm: int = NUM_PERM, recall: float = RECALL) -> tuple[int, int]:
    """LSH (bands, rows): the most rows per band (fewest false candidates) that still finds a pair
    exactly at the threshold with the given recall."""
    for rows in range(num_perm, 0, -1):
        count = num_perm // rows
        if 1 - (1 - threshold ** rows) ** count >= recall:
            return count, rows
    return num_perm, 1


class CandidateIndex:
    """MinHash LSH over signatures: each signature is cut into bands, and two sets whose signatures agree
    on a whole band become candidates. Sorting the band hashes finds every such pair without comparing
    all pairs; callers score candidates exactly (`jaccard`) or by their signatures (`estimate`)."""

    def __init__(self, sketches: Sequence[np.ndarray], empty: Sequence[bool], threshold: float,
                 recall: float = RECALL) -> None:
        self.count, self.rows = bands(threshold, NUM_PERM, recall)
        size = len(sketches)
        matrix = np.stack(sketches) if size else np.zeros((0, NUM_PERM), dtype=np.uint64)
        self.keys = self._band_keys(matrix, np.asarray(empty, dtype=bool), np.arange(size, dtype=np.uint64))
        near: list[set[int]] = [set() for _ in range(size)]
        for keys in self.keys.T:
            order = np.argsort(keys, kind="stable")
            for members in _runs(order, keys[order]):
                for member in members:
                    near[member].update(members)
        self._near = [sorted(found - {key}) for key, found in enumerate(near)]

    def _band_keys(self, matrix: np.ndarray, lonely: np.ndarray, positions: np.ndarray) -> np.ndarray:
        """One hash per band per signature; an empty body gets keys of its own, so it shares no band."""
        rows = self.rows
        keys = np.stack([(matrix[:, band * rows: (band + 1) * rows] * _BAND_MIX[:rows]).sum(axis=1)
                         for band in range(self.count)], axis=1) if len(matrix) else np.zeros((0, self.count), np.uint64)
        keys[lonely] = ~positions[lonely, None]
        return keys

    def update(self, key: int, signature: np.ndarray, empty: bool) -> None:
        """Set `key`'s signature anew (a story edited in place): only its own pairs can change."""
        row = self._band_keys(signature[None, :], np.array([empty]), np.array([key], dtype=np.uint64))[0]
        self.keys[key] = row
        now = set(np.flatnonzero((self.keys == row).any(axis=1)).tolist()) - {key}
        before = set(self._near[key])
        for other in before - now:
            self._near[other].remove(key)
        for other in now - before:
            bisect.insort(self._near[other], key)
        self._near[key] = sorted(now)

    @classmethod
    def of_sets(cls, sets: Sequence[np.ndarray], threshold: float, recall: float = RECALL) -> CandidateIndex:
        return cls([sketch(values) for values in sets], [values.size == 0 for values in sets], threshold, recall)

    def near(self, key: int) -> list[int]:
        """Positions of the other sets that share a band with set `key`, in order."""
        return self._near[key]


def _runs(order: np.ndarray, ordered: np.ndarray) -> Iterator[list[int]]:
    """The groups of two or more equal band keys (few: most stories share no band with any other)."""
    edges = np.diff(np.concatenate(([0], (ordered[1:] == ordered[:-1]).view(np.int8), [0])))
    for start, end in zip(np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)):
        yield order[start: end + 1].tolist()


class Features(NamedTuple):
    """What similarity needs of one body, computed once (in a build worker) and reused: its MinHash
    signature, whether it has any words, and its most frequent candidate words for related stories with their
    counts. (A named tuple of plain values, the signature pickled as bytes: the build memo holds thousands.)"""

    sketch: np.ndarray
    empty: bool
    words: tuple[str, ...]
    numbers: tuple[int, ...]

    def interned(self) -> Features:
        """The same, its words the one copy this process keeps of each (they arrive from workers as copies;
        shared, they take memory once, and the memo's related-story index pickles each once)."""
        return self._replace(words=tuple(map(sys.intern, self.words)))

    def __reduce__(self) -> tuple:
        return _features, (self.sketch.tobytes(), self.empty, self.words, self.numbers)


def _features(sketch: bytes, empty: bool, words: tuple[str, ...], numbers: tuple[int, ...]) -> Features:
    return Features(np.frombuffer(sketch, dtype=np.uint64), empty, words, numbers)


class PackedFeatures:
    """Features pickled, and unpickled only when first read: as a build worker sends them (packed once, there,
    and kept so by the build memo) and as the memo gives them back (after an edit, only the stories it
    reaches are compared again)."""

    __slots__ = ("packed", "_found")

    def __init__(self, packed: bytes) -> None:
        self.packed = packed
        self._found: Features | None = None

    @classmethod
    def of(cls, found: Features) -> PackedFeatures:
        return cls(pickle.dumps(found, protocol=pickle.HIGHEST_PROTOCOL))

    def interned(self) -> PackedFeatures:
        """These features, their words unpacked as the one copy this process keeps of each (see Features)."""
        self._found = self.unpacked().interned()
        return self

    def unpacked(self) -> Features:
        if self._found is None:
            self._found = pickle.loads(self.packed)
        return self._found

    # Features' fields, read through (properties: a __getattr__ costs a failed lookup first, and the site-wide
    # indexes read each field of every story's features)
    sketch = property(lambda self: self.unpacked().sketch)
    empty = property(lambda self: self.unpacked().empty)
    words = property(lambda self: self.unpacked().words)
    numbers = property(lambda self: self.unpacked().numbers)

    def __reduce__(self) -> tuple:
        return PackedFeatures, (self.packed,)


def features(text: str) -> Features:
    found = tokens(text)
    return Features(sketch(_shingles(found.codes)), found.codes.size == 0, *_frequent(found))


def _frequent(found: Words) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """The CANDIDATE_TERMS most frequent words of four letters or more, no stop words (candidates for
    distinctive words), most frequent first, then by first use, and how often each is used. Counted by
    hash: only the distinct words met before enough are found are made strings."""
    if found.codes.size == 0:
        return (), ()
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
                    return tuple(chosen), tuple(numbers)
    return tuple(chosen), tuple(numbers)


_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)


_MICROSECOND = dt.timedelta(microseconds=1)


def instant(moment: dt.datetime) -> int:
    """A publication time as whole microseconds since 1970: what the kept indexes hold (and compare) instead
    of a datetime, which takes far longer to pickle and unpickle."""
    return (moment - _EPOCH) // _MICROSECOND
