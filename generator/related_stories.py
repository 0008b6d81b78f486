"""Computed related stories: shared distinctive words, shared passages and shared manifests, near-linear."""

from __future__ import annotations

import bisect
import heapq
import math
from collections import Counter
from collections.abc import Mapping, Sequence

from .body import Body
from .models import Story
from .similarity import CandidateIndex, Features, estimate, features

RELATED_THRESHOLD = 0.5   # text candidates: a shared passage, not a shared topic
RELATED_RECALL = 0.99
TOP_TERMS = 24
NEIGHBOURS = 32           # per shared manifest, the stories nearest in time that count as candidates
TERM_NEIGHBOURS = 8       # per distinctive word, likewise


def related_keys(stories: Sequence[Story], bodies: Mapping[str, Body], limit: int = 4,
                 earlier_only: bool = True, known: Mapping[str, Features] | None = None) -> dict[str, list[str]]:
    """Story key -> up to `limit` keys of the stories most like it (see RelatedIndex)."""
    cited = {path: cited_ids(body) for path, body in bodies.items()}
    index = RelatedIndex(stories, cited, known, earlier_only)
    return {key: index.related(key, limit) for key in index.keys}


class RelatedIndex:
    """What computing related stories needs of the whole site, built once; `related(key)` then scores one
    story's candidates (stories sharing a distinctive word, a manifest or a passage): shared distinctive
    words, shared manifests and shared passages; same newsroom first, then score, then key. Only earlier
    stories by default (as Hugo's related content), so a new story never changes what older pages list."""

    def __init__(self, stories: Sequence[Story], cited: Mapping[str, frozenset[str]],
                 known: Mapping[str, Features] | None = None, earlier_only: bool = True) -> None:
        order = _unique_by_key(stories)
        self.found = [known[s.path] if known and s.path in known else features(s.body) for s in order]
        self.terms = distinctive([f.counts for f in self.found])
        self.cited = [_cited(story, cited.get(story.path)) for story in order]
        self.near = CandidateIndex([f.sketch for f in self.found], [f.empty for f in self.found],
                                   RELATED_THRESHOLD, RELATED_RECALL)
        self.keys = [story.key for story in order]
        self.newsrooms = [story.meta.newsroom for story in order]
        self.position = {key: i for i, key in enumerate(self.keys)}
        self.by_term = _holders(self.terms)
        self.by_manifest = _holders(self.cited)
        self.earlier_only = earlier_only

    def related(self, key: str, limit: int = 4) -> list[str]:
        i = self.position.get(key)
        if i is None:
            return []
        near = set(self.near.near(i))  # only these share enough passages for their text similarity to count
        others = (near | _neighbours(self.by_term, self.terms[i], i, TERM_NEIGHBOURS, self.earlier_only)
                  | _neighbours(self.by_manifest, self.cited[i], i, NEIGHBOURS, self.earlier_only))
        scored = [(self.newsrooms[j] != self.newsrooms[i],
                   -(_overlap(self.terms[i], self.terms[j]) + _overlap(self.cited[i], self.cited[j])
                     + (estimate(self.found[i].sketch, self.found[j].sketch) if j in near else 0.0)),
                   self.keys[j]) for j in others if j != i and (j < i or not self.earlier_only)]
        return [key for _, score, key in sorted(scored) if score < 0][:limit]


def top_terms(texts: Sequence[str], size: int = TOP_TERMS) -> list[frozenset[str]]:
    """Each text's most distinctive words by tf-idf (words of four letters or more, no stop words)."""
    return distinctive([features(text).counts for text in texts], size)


def distinctive(counted: Sequence[Mapping[str, int]], size: int = TOP_TERMS) -> list[frozenset[str]]:
    """Per story, the `size` candidate words of highest tf-idf over all the stories."""
    documents = Counter(word for counts in counted for word in counts)
    idf = {word: math.log(len(counted) / df) for word, df in documents.items() if df < len(counted)}
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


def cited_ids(body: Body) -> frozenset[str]:
    """The manifest ids a body cites."""
    return frozenset(i for cite in body.cites for i in cite.ids)


def _cited(story: Story, in_body: frozenset[str] | None) -> frozenset[str]:
    found = in_body if in_body is not None else (e.manifest for e in story.meta.ledger)
    return frozenset((*found, *(i for fact in story.meta.key_facts for i in fact.cites)))


def _holders(items: list[frozenset[str]]) -> dict[str, list[int]]:
    """Item (word, manifest) -> the positions of the stories holding it, in order."""
    holders: dict[str, list[int]] = {}
    for position, keys in enumerate(items):
        for key in keys:
            holders.setdefault(key, []).append(position)
    return holders


def _neighbours(holders: dict[str, list[int]], keys: frozenset[str], position: int, count: int,
                earlier_only: bool) -> set[int]:
    """The stories sharing one of these items: per item, the `count` nearest in time before (and after)."""
    found: set[int] = set()
    for key in keys:
        stories = holders[key]
        at = bisect.bisect_left(stories, position)
        found.update(stories[max(0, at - count): at])
        if not earlier_only:
            found.update(stories[at + 1: at + 1 + count])
    return found


def _overlap(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a and b else 0.0
