"""LP032: a paragraph, list item or table row shares enough of its distinctive wording with the claims it cites
(and their manifest's title). Calibrated on tests/checks/calibration/ (docs/checks.md gives the figures):
faithful paraphrases and analysis that restates some facts pass; a paragraph cited to the wrong manifest of
its ledger, or one that says what no cited claim says, does not."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from ..content.body import LINK_TARGETS, Unit
from ..content.findings import Finding
from ..content.models import Claim, Story
from . import SiteIndex
from .resolve import resolution
from .wording import stem_words, text_terms, unit_terms

MIN_WORDS = 5          # fewer distinctive words than this say too little to judge as unsupported
MAX_SHARED = 2         # unsupported: at most this many words shared with the cited claims...
MIN_SHARE = 0.25       # ...and less than this share of the unit's words
WRONG_MARGIN = 3       # cited the wrong manifest: another ledger manifest shares this many more words,
WRONG_SHARE = 0.5      # at least half of the unit's words, and at least twice as many as the cited ones


@dataclass(frozen=True)
class Verdict:
    """How a unit's wording stands against its cited claims: how many distinct terms it has, how many of them
    the cited claims share, and the other ledger manifest that shares the most."""

    words: int
    shared: int
    other: str | None
    other_shared: int

    @property
    def wrong_source(self) -> bool:
        best = self.other_shared
        return best >= self.shared + WRONG_MARGIN and best >= 2 * self.shared and best >= WRONG_SHARE * self.words

    @property
    def unsupported(self) -> bool:
        return self.words >= MIN_WORDS and self.shared <= MAX_SHARED and self.shared < MIN_SHARE * self.words


def verdict(words: frozenset[int], cited: Iterable[str], pools: dict[str, frozenset[int]]) -> Verdict:
    """Judge a passage's terms against the pools (manifest id -> its terms) of the manifests it cites and of
    the ledger's others."""
    cited = tuple(cited)
    pool = pools[cited[0]] if len(cited) == 1 else frozenset().union(*(pools.get(i, ()) for i in cited))
    other, best = None, 0
    for manifest_id, terms in pools.items():
        if manifest_id not in cited and (count := len(words & terms)) > best:
            other, best = manifest_id, count
    return Verdict(len(words), len(words & pool), other, best)


def wording_supported(story: Story, site: SiteIndex) -> Iterator[Finding]:
    """LP032's judgement of whole passages (registered with its judgement of sentences in sentence_rules.py)."""
    units = site.bodies[story.path].units
    for index, judged in verdicts(story, site).items():
        if judged.wrong_source or judged.unsupported:
            unit = units[index]
            pool = frozenset().union(*(ledger_pools(story, site).get(i, ()) for i in unit.cited_ids))
            yield Finding(story.path, unit.line, unit.col, "LP032", _message(unit, judged, pool))


def verdicts(story: Story, site: SiteIndex) -> dict[int, Verdict]:
    """Each judged unit's Verdict, by its index among the body's units (made once per story and run)."""
    return site.derive(("verdicts", story.path), lambda: _judge(story, site))


def _judge(story: Story, site: SiteIndex) -> dict[int, Verdict]:
    """verdict() for every judged unit of a story, on the terms wording.unit_terms found in one pass."""
    found, body = resolution(story, site), site.bodies[story.path]
    units = body.units
    cites = [tuple(unit.cited_ids) for unit in units]
    judged = [index for index, unit in enumerate(units) if cites[index] and found.resolved(cites[index]) and not _lead_in(unit)]
    if not judged:
        return {}
    words = unit_terms(story.body, body, story.body_line)
    pools = ledger_pools(story, site)
    return {index: verdict(words[index], cites[index], pools) for index in judged}


def misattributed(story: Story, site: SiteIndex) -> dict[int, str]:
    """Units LP032 finds cited to the wrong ledger manifest, and the one they rest on: their figures are not
    checked against the wrong claims (LP031), nor is the right manifest reported as never cited (LP021)."""
    if site.config.checks.get("LP032") == "off" or "LP032" in story.meta.waive:
        return {}
    return {index: judged.other for index, judged in verdicts(story, site).items() if judged.wrong_source}


def _lead_in(unit: Unit) -> bool:
    """A paragraph ending in a colon introduces the list after it, whose items carry the support."""
    return unit.kind == "paragraph" and unit.text.rstrip().endswith(":")


def _message(unit: Unit, judged: Verdict, pool: frozenset[int]) -> str:
    cited = ", ".join(f"'{i}'" for i in unit.cited_ids)
    said = (f"{unit.what} shares {judged.shared} of its {judged.words} distinctive words with the claims "
            f"of {cited} it cites")
    if judged.wrong_source:
        return (f"{said}, and {judged.other_shared} with those of '{judged.other}' in the ledger: expected a citation "
                f"of the manifest it rests on, e.g. [cites: {judged.other}]")
    text = LINK_TARGETS.sub(" ", unit.text)
    missing = ", ".join(stem_words(text, text_terms(text) - pool)[:6])
    better = (f"; '{judged.other}' in the ledger shares {judged.other_shared}"
              if judged.other is not None and judged.other_shared > judged.shared else "")
    return (f"{said} (not in them: {missing}){better}: expected wording a cited claim supports, or a citation of the "
            "manifest that says it")


def ledger_pools(story: Story, site: SiteIndex) -> dict[str, frozenset[int]]:
    """Manifest id -> the terms of the claims the ledger uses from it, of its title, and of its retraction's note
    (a passage may say that the source was withdrawn, and why)."""
    return site.derive(("pools", story.path), lambda: {
        manifest_id: pool(_titled(site.manifests[manifest_id].manifest), claims)
        for manifest_id, claims in resolution(story, site).used.items()})


def _titled(manifest) -> str:
    withdrawn = manifest.retracted
    return f"{manifest.title} {withdrawn.note} withdrawn retracted" if withdrawn else manifest.title


def pool(title: str, claims: Iterable[Claim | str]) -> frozenset[int]:
    """The terms of a manifest's title and of some of its claims (each text is read once per process)."""
    return text_terms(title).union(*(text_terms(c if isinstance(c, str) else c.text) for c in claims))
