"""Shingles, exact Jaccard, the LSH candidate index, repeated stories and computed related stories."""

from __future__ import annotations

import datetime as dt
import subprocess
import sys
from pathlib import Path

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from generator.analysis.minhash import CandidateIndex, bands, sketch
from generator.analysis.related_index import RelatedIndex
from generator.analysis.repeat_index import Dated, repeats
from generator.analysis.similarity import (
    _BASE,
    _MIX,
    features,
    jaccard,
    shingles,
    tokens,
    words,
)
from generator.content.body import parse_body
from generator.content.cites import cited_ids
from generator.content.load import load_content
from tests.conftest import base_files, write_tree

FERRY = """\
## The plan

The council voted 9 to 2 on Tuesday night to build a bus corridor along Ferry Road, with lanes reserved for
buses at peak hours and new shelters at every stop. [cites: m1]

Supporters said the corridor would cut ten minutes from the trip between the harbour and the hospital, and
that the buses on the route are already the most crowded in the city. [cites: m1]

## What comes next

Works are due to start in the spring, after a consultation with the shops along the road, which fear that
fewer parking spaces will mean fewer customers. [cites: m2]

- The council will publish the final design before the consultation opens. [cites: m2]
- Two members voted against, citing the cost of moving the water mains under the road. [cites: m1]
"""

FERRY_EDITED = FERRY.replace(
    "Supporters said the corridor would cut ten minutes from the trip between the harbour and the hospital",
    "Those in favour argued the corridor would save ten minutes between the harbour and the hospital")

FERRY_OTHER = """\
## The shops

Shop owners on Ferry Road asked the council on Monday for a hardship fund to carry them through the months
when the bus lanes are built, saying that trade fell by a third the last time the road was dug up. [cites: m3]

The council's transport committee said it would consider the request, but that any fund would have to be
paid for from the corridor's own budget rather than from new borrowing. [cites: m3]

- The traders' association collected signatures from forty businesses. [cites: m3]
- A decision is expected before the works begin in the spring. [cites: m2]
"""

NOON = dt.datetime(2026, 11, 20, 12, tzinfo=dt.timezone.utc)


def test_words_drop_cite_markers_and_markdown_and_case():
    assert words("## The Vote\n\n**Nine** to 2 [cites: 123, 456] — [link](https://x.org).") == [
        "the", "vote", "nine", "to", "2", "link", "https", "x", "org"]


def test_tokens_are_the_words_with_a_hash_that_is_the_same_in_every_process():
    text = "Café «déjà» vu\u00a0naïve…word\u2009x\x1cy\x85z İstanbul [cites: m1] B300, 4.5% — the word ends."
    found = tokens(text)
    assert [found.word(i) for i in range(found.codes.size)] == words(text)
    listed = words(text)
    assert len(set(found.codes.tolist())) == len(set(listed))
    assert tokens("word").codes[0] == found.codes[listed.index("word")] == found.codes[len(listed) - 2]
    script = "from generator.analysis.similarity import tokens; print(tokens('provenance ledger').codes.tolist())"
    other = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    assert other.strip() == str(tokens("provenance ledger").codes.tolist())  # not Python's salted hash


def _reference_code(word: str) -> int:
    """A word's hash as similarity._hashes documents it, one word at a time in plain Python."""
    mask, data = (1 << 64) - 1, word.encode("utf-8")
    value = (sum((byte + 1) * pow(_BASE, k, 1 << 64) for k, byte in enumerate(data)) + len(data) * int(_MIX[0])) & mask
    value ^= value >> 30
    value = (value * 0xBF58476D1CE4E5B9) & mask
    value ^= value >> 27
    value = (value * 0x94D049BB133111EB) & mask
    value ^= value >> 31
    return value or 1


@given(st.text(alphabet=st.sampled_from("ab zé—.\n[]:’1Ω"), max_size=60))
def test_each_word_hash_is_the_documented_polynomial(text: str):
    """Every span's hash, found for all words at once, is the polynomial over its bytes that _hashes
    describes (the build memo and LP040's scores keep these: they must not drift between versions)."""
    found = tokens(text)
    assert found.codes.tolist() == [_reference_code(word) for word in words(text)]


