"""The word numbering LP032 and the evidence share: started afresh only between checks, and then wholly."""

from __future__ import annotations

from generator.checks import wording
from generator.checks.wording import forget_words, text_terms

TEXT = "The council approved the budget on Tuesday"


def test_a_large_vocabulary_is_numbered_afresh_with_every_term_set_it_made(monkeypatch):
    text_terms("quokka wombat numbat")  # so that the text's terms are not the first numbers
    before = text_terms(TEXT)
    monkeypatch.setattr(wording, "MAX_STEMS", 0)
    forget_words()
    after = text_terms(TEXT)
    assert len(after) == len(before) >= 4
    assert sorted(after) == list(range(len(after)))  # numbered from the start, not the cached sets of before


def test_a_small_vocabulary_is_kept():
    before = text_terms(TEXT)
    forget_words()
    assert text_terms(TEXT) == before


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
