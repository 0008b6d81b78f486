"""Computed related stories: shared distinctive words, shared passages and shared manifests, near-linear,
and recomputed after an edit only for the stories that edit can reach."""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from itertools import chain

import numpy as np

from ..content.models import StoryBrief
from .minhash import CandidateIndex, estimate
from .instants import instant
from .similarity import Features
from .terms import WordSets, distinctive, idf_weights, top_words

RELATED_THRESHOLD = 0.5   # text candidates: a shared passage, not a shared topic


RELATED_RECALL = 0.99


NEIGHBOURS = 32           # per shared manifest, the stories nearest in time that count as candidates


TERM_NEIGHBOURS = 8       # per distinctive word, likewise


class RelatedIndex:
    """What computing related stories needs of the whole site, built once; `related(key)` then scores one
    story's candidates (stories sharing a distinctive word, a manifest or a passage): shared distinctive
    words, shared manifests and shared passages; same newsroom first, then score, then key. Only earlier
    stories by default (as Hugo's related content), so a new story never changes what older pages list.
    `results` holds what related() found for each story; a build keeps the index for the next one, which
    updates it in place after an edit (`update`) or builds it again from it (`previous`)."""

    def __init__(self, stories: Sequence[StoryBrief], cited: Mapping[str, frozenset[str]],
                 known: Mapping[str, Features], earlier_only: bool = True,
                 previous: RelatedIndex | None = None, changed: Collection[str] = ()) -> None:
        times, order = _unique_by_key(stories)
        self.found = [known[s.path] for s in order]
        self.keys = [story.key for story in order]
        self.paths = [story.path for story in order]
        self.published = times
        self.position = {key: i for i, key in enumerate(self.keys)}
        self.documents = Counter(chain.from_iterable(found.words for found in self.found))
        self.terms = self._terms(self.found, previous, changed)
        self.cited = [cited[story.path] for story in order]
        self.near = CandidateIndex([f.sketch for f in self.found], [f.empty for f in self.found],
                                   RELATED_THRESHOLD, RELATED_RECALL)
        self.newsrooms = [story.newsroom for story in order]
        self.by_term = _holders(self.terms)
        self.by_manifest = _holders(self.cited)
        self.earlier_only = earlier_only
        self.results: dict[str, list[str]] = {}
        self._arrays()

    KEPT = ("keys", "paths", "published", "documents", "terms", "cited", "newsrooms", "earlier_only", "results",
            "by_term", "by_manifest", "key_rank", "newsroom_numbers", "newsroom_ids")  # plain data as they are

    def snapshot(self) -> dict:
        """The index as plain data (shared with it, not copied): what restore() cannot make again from it
        quicker than it would load (the stories' features, which a later build has already, are left out;
        the holders and word matrices load quicker than they are made)."""
        return {**{name: getattr(self, name) for name in self.KEPT}, "near": self.near.snapshot(),
                "term_sets": self.term_sets.snapshot(), "cited_sets": self.cited_sets.snapshot()}

    @classmethod
    def restore(cls, data: dict, known: Mapping[str, Features]) -> RelatedIndex | None:
        """The index snapshot() described, taking `data` over, with each story's features from `known` (by
        path); None if one is missing."""
        if any(path not in known for path in data["paths"]):
            return None
        index = cls.__new__(cls)
        vars(index).update(data, found=[known[path] for path in data["paths"]])
        index.near = CandidateIndex.restore(data["near"])
        index.term_sets, index.cited_sets = WordSets.restore(data["term_sets"]), WordSets.restore(data["cited_sets"])
        index.position = {key: i for i, key in enumerate(index.keys)}
        return index

    def _terms(self, found: list[Features], previous: RelatedIndex | None,
               changed: Collection[str]) -> list[frozenset[str]]:
        """Distinctive words by tf-idf; after an edit only the stories holding a word whose document count
        moved are ranked again (every story when the number of stories moved, since every idf did)."""
        if previous is None or len(previous.keys) != len(self.keys):
            return distinctive(found, documents=self.documents)
        moved = {word for word in self.documents.keys() | previous.documents.keys()
                 if self.documents[word] != previous.documents[word]}
        before = dict(zip(previous.keys, previous.terms))
        idf = idf_weights(self.documents, len(found))
        return [top_words(mine, idf) if key in changed or key not in before or not moved.isdisjoint(mine.words)
                else before[key] for key, mine in zip(self.keys, found)]

    def _arrays(self) -> None:
        """Words and manifests as integer rows, so that one story's candidates are scored in one go."""
        self.term_sets, self.cited_sets = WordSets(self.terms), WordSets(self.cited)
        rank = {key: n for n, key in enumerate(sorted(self.keys))}
        self.key_rank = np.array([rank[key] for key in self.keys], dtype=np.int64)
        self.newsroom_numbers = {name: n for n, name in enumerate(sorted(set(self.newsrooms)))}
        self.newsroom_ids = np.array([self.newsroom_numbers[name] for name in self.newsrooms], dtype=np.int64)

    def related(self, key: str, limit: int = 4) -> list[str]:
        i = self.position.get(key)
        if i is None:
            return []
        near = self.near.near(i)  # only these share enough passages for their text similarity to count
        others = (set(near) | _neighbours(self.by_term, self.terms[i], i, TERM_NEIGHBOURS, self.earlier_only)
                  | _neighbours(self.by_manifest, self.cited[i], i, NEIGHBOURS, self.earlier_only))
        chosen = np.sort(np.fromiter(others, dtype=np.int64, count=len(others)))
        chosen = chosen[(chosen < i) | ((chosen > i) & (not self.earlier_only))]
        if chosen.size == 0:
            return []
        score = self.term_sets.overlaps(i, chosen) + self.cited_sets.overlaps(i, chosen)
        for at in np.flatnonzero(np.isin(chosen, near)).tolist() if near else ():  # most stories share no passage
            score[at] += estimate(self.found[i].sketch, self.found[chosen[at]].sketch)
        elsewhere = self.newsroom_ids[chosen] != self.newsroom_ids[i]
        ranked = np.lexsort((self.key_rank[chosen], -score, elsewhere))
        return [self.keys[j] for j in chosen[ranked[score[ranked] > 0][:limit]].tolist()]

    def reach(self, key: str) -> set[str]:
        """The stories that count `key` among their candidates: the later stories near it in time holding one
        of its words or manifests, and those sharing a passage with it. Only their related stories can
        change when it changes."""
        i = self.position.get(key)
        if i is None:
            return set()
        found = set(self.near.near(i))
        for holders, items, count in ((self.by_term, self.terms[i], TERM_NEIGHBOURS),
                                      (self.by_manifest, self.cited[i], NEIGHBOURS)):
            for item in items:
                stories = holders[item]
                at = bisect.bisect_left(stories, i)
                found.update(stories[at + 1: at + 1 + count])
                if not self.earlier_only:
                    found.update(stories[max(0, at - count): at])
        return {self.keys[j] for j in found}

    def update(self, stories: Sequence[StoryBrief], cited: Mapping[str, frozenset[str]], known: Mapping[str, Features],
               changed: Collection[str], limit: int = 4) -> bool:
        """Take in stories edited in place (the same stories, each at the same time: only words, manifests,
        newsroom or text moved) and score again every story they reach; False, and nothing done, when the
        site's stories themselves changed (the caller builds a new index from this one)."""
        if len(stories) != len(self.keys) or any(self.position.get(s.key) is None for s in stories):
            return False
        edited = [(self.position[s.key], s) for s in stories if s.key in changed]
        if any(self.paths[i] != s.path or self.published[i] != instant(s.published) for i, s in edited):
            return False
        words_before = {i: self.found[i].words for i, _ in edited}
        for i, story in edited:
            self.documents.subtract(words_before[i])
            self.documents.update(known[story.path].words)
        moved_words = {word for i, story in edited for word in set(words_before[i]).symmetric_difference(known[story.path].words)}
        for word in moved_words:
            if self.documents[word] <= 0:
                del self.documents[word]
        idf = idf_weights(self.documents, len(self.keys))
        for i, story in edited:
            self.found[i] = known[story.path]
        touched = set(words_before)
        if moved_words:  # every story holding a word whose document count moved is ranked again
            touched.update(i for i in range(len(self.keys)) if not moved_words.isdisjoint(self.found[i].words))
        ranked = {i: top_words(self.found[i], idf) for i in sorted(touched)}
        new_cited = {i: cited[story.path] for i, story in edited}
        # A story edited with its words, manifests and newsroom as they were moves other stories' scores
        # only through the passages it shares: only those sharing one, before or after, are scored again.
        text_only = {i for i, story in edited if ranked[i] == self.terms[i] and new_cited[i] == self.cited[i]
                     and story.newsroom == self.newsrooms[i]}
        moved = ({self.keys[i] for i in words_before if i not in text_only}
                 | {self.keys[i] for i, terms in ranked.items() if terms != self.terms[i]})
        # what the moved stories reach before the edit; their reach after it joins below, once the index holds it
        affected = set(moved).union(*(self.reach(key) for key in moved), self._sharing(text_only))
        for i, terms in ranked.items():
            _move(self.by_term, i, self.terms[i], terms)
            self.terms[i] = terms
            self.term_sets.set(i, terms)
        for i, story in edited:
            _move(self.by_manifest, i, self.cited[i], new_cited[i])
            self.cited[i] = new_cited[i]
            self.cited_sets.set(i, new_cited[i])
            self.newsrooms[i] = story.newsroom
            number = self.newsroom_numbers.setdefault(story.newsroom, len(self.newsroom_numbers))
            self.newsroom_ids[i] = number
            self.near.update(i, self.found[i].sketch, self.found[i].empty)
        affected = affected.union(*(self.reach(key) for key in moved), self._sharing(text_only))
        self.results.update({key: self.related(key, limit) for key in affected})
        return True

    def _sharing(self, positions: Iterable[int]) -> set[str]:
        """These stories and those sharing a passage with one of them."""
        return {self.keys[j] for i in positions for j in (i, *self.near.near(i))}


