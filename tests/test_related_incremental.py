"""Related stories after an edit: recomputing only the stories an edit can reach gives what scoring every
story again gives, over random sequences of edits (words, manifests, times, newsrooms, additions, removals)."""

from __future__ import annotations

import datetime as dt
import pickle
import random
from dataclasses import dataclass

import pytest

from generator.analysis.related_index import RelatedIndex, related_all
from generator.analysis.similarity import features

WORDS = [f"{stem}{suffix}" for stem in ("harbour", "council", "ferry", "budget", "school", "clinic", "bridge",
                                        "housing", "rail", "tariff", "river", "museum")
         for suffix in ("", "s", "ing", "er")]
SHARED = ("The ferry council met again on the harbour budget and the river bridge, and the clinic housing plan "
          "was read in full at the museum before the school rail tariff vote was taken.")


@dataclass
class Fake:
    """What RelatedIndex reads of a story (a StoryBrief), and its body."""

    path: str
    key: str
    published: dt.datetime
    newsroom: str
    body: str


def _story(rng: random.Random, n: int) -> tuple[Fake, frozenset[str]]:
    words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 40)))
    body = (SHARED + " " if rng.random() < 0.3 else "") + words
    when = dt.datetime(2026, 11, 1, tzinfo=dt.timezone.utc) + dt.timedelta(hours=rng.randint(0, 200))
    story = Fake(f"s{n}.md", f"k{n:03d}", when, rng.choice(["city", "science"]), body)
    return story, frozenset(rng.sample([f"m{i}" for i in range(12)], rng.randint(0, 3)))


def _edit(rng: random.Random, stories: dict[str, tuple[Fake, frozenset[str]]], made: int) -> tuple[set[str], int]:
    """One random edit; returns the keys of the stories it touched (what a build reads again)."""
    kind = rng.choice(["words", "words", "passage", "passage", "shuffle", "shuffle", "manifests", "time", "newsroom",
                       "add", "remove"])
    if kind == "add" or not stories:
        story, cited = _story(rng, made)
        stories[story.key] = (story, cited)
        return {story.key}, made + 1
    key = rng.choice(sorted(stories))
    story, cited = stories[key]
    if kind == "remove":
        del stories[key]
    elif kind == "words":
        story.body += " " + " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 6)))
    elif kind == "passage":  # gains or loses the passage many stories share: its near neighbours change
        story.body = story.body.replace(SHARED + " ", "") if SHARED in story.body else SHARED + " " + story.body
    elif kind == "shuffle":  # the same words as often, in another order: only its passages move
        words = story.body.split()
        rng.shuffle(words)
        story.body = " ".join(words)
    elif kind == "manifests":
        stories[key] = (story, cited ^ {f"m{rng.randrange(12)}"})
    elif kind == "time":
        story.published += dt.timedelta(hours=rng.randint(-90, 90))
    else:
        story.newsroom = "science" if story.newsroom == "city" else "city"
    return {key}, made


def _inputs(stories: dict[str, tuple[Fake, frozenset[str]]]) -> tuple[list[Fake], dict, dict]:
    listed = [story for story, _ in stories.values()]
    return listed, {story.path: found for story, found in stories.values()}, {s.path: features(s.body) for s in listed}


def _fresh(stories: dict[str, tuple[Fake, frozenset[str]]], earlier_only: bool) -> RelatedIndex:
    index = RelatedIndex(*_inputs(stories), earlier_only)
    related_all(index, None, ())
    return index


def _next(index: RelatedIndex, stories: dict[str, tuple[Fake, frozenset[str]]], changed: set[str],
          before: dict) -> tuple[RelatedIndex, bool]:
    """What a build does after an edit: restore the index the last one kept (with the features it was made
    with, `before`), update it in place if it can, else build one from it."""
    index = RelatedIndex.restore(pickle.loads(pickle.dumps(index.snapshot())), before)
    listed, cited, known = _inputs(stories)
    if index.update(listed, cited, known, changed):
        return index, True
    rebuilt = RelatedIndex(listed, cited, known, index.earlier_only, previous=index, changed=changed)
    related_all(rebuilt, index, changed)
    return rebuilt, False


