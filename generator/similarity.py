"""How alike two story bodies are: word 5-shingles, exact Jaccard, and a MinHash LSH index so that a
large archive is never compared pair by pair (LP040 repeated stories, computed related stories)."""

from __future__ import annotations

import bisect
import heapq
import math
from collections import Counter
import datetime as dt
import hashlib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from datasketch import MinHash, MinHashLSH

from .body import Body
from .cites import CITE
from .models import Story

SHINGLE = 5
NUM_PERM = 128
SEED = 1
RECALL = 0.999            # chance that a pair exactly at the threshold becomes a candidate (LP040)
RELATED_THRESHOLD = 0.3   # text candidates for related stories: a shared passage, not a shared topic
RELATED_RECALL = 0.99
NEIGHBOURS = 32           # per shared manifest, the stories nearest in time that count as candidates
_WORD = re.compile(r"[^\W_]+")
_MIX = np.array([0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9, 0xD6E8FEB86659FD93,
                 0xFF51AFD7ED558CCD], dtype=np.uint64)
_LOW32 = np.uint64(0xFFFFFFFF)


def words(text: str) -> list[str]:
    """A body's words, lower-cased, without its citation markers (Markdown punctuation falls away)."""
    return _WORD.findall(CITE.sub(" ", text).lower())


def shingles(text: str, vocabulary: dict[str, int] | None = None) -> np.ndarray:
    """The sorted distinct 64-bit hashes of the text's word 5-shingles (one shingle if it is shorter)."""
    known = {} if vocabulary is None else vocabulary
    codes = np.array([known.get(word) or _hash_word(word, known) for word in words(text)], dtype=np.uint64)
    if codes.size == 0:
        return codes
    width = min(SHINGLE, codes.size)
    count = codes.size - width + 1
    mixed = np.zeros(count, dtype=np.uint64)
    for k in range(width):
        mixed += codes[k: k + count] * _MIX[k]
    return np.unique(mixed)


def _hash_word(word: str, known: dict[str, int]) -> int:
    """A stable hash (not Python's salted one), so that runs agree."""
    code = int.from_bytes(hashlib.blake2b(word.encode("utf-8"), digest_size=8).digest(), "little") or 1
    known[word] = code
    return code


def fingerprints(texts: Iterable[str]) -> list[np.ndarray]:
    """The shingle sets of many texts, hashing each distinct word once."""
    vocabulary: dict[str, int] = {}
    return [shingles(text, vocabulary) for text in texts]


def jaccard(a: np.ndarray, b: np.ndarray) -> float:
    """Exact Jaccard similarity of two shingle sets from `shingles` (0 when either is empty)."""
    if a.size == 0 or b.size == 0:
        return 0.0
    shared = np.intersect1d(a, b, assume_unique=True).size
    return shared / (a.size + b.size - shared)


def bands(threshold: float, num_perm: int = NUM_PERM, recall: float = RECALL) -> tuple[int, int]:
    """LSH (bands, rows): the most rows per band (fewest false candidates) that still finds a pair
    exactly at the threshold with the given recall."""
    for rows in range(num_perm, 0, -1):
        count = num_perm // rows
        if 1 - (1 - threshold ** rows) ** count >= recall:
            return count, rows
    return num_perm, 1


class CandidateIndex:
    """MinHash LSH over shingle sets: the sets that may be at least `threshold` alike, found without
    comparing all pairs; callers score candidates exactly with `jaccard`."""

    def __init__(self, sets: Sequence[np.ndarray], threshold: float, recall: float = RECALL,
                 num_perm: int = NUM_PERM) -> None:
        params = bands(threshold, num_perm, recall)
        self._lsh = MinHashLSH(threshold=threshold, num_perm=num_perm, params=params)
        batches = ((s & _LOW32).tolist() for s in sets)
        self._sketches = list(MinHash.generator(batches, num_perm=num_perm, seed=SEED, hashfunc=int))
        with self._lsh.insertion_session() as session:
            for key, (values, sketch) in enumerate(zip(sets, self._sketches)):
                if values.size:
                    session.insert(key, sketch, check_duplication=False)
        self._empty = [values.size == 0 for values in sets]

    def near(self, key: int) -> list[int]:
        """Positions of the other sets that share a band with set `key`, in order."""
        if self._empty[key]:
            return []
        return sorted(other for other in self._lsh.query(self._sketches[key]) if other != key)


@dataclass(frozen=True)
class Dated:
    """A body to compare, with what names it and when it was published."""

    key: str
    published: dt.datetime
    text: str


@dataclass(frozen=True)
class Repeat:
    later: str
    earlier: str
    score: float


