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

RELATED_THRESHOLD = 0.3   # text candidates: a shared passage, not a shared topic
RELATED_RECALL = 0.99
TOP_TERMS = 24
NEIGHBOURS = 32           # per shared manifest, the stories nearest in time that count as candidates
TERM_NEIGHBOURS = 8       # per distinctive word, likewise


def related_keys(stories: Sequence[Story], bodies: Mapping[str, Body], limit: int = 4,
                 earlier_only: bool = True, known: Mapping[str, Features] | None = None) -> dict[str, list[str]]:
    """Story key -> up to `limit` keys of the stories most like it: shared distinctive words, shared
    passages and shared manifests; same newsroom first, then score, then key; earlier stories only by
    default (as Hugo's related content), so a new story never changes what older pages list."""
    order = _unique_by_key(stories)
    found = [known[s.path] if known and s.path in known else features(s.body) for s in order]
    terms = distinctive([f.counts for f in found])
    cited = [_cited(story, bodies.get(story.path)) for story in order]
    index = CandidateIndex([f.sketch for f in found], [f.empty for f in found], RELATED_THRESHOLD, RELATED_RECALL)
    sharing = _sharing(cited, earlier_only, NEIGHBOURS)
    topical = _sharing(terms, earlier_only, TERM_NEIGHBOURS)
    keys = [story.key for story in order]
    related: dict[str, list[str]] = {}
    for i, story in enumerate(order):
        near = set(index.near(i))  # only these share enough passages for their text similarity to count
        others = {j for j in (*near, *sharing[i], *topical[i]) if j != i and (j < i or not earlier_only)}
        scored = [(order[j].meta.newsroom != story.meta.newsroom,
                   -(_overlap(terms[i], terms[j]) + _overlap(cited[i], cited[j])
                     + (estimate(found[i].sketch, found[j].sketch) if j in near else 0.0)),
                   keys[j]) for j in others]
        related[keys[i]] = [key for _, score, key in sorted(scored) if score < 0][:limit]
    return related


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


def _cited(story: Story, body: Body | None) -> frozenset[str]:
    in_body = (i for cite in body.cites for i in cite.ids) if body else (e.manifest for e in story.meta.ledger)
    return frozenset((*in_body, *(i for fact in story.meta.key_facts for i in fact.cites)))


def _sharing(items: list[frozenset[str]], earlier_only: bool, neighbours: int) -> list[set[int]]:
    """Per story, the stories sharing one of its items (manifests, words): the `neighbours` nearest in time per item."""
    holders: dict[str, list[int]] = {}
    for position, keys in enumerate(items):
        for key in sorted(keys):
            holders.setdefault(key, []).append(position)
    sharing: list[set[int]] = [set() for _ in items]
    for position, keys in enumerate(items):
        for key in keys:
            stories = holders[key]
            at = bisect.bisect_left(stories, position)
            sharing[position].update(stories[max(0, at - neighbours): at])
            if not earlier_only:
                sharing[position].update(stories[at + 1: at + 1 + neighbours])
    return sharing


def _overlap(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a and b else 0.0