@pytest.mark.parametrize("seed", range(8))
def test_incremental_related_equals_related_from_scratch(seed: int):
    rng = random.Random(seed)
    earlier_only = seed % 3 != 0
    stories = {}
    for made in range(40):
        story, cited = _story(rng, made)
        stories[story.key] = (story, cited)
    made = 40
    index = _fresh(stories, earlier_only)
    in_place = 0
    for _ in range(40):
        before = {story.path: features(story.body) for story, _ in stories.values()}
        changed, made = _edit(rng, stories, made)
        index = _next(index, stories, changed, before)
        index, updated = index
        in_place += updated
        fresh = _fresh(stories, earlier_only)
        assert index.results == fresh.results
        assert index.terms == fresh.terms and index.cited == fresh.cited
        assert [index.near.near(i) for i in range(len(index.keys))] == [fresh.near.near(i) for i in range(len(fresh.keys))]
    assert any(index.results.values()) and in_place > 5


def test_related_stories_scored_on_two_processes_are_those_scored_here():
    """The engine scores a new index's stories on every core (engine/stories._score): the same results, in the
    same order, as scoring them one after the other, both from scratch and after an edit."""
    from generator.engine.pool import run_all
    from generator.engine.stories import _related

    def on_two(index: RelatedIndex, keys):
        return list(run_all(_related, index, keys, 2, min_per_job=1))

    rng = random.Random(5)
    stories = {}
    for n in range(60):
        story, cited = _story(rng, n)
        stories[story.key] = (story, cited)
    here = _fresh(stories, True)
    there = RelatedIndex(*_inputs(stories), True)
    assert related_all(there, None, (), on_two) == here.results and any(here.results.values())
    before = {story.path: features(story.body) for story, _ in stories.values()}
    changed, _ = _edit(rng, stories, 60)
    listed, cited, known = _inputs(stories)
    previous = RelatedIndex.restore(here.snapshot(), before)
    rebuilt = RelatedIndex(listed, cited, known, True, previous=previous, changed=changed)
    assert related_all(rebuilt, previous, changed, on_two) == _fresh(stories, True).results


def test_distinctive_words_are_the_top_tf_idf_words_heapq_would_pick():
    """top_words sorts a few dozen weighted words instead of asking heapq.nlargest: the same words, ties included."""
    import heapq

    from generator.analysis.similarity import Features
    from generator.analysis.terms import TOP_TERMS, top_words

    rng = random.Random(11)
    vocabulary = [f"word{n}" for n in range(60)]
    for _ in range(2000):
        words = tuple(rng.sample(vocabulary, rng.randint(0, 48)))
        counts = tuple(rng.randint(1, 4) for _ in words)
        idf = {word: rng.choice([0.5, 1.0, 1.5, 2.0]) for word in rng.sample(vocabulary, 50)}  # many ties
        found = Features(None, False, words, counts)
        weighted = [(count * idf[word], word) for word, count in zip(words, counts) if word in idf]
        assert top_words(found, idf) == frozenset(word for _, word in heapq.nlargest(TOP_TERMS, weighted))


def test_distinctive_words_of_all_stories_at_once_are_each_storys_own():
    """distinctive() ranks every story's words in one array sort: the same words top_words picks story by story,
    ties in weight, words without a weight and stories without words included."""
    from generator.analysis.similarity import Features
    from generator.analysis.terms import TOP_TERMS, all_top_words, top_words

    rng = random.Random(12)
    vocabulary = [f"word{n}" for n in range(60)]
    for _ in range(200):
        found = []
        for _ in range(rng.randint(1, 30)):
            words = tuple(rng.sample(vocabulary, rng.randint(0, 48)))
            found.append(Features(None, False, words, tuple(rng.randint(1, 4) for _ in words)))
        idf = {word: rng.choice([0.5, 1.0, 1.5, 2.0, 0.1 + 0.2]) for word in rng.sample(vocabulary, 50)}
        size = rng.choice([TOP_TERMS, 3])
        assert all_top_words(found, idf, size) == [top_words(mine, idf, size) for mine in found]


def test_an_edit_among_many_copies_gives_what_scoring_every_story_again_gives():
    """Hundreds of copies share every band, each linked to its neighbours only: a copy edited out of them
    shifts the windows of the copies it was linked to, which are those whose related stories are scored again."""
    from generator.analysis.minhash import NEAR_RUN

    start = dt.datetime(2026, 11, 1, tzinfo=dt.timezone.utc)
    stories = {}
    for n in range(3 * NEAR_RUN):
        story = Fake(f"s{n}.md", f"k{n:03d}", start + dt.timedelta(minutes=n), "city", SHARED)
        stories[story.key] = (story, frozenset())
    index = _fresh(stories, True)
    before = {story.path: features(story.body) for story, _ in stories.values()}
    stories["k010"][0].body = " ".join(sorted(SHARED.split()))  # its words as often: only its passages move
    updated, in_place = _next(index, stories, {"k010"}, before)
    assert in_place and updated.results == _fresh(stories, True).results
