"""The word numbering LP032 and the evidence share: a term is its stem's hash, so the tables that find it may be
emptied at any moment, by no caller, without a term set made before meaning something else after."""

from __future__ import annotations

from generator.analysis.similarity import tokens
from generator.checks import wording
from generator.checks.wording import text_terms

TEXT = "The council approved the budget on Tuesday"


def test_a_large_vocabulary_is_emptied_and_gives_the_same_terms(monkeypatch):
    before = text_terms(TEXT)
    text_terms.cache_clear()
    monkeypatch.setattr(wording, "MAX_STEMS", 0)
    after = text_terms(TEXT)  # the tables emptied first
    assert len(wording._VOCABULARY.stems) < 10
    assert after == before and len(after) >= 4
    body = tokens(TEXT + " again")
    assert set(wording._VOCABULARY.bounded().lookup(body).tolist()) - {-1} == before | text_terms("again")


def test_a_small_vocabulary_is_kept():
    text_terms(TEXT)
    known = dict(wording._VOCABULARY.stems)
    assert wording._VOCABULARY.bounded().stems == known


def test_a_link_s_target_and_title_are_not_wording():
    """The same targets every check leaves out of a text's words (content.body.LINK_TARGETS): the words of a
    link's title in quotes are the link's, not the paragraph's."""
    from generator.analysis.similarity import tokens

    text = 'The council agreed [the minutes](https://x.org/m "budget ridership timetable") and <https://y.org/q>.'
    found = tokens(text, keep=False)
    inside = wording._in_targets(found)
    named = [found.data[start:end].decode() for start, end, hidden in zip(found.starts, found.ends, inside)
             if not hidden]
    assert named == ["the", "council", "agreed", "the", "minutes", "and"]