@given(st.lists(st.sampled_from(["the", "of", "a", "ledger", "claims", "über", "straße", "été", "ab12", "ux",
                                  "record", "would", "manifest", "ÿes", "council", "x", "ring"]), max_size=200))
def test_frequent_words_are_the_most_used_candidates_first_used_first(chosen: list[str]):
    """features() picks, among words of four letters or more that are not stop words, the CANDIDATE_TERMS
    most used, ties by first use, each with its count: as counting the words one by one gives."""
    from collections import Counter

    from generator.analysis.similarity import _STOP, CANDIDATE_TERMS, features

    text = " ".join(chosen)
    listed = words(text)
    counts, first = Counter(listed), {}
    for at, word in enumerate(listed):
        first.setdefault(word, at)
    ranked = sorted((word for word in counts if len(word) >= 4 and word.isalpha() and word not in _STOP),
                    key=lambda word: (-counts[word], first[word]))[:CANDIDATE_TERMS]
    found = features(text)
    assert (list(found.words), list(found.numbers)) == (ranked, [counts[word] for word in ranked])


def test_shingles_are_distinct_stable_and_short_text_is_one_shingle():
    assert shingles("a b c d e f").size == 2
    assert shingles("a b c d e a b c d e").size == 5
    assert shingles("just three words").size == 1
    assert shingles("").size == 0
    assert np.array_equal(shingles(FERRY), shingles(FERRY))
    assert np.array_equal(shingles(FERRY), shingles(FERRY.replace("[cites: m1]", "[cites: other]")))


def test_jaccard_is_exact():
    a, b = shingles("one two three four five six"), shingles("one two three four five seven")
    assert jaccard(a, b) == 1 / 3
    assert jaccard(a, a) == 1.0 and jaccard(a, shingles("")) == 0.0


def test_bands_find_a_pair_at_the_threshold_almost_surely():
    count, rows = bands(0.6)
    assert count * rows <= 128 and 1 - (1 - 0.6 ** rows) ** count >= 0.999


def test_candidate_index_finds_the_near_copy_and_not_the_other_story():
    sets = [shingles(text) for text in (FERRY, FERRY_OTHER, FERRY_EDITED, "")]
    index = CandidateIndex([sketch(values) for values in sets], [values.size == 0 for values in sets], 0.6)
    assert index.near(0) == [2] and index.near(2) == [0]
    assert index.near(1) == [] and index.near(3) == []