def repeats(items: Sequence[Dated], threshold: float, window: dt.timedelta) -> list[Repeat]:
    """Every pair whose bodies are at least `threshold` alike, the earlier published at most `window`
    before the later (ties by key); the score is the exact Jaccard."""
    order = sorted(items, key=lambda item: (item.published, item.key))
    sets = fingerprints(item.text for item in order)
    index = CandidateIndex(sets, threshold)
    found = []
    for later, item in enumerate(order):
        for earlier in index.near(later):
            if earlier < later and item.published - order[earlier].published <= window:
                score = jaccard(sets[later], sets[earlier])
                if score >= threshold:
                    found.append(Repeat(item.key, order[earlier].key, score))
    return found


def related_keys(stories: Sequence[Story], bodies: Mapping[str, Body], limit: int = 4,
                 earlier_only: bool = True) -> dict[str, list[str]]:
    """Story key -> up to `limit` keys of the stories most like it: shared distinctive words, shared
    passages and shared manifests; same newsroom first, then score, then key; earlier stories only by
    default (as Hugo's related content), so a new story never changes what older pages list."""
    order = _unique_by_key(stories)
    sets = fingerprints(story.body for story in order)
    terms = top_terms([story.body for story in order])
    cited = [_cited(story, bodies.get(story.path)) for story in order]
    index = CandidateIndex(sets, RELATED_THRESHOLD, RELATED_RECALL)
    sharing = _sharing(cited, earlier_only)
    topical = _sharing(terms, earlier_only, TERM_NEIGHBOURS)
    keys = [story.key for story in order]
    related: dict[str, list[str]] = {}
    for i, story in enumerate(order):
        near = set(index.near(i))  # only these share enough passages for the exact Jaccard to matter
        others = {j for j in (*near, *sharing[i], *topical[i]) if j != i and (j < i or not earlier_only)}
        scored = [(order[j].meta.newsroom != story.meta.newsroom,
                   -(_overlap(terms[i], terms[j]) + _overlap(cited[i], cited[j])
                     + (jaccard(sets[i], sets[j]) if j in near else 0.0)),
                   keys[j]) for j in others]
        related[keys[i]] = [key for _, score, key in sorted(scored) if score < 0][:limit]
    return related


_STOP = frozenset("""about above after again against also among because been before being below between both
could does doing down during each from further have having here into itself just more most much must only other
over same says said should since some such than that their them then there these they this those through under
until very were what when where which while whom will with would your years year""".split())
TOP_TERMS = 24
TERM_NEIGHBOURS = 8       # per distinctive word, the stories nearest in time that count as candidates
_TERM = re.compile(r"[^\W\d_]{4,}")


def top_terms(texts: Sequence[str], size: int = TOP_TERMS) -> list[frozenset[str]]:
    """Each text's most distinctive words by tf-idf (words of four letters or more, no stop words)."""
    counted = [Counter(_TERM.findall(CITE.sub(" ", text).lower())) for text in texts]
    for counts in counted:
        for word in _STOP.intersection(counts):
            del counts[word]
    documents = Counter(word for counts in counted for word in counts)
    idf = {word: math.log(len(texts) / df) for word, df in documents.items() if df < len(texts)}
    ranked = []
    for counts in counted:
        weighted = [(count * idf[word], word) for word, count in counts.items() if word in idf]
        ranked.append(frozenset(word for _, word in heapq.nlargest(size, weighted)))
    return ranked


def _unique_by_key(stories: Sequence[Story]) -> list[Story]:
    """One story per key (the first by path, as SiteIndex.by_key keeps), by publication then key."""
    first: dict[str, Story] = {}
    for story in sorted(stories, key=lambda s: s.path):
        first.setdefault(story.key, story)
    return sorted(first.values(), key=lambda s: (s.meta.published, s.key))


def _cited(story: Story, body: Body | None) -> frozenset[str]:
    in_body = (i for cite in body.cites for i in cite.ids) if body else (e.manifest for e in story.meta.ledger)
    return frozenset((*in_body, *(i for fact in story.meta.key_facts for i in fact.cites)))


def _sharing(cited: list[frozenset[str]], earlier_only: bool, neighbours: int = NEIGHBOURS) -> list[set[int]]:
    """Per story, the stories sharing one of its items (manifests, words): the `neighbours` nearest in time per item."""
    citing: dict[str, list[int]] = {}
    for position, ids in enumerate(cited):
        for manifest_id in sorted(ids):
            citing.setdefault(manifest_id, []).append(position)
    sharing: list[set[int]] = [set() for _ in cited]
    for position, ids in enumerate(cited):
        for manifest_id in ids:
            stories = citing[manifest_id]
            at = bisect.bisect_left(stories, position)
            sharing[position].update(stories[max(0, at - neighbours): at])
            if not earlier_only:
                sharing[position].update(stories[at + 1: at + 1 + neighbours])
    return sharing


def _overlap(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a and b else 0.0
