"""The maintained word lists of the meaning checks (lexicon.yaml), read once: single words as sets, phrases of
several words by their first word, so that a text's words are looked up one by one."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

import yaml

_SOURCE = Path(__file__).with_name("lexicon.yaml")

Phrase = tuple[str, ...]


@dataclass(frozen=True)
class Words:
    """A list of words and phrases: `find(tokens, i)` is the longest entry starting at token i (its length), 0
    when none does."""

    entries: dict[str, tuple[Phrase, ...]]  # first word -> the entries it starts, longest first

    @classmethod
    def of(cls, items) -> "Words":
        entries: dict[str, list[Phrase]] = {}
        for item in items:
            phrase = tuple(str(item).lower().split())
            entries.setdefault(phrase[0], []).append(phrase)
        return cls({first: tuple(sorted(found, key=len, reverse=True)) for first, found in entries.items()})

    def find(self, tokens: list[str], i: int) -> int:
        for phrase in self.entries.get(tokens[i], ()):
            if tuple(tokens[i:i + len(phrase)]) == phrase:
                return len(phrase)
        return 0

    def __contains__(self, word: str) -> bool:
        return word in self.entries


@dataclass(frozen=True)
class Lexicon:
    negators: Words
    not_negation: Words
    opposites: dict[str, tuple[Words, Words]]
    possibility: Words
    intention: Words
    asserting: Words
    done: Words
    attributing: Words
    superlatives: tuple[Words, ...]
    absolutes: tuple[Words, ...]
    ordinal_after: frozenset[str]
    hedges: dict[str, Words]
    fractions: dict[str, float | None]
    speech: frozenset[str]
    not_names: frozenset[str]
    titles: frozenset[str]
    organisations: frozenset[str]
    generic_organisations: frozenset[str]
    marked: frozenset[str]  # every first word of every list: a sentence without one needs no close reading
    index: dict[str, tuple[tuple[tuple, Phrase], ...]]  # first word -> (list, phrase) of every list's entries

    def at(self, tokens: list[str], i: int) -> list[tuple[tuple, int]]:
        """The lists an entry starting at token i belongs to, with the entry's length (longest first)."""
        found = []
        for key, phrase in self.index.get(tokens[i], ()):
            if len(phrase) == 1 or tuple(tokens[i:i + len(phrase)]) == phrase:
                found.append((key, len(phrase)))
        return found


@functools.cache
def lexicon() -> Lexicon:
    # BaseLoader: every word a string ("no", "on" and "off" are no booleans here)
    data = yaml.load(_SOURCE.read_text(encoding="utf-8"), Loader=yaml.BaseLoader)
    opposites = {name: (Words.of(pair[0]), Words.of(pair[1])) for name, pair in data["opposites"].items()}
    superlatives = tuple(Words.of(group) for group in data["superlatives"])
    absolutes = tuple(Words.of(group) for group in data["absolutes"])
    hedges = {name: Words.of(items) for name, items in data["hedges"].items()}
    lists = [Words.of(data["negators"]), Words.of(data["possibility"]), *superlatives, *absolutes,
             *(words for pair in opposites.values() for words in pair)]
    marked = frozenset(first for words in lists for first in words.entries)
    keyed = [(("negator",), Words.of(data["negators"])), (("not_negation",), Words.of(data["not_negation"])),
             (("possible",), Words.of(data["possibility"])), (("intends",), Words.of(data["intention"])),
             (("asserts",), Words.of(data["asserting"])), (("done",), Words.of(data["done"])),
             (("attributes",), Words.of(data["attributing"])),
             *((("superlative", g), words) for g, words in enumerate(superlatives)),
             *((("absolute", g), words) for g, words in enumerate(absolutes)),
             *((("opposite", name, side), words) for name, pair in opposites.items()
               for side, words in zip((1, -1), pair))]
    index: dict[str, list[tuple[tuple, Phrase]]] = {}
    for key, words in keyed:
        for first, phrases in words.entries.items():
            index.setdefault(first, []).extend((key, phrase) for phrase in phrases)
    frozen = {first: tuple(sorted(found, key=lambda item: -len(item[1]))) for first, found in index.items()}
    return Lexicon(Words.of(data["negators"]), Words.of(data["not_negation"]), opposites,
                   Words.of(data["possibility"]), Words.of(data["intention"]), Words.of(data["asserting"]),
                   Words.of(data["done"]), Words.of(data["attributing"]), superlatives, absolutes,
                   frozenset(data["ordinal_after"]), hedges, {k: float(v) for k, v in data["fractions"].items()}, frozenset(data["speech"]),
                   frozenset(data["not_names"]), frozenset(data["titles"]), frozenset(data["organisations"]),
                   frozenset(data["generic_organisations"]),
                   marked, frozen)
