"""A text's distinctive wording, for LP032 and the evidence a reader sees: its words lower-cased, without stop
words (the `stop-words` package's English list) and reduced to their Snowball stems (`snowballstemmer`), so
that 'voted', 'votes' and 'vote' are one term and 'the', 'which', 'said' none."""

from __future__ import annotations

import string

import snowballstemmer
from stop_words import get_stop_words

_STEMMER = snowballstemmer.stemmer("english")
_STOP = frozenset(get_stop_words("en"))
# Punctuation splits words (`on-street`, `council's`); digits stay (`Route 14` shares its 14 with a claim).
_SPACES = str.maketrans({mark: " " for mark in string.punctuation + "‘’“”–—…•·×€£"})
_STEMS: dict[str, str] = {}  # word -> stem, "" for a word that is no term: each word is stemmed once
_MAX_STEMS = 1 << 18         # a preview server runs for hours: the cache is emptied past this


def terms(text: str) -> frozenset[str]:
    """The stems of text's content words."""
    words = set(text.lower().translate(_SPACES).split())
    words.difference_update(_STOP)
    found = set(map(_STEMS.get, words))  # known words looked up without a Python-level loop
    if None in found:
        found.discard(None)
        if len(_STEMS) > _MAX_STEMS:
            _STEMS.clear()
        for word in words:
            stem = _STEMS.get(word)
            if stem is None:
                stem = _STEMS[word] = _stem(word)
            found.add(stem)
    found.discard("")
    return frozenset(found)


def _stem(word: str) -> str:
    if len(word) < 2 or word in _STOP:
        return ""
    return word if word.isdigit() else _STEMMER.stemWord(word)