Scorer = Callable[[RelatedIndex, Sequence[str]], Iterable[list[str]]]


def score_here(index: RelatedIndex, keys: Sequence[str]) -> list[list[str]]:
    """index.related() of each key, one after the other."""
    return [index.related(key) for key in keys]


def related_all(index: RelatedIndex, previous: RelatedIndex | None, changed: Collection[str],
                score: Scorer = score_here) -> dict[str, list[str]]:
    """Every story's related keys, kept in index.results: from `previous` where nothing it was computed
    from moved, else scored anew by `score` (the engine's scores them on every core). `changed`: the keys of
    the stories read again since `previous`."""
    if previous is None:
        index.results = dict(zip(index.keys, score(index, index.keys)))
        return index.results
    before = dict(zip(previous.keys, zip(previous.terms, previous.cited)))
    moved = set(changed) | (set(index.keys) ^ set(previous.keys))
    now = dict(zip(index.keys, zip(index.terms, index.cited)))
    moved.update(key for key, value in now.items() if key in before and before[key] != value)
    affected = set(moved)
    for key in moved:
        affected |= index.reach(key) | previous.reach(key)
    again = [key for key in index.keys if key not in previous.results or key in affected]
    scored = dict(zip(again, score(index, again)))
    index.results = {key: scored[key] if key in scored else previous.results[key] for key in index.keys}
    return index.results


def _move(holders: dict[str, list[int]], position: int, before: frozenset[str], after: frozenset[str]) -> None:
    """Keep the holders of each item in order as one story's items change."""
    for item in before - after:
        holders[item].remove(position)
        if not holders[item]:
            del holders[item]
    for item in after - before:
        bisect.insort(holders.setdefault(item, []), position)


def _unique_by_key(stories: Sequence[StoryBrief]) -> tuple[list[int], list[StoryBrief]]:
    """One story per key (the first by path, as SiteIndex.by_key keeps), by publication then key, and their
    publication times (as `instant` gives them, which sort far quicker than datetimes)."""
    first: dict[str, StoryBrief] = {}
    for story in sorted(stories, key=lambda s: s.path):
        first.setdefault(story.key, story)
    timed = sorted((instant(story.published), story.key, story) for story in first.values())
    return [time for time, _, _ in timed], [story for _, _, story in timed]


def _holders(items: Iterable[frozenset[str]]) -> dict[str, list[int]]:
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