def test_many_copies_link_each_to_its_neighbours_and_an_edit_leaves_what_a_fresh_index_has():
    """Hundreds of near-identical bodies (a templated story) share every band: each links to the NEAR_RUN
    before and after it, so time and memory grow with their number, not its square; an edit that moves one
    out of that band or into it leaves the index as one built afresh would be."""
    from generator.analysis.minhash import NEAR_RUN

    copy, other = sketch(shingles(FERRY)), sketch(shingles(FERRY_OTHER))
    count = 3 * NEAR_RUN
    signatures = [copy] * count + [other]
    index = CandidateIndex(signatures, [False] * len(signatures), 0.6)
    assert index.near(0) == list(range(1, NEAR_RUN + 1)) and len(index.near(count // 2)) == 2 * NEAR_RUN
    assert index.near(count) == []
    for key, signature in ((NEAR_RUN, other), (count, copy), (NEAR_RUN, copy)):
        index.update(key, signature, False)
        signatures[key] = signature
        fresh = CandidateIndex(signatures, [False] * len(signatures), 0.6)
        assert [index.near(i) for i in range(len(signatures))] == [fresh.near(i) for i in range(len(signatures))]


def test_a_lightly_edited_copy_repeats_the_story():
    items = [Dated("a.md", NOON, FERRY), Dated("b.md", NOON + dt.timedelta(days=2), "## New title\n\n" + FERRY_EDITED)]
    [found] = repeats(items, 0.6, dt.timedelta(days=7))
    assert (found.later, found.earlier) == ("b.md", "a.md")
    assert found.score == jaccard(shingles(FERRY), shingles("## New title\n\n" + FERRY_EDITED)) and found.score >= 0.6


def test_a_different_story_on_the_same_topic_is_not_a_repeat():
    items = [Dated("a.md", NOON, FERRY), Dated("b.md", NOON + dt.timedelta(days=1), FERRY_OTHER)]
    assert repeats(items, 0.6, dt.timedelta(days=7)) == []
    assert jaccard(shingles(FERRY), shingles(FERRY_OTHER)) < 0.05


def test_only_the_window_before_the_later_story_counts():
    window = dt.timedelta(days=7)
    late = [Dated("a.md", NOON, FERRY), Dated("b.md", NOON + dt.timedelta(days=7, seconds=1), FERRY)]
    assert repeats(late, 0.6, window) == []
    edge = [Dated("b.md", NOON + window, FERRY), Dated("a.md", NOON, FERRY)]
    assert [(r.later, r.earlier, r.score) for r in repeats(edge, 0.6, window)] == [("b.md", "a.md", 1.0)]
    same_time = [Dated("b.md", NOON, FERRY), Dated("a.md", NOON, FERRY)]
    assert [(r.later, r.earlier) for r in repeats(same_time, 0.6, window)] == [("b.md", "a.md")]


def _story(title: str, day: int, newsroom: str, manifests: list[str], body: str) -> str:
    ledger = "".join(f'  - manifest: "{m}"\n    claims: ["c{m}"]\n' for m in manifests)
    return (f'---\ntitle: "{title}"\ndescription: "d"\npublished: 2026-11-{day:02d}T10:00:00Z\n'
            f"newsroom: {newsroom}\nbeat: policy\ntrust: reported\nledger:\n{ledger}---\n\n{body}")


def _related(tmp_path: Path, stories: dict[str, str], limit: int = 4,
             earlier_only: bool = True) -> dict[str, list[str]]:
    """Story key -> up to `limit` keys of the stories most like it, as a build finds them."""
    files = {**base_files(), **{f"content/stories/{path}.md": text for path, text in stories.items()}}
    content = load_content(write_tree(tmp_path, files))
    loaded = content.stories
    cited = {s.path: frozenset(cited_ids(s, parse_body(s.body, s.body_line))) for s in loaded}
    index = RelatedIndex([s.brief() for s in loaded], cited, {s.path: features(s.body) for s in loaded}, earlier_only)
    return {key: index.related(key, limit) for key in index.keys}


def test_related_stories_share_manifests_or_text_same_newsroom_first(tmp_path: Path):
    found = _related(tmp_path, {
        "2026-11-18/a": _story("A", 18, "city", ["m1"], "Alpha story. [cites: m1]\n"),
        "2026-11-19/b": _story("B", 19, "science", ["m1", "m2"], "Beta story. [cites: m1, m2]\n"),
        "2026-11-19/c": _story("C", 19, "city", ["m9"], FERRY.replace("m2", "m9").replace("m1", "m9")),
        "2026-11-20/d": _story("D", 20, "city", ["m1", "m2"], FERRY_EDITED),
        "2026-11-20/e": _story("E", 20, "city", ["m7"], "Unrelated. [cites: m7]\n"),
    })
    assert found["2026-11-20/d"] == ["2026-11-19/c", "2026-11-18/a", "2026-11-19/b"]
    assert found["2026-11-19/b"] == ["2026-11-18/a"]
    assert found["2026-11-18/a"] == [] and found["2026-11-20/e"] == []


def test_related_keys_are_limited_deterministic_and_can_look_forward(tmp_path: Path):
    stories = {f"2026-11-{day:02d}/s{day}": _story(f"S{day}", day, "city", ["m1"], f"Story {day}. [cites: m1]\n")
               for day in range(10, 17)}
    found = _related(tmp_path / "one", stories)
    assert found == _related(tmp_path / "two", stories)
    assert found["2026-11-16/s16"] == ["2026-11-10/s10", "2026-11-11/s11", "2026-11-12/s12", "2026-11-13/s13"]
    both = _related(tmp_path / "three", stories, limit=2, earlier_only=False)
    assert both["2026-11-10/s10"] == ["2026-11-11/s11", "2026-11-12/s12"]


def test_a_kept_repeat_index_takes_new_texts_but_not_new_times():
    """The index a build keeps (pickled) is updated in place when only texts changed; a story published at
    another time (its place in the order moves) makes the build index everything again."""
    import pickle

    from generator.analysis.repeat_index import RepeatIndex

    items = [Dated("a.md", NOON, FERRY), Dated("b.md", NOON + dt.timedelta(days=2), FERRY_OTHER)]
    kept = pickle.loads(pickle.dumps(RepeatIndex(items, 0.6)))
    edited = [items[0], Dated("b.md", NOON + dt.timedelta(days=2), "## New title\n\n" + FERRY_EDITED)]
    assert kept.update(edited, {}, {"b.md"})
    [found] = repeats(edited, 0.6, dt.timedelta(days=7), index=kept)
    assert (found.later, found.earlier) == ("b.md", "a.md")
    moved = [items[0], Dated("b.md", NOON - dt.timedelta(hours=1), FERRY_EDITED)]
    assert not pickle.loads(pickle.dumps(kept)).update(moved, {}, {"b.md"})


@given(st.integers(0, 150), st.lists(st.integers(0, 199), max_size=400))
def test_frequent_words_past_many_words_that_are_not_candidates(others: int, picks: list[int]):
    """The same with hundreds of distinct words, the most used of them not candidates (stop words, words
    with digits): the candidates are then found past the first words looked at."""
    from collections import Counter

    from generator.analysis.similarity import _STOP, CANDIDATE_TERMS, features

    stop_words = sorted(word for word in _STOP if len(word) >= 4)
    common = [stop_words[n] if n < len(stop_words) else f"w{n}x" for n in range(others)]
    listed = [word for word in common for _ in range(5)]
    listed += ["word" + "".join(chr(97 + int(digit)) for digit in str(n)) for n in picks]
    counts, first = Counter(listed), {}
    for at, word in enumerate(listed):
        first.setdefault(word, at)
    ranked = sorted((word for word in counts if len(word) >= 4 and word.isalpha() and word not in _STOP),
                    key=lambda word: (-counts[word], first[word]))[:CANDIDATE_TERMS]
    found = features(" ".join(listed))
    assert (list(found.words), list(found.numbers)) == (ranked, [counts[word] for word in ranked])


def test_the_minhash_multipliers_are_the_numbers_drawn_for_them_and_no_random_stream_is_started():
    """The constants file holds what numpy's default_rng drew for the permutations (seed 1) and the bands
    (seed 2); building a signature imports no numpy.random."""
    from generator.analysis import minhash

    drawn = np.random.default_rng(1).integers(1, 2 ** 63, size=(2, minhash.NUM_PERM), dtype=np.uint64)
    bands_drawn = np.random.default_rng(2).integers(1, 2 ** 63, size=minhash.NUM_PERM, dtype=np.uint64)
    assert (minhash._PERMUTATIONS == drawn).all() and (minhash._BAND_MIX == bands_drawn | np.uint64(1)).all()
    imported = subprocess.run([sys.executable, "-c", "import sys, generator.analysis.similarity as s; "
                               "s.features('a few words to sketch'); print('numpy.random' in sys.modules)"],
                              capture_output=True, text=True, check=True, cwd=Path(__file__).parent.parent)
    assert imported.stdout.strip() == "False"


def test_the_words_remembered_between_stories_are_bounded(monkeypatch):
    """A preview or a desk runs for days: the memo of which words may be distinctive stops growing."""
    from generator.analysis import similarity

    monkeypatch.setattr(similarity, "MAX_REMEMBERED", 1000)
    monkeypatch.setattr(similarity, "_CANDIDATE", similarity._Candidates())
    for text in range(3):
        similarity.features(" ".join(f"word{text}x{n}" for n in range(5000)))
    assert len(similarity._CANDIDATE) == 1000
