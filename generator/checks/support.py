"""LP032: a paragraph, list item or table row shares enough of its distinctive wording with the claims it cites
(and their manifest's title). Calibrated on tests/checks/calibration/ (docs/checks.md gives the figures):
faithful paraphrases and analysis that restates some facts pass; a paragraph cited to the wrong manifest of
its ledger, or one that says what no cited claim says, does not. The same word overlap orders the claims a
reader is shown as the evidence for each paragraph, best match first."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from ..content.body import Unit
from ..content.findings import Finding
from ..content.models import Claim, ManifestFile, Story
from . import SiteIndex, rule
from .figures import figures
from .resolve import resolution
from .wording import terms

MIN_WORDS = 5          # fewer distinctive words than this say too little to judge as unsupported
MAX_SHARED = 2         # unsupported: at most this many words shared with the cited claims...
MIN_SHARE = 0.25       # ...and less than this share of the unit's words
WRONG_MARGIN = 3       # cited the wrong manifest: another ledger manifest shares this many more words,
WRONG_SHARE = 0.5      # at least half of the unit's words, and at least twice as many as the cited ones
_WHAT = {"item": "list item", "row": "table row", "paragraph": "paragraph"}
_TARGETS = re.compile(r"\]\([^)]*\)|<[^>\s]*>")
_WORD = re.compile(r"[^\W_](?:[\w'’-]*[^\W_])?")


@dataclass(frozen=True)
class Verdict:
    """How a unit's wording stands against its cited claims: shared words, and the best other ledger manifest."""

    words: frozenset[str]
    common: frozenset[str]  # the words the cited claims share
    other: str | None
    other_shared: int

    @property
    def shared(self) -> int:
        return len(self.common)

    @property
    def wrong_source(self) -> bool:
        best = self.other_shared
        return (best >= self.shared + WRONG_MARGIN and best >= 2 * self.shared
                and best >= WRONG_SHARE * len(self.words))

    @property
    def unsupported(self) -> bool:
        count = len(self.words)
        return count >= MIN_WORDS and self.shared <= MAX_SHARED and self.shared < MIN_SHARE * count


def verdict(text: str, cited: Iterable[str], pools: dict[str, frozenset[str]]) -> Verdict:
    """Judge text against the pools (manifest id -> its wording) of the manifests it cites and the others."""
    words = _unit_terms(text)
    cited = tuple(cited)
    common = words.intersection(*(pools.get(i, frozenset()) for i in cited)) if len(cited) == 1 else \
        words & frozenset().union(*(pools.get(i, frozenset()) for i in cited))
    other, best = None, 0
    for manifest_id, pool in pools.items():
        if manifest_id not in cited and (count := len(words & pool)) > best:
            other, best = manifest_id, count
    return Verdict(words, common, other, best)


@rule("LP032", "story", "a paragraph, list item or table row shares too little of its wording with the claims it cites",
      passes="each passage shares its wording with the claims it cites")
def wording_supported(story: Story, site: SiteIndex) -> Iterator[Finding]:
    units = site.bodies[story.path].units
    for index, judged in verdicts(story, site).items():
        if judged.wrong_source or judged.unsupported:
            yield Finding(story.path, units[index].line, units[index].col, "LP032", _message(units[index], judged))


def verdicts(story: Story, site: SiteIndex) -> dict[int, Verdict]:
    """Each judged unit's Verdict, by its index among the body's units (made once per story and run)."""
    key = ("verdicts", story.path)
    made = site.derived.get(key)
    if made is None:
        found, pools = resolution(story, site), ledger_pools(story, site)
        made = site.derived[key] = {
            index: verdict(unit.text, unit.cited_ids, pools) for index, unit in enumerate(site.bodies[story.path].units)
            if unit.cites and found.resolved(unit.cited_ids) and not _lead_in(unit)}
    return made  # type: ignore[return-value]


def misattributed(story: Story, site: SiteIndex) -> dict[int, str]:
    """Units LP032 finds cited to the wrong ledger manifest, and the one they rest on: their figures are not
    checked against the wrong claims (LP031), nor is the right manifest reported as never cited (LP021)."""
    if site.config.checks.get("LP032") == "off" or "LP032" in story.meta.waive:
        return {}
    return {index: judged.other for index, judged in verdicts(story, site).items() if judged.wrong_source}


def _lead_in(unit: Unit) -> bool:
    """A paragraph ending in a colon introduces the list after it, whose items carry the support."""
    return unit.kind == "paragraph" and unit.text.rstrip().endswith(":")


def _message(unit: Unit, judged: Verdict) -> str:
    cited = ", ".join(f"'{i}'" for i in unit.cited_ids)
    what = _WHAT[unit.kind]
    said = f"{what} shares {judged.shared} of its {len(judged.words)} distinctive words with the claims of {cited} it cites"
    if judged.wrong_source:
        return (f"{said}, and {judged.other_shared} with those of '{judged.other}' in the ledger: expected a citation "
                f"of the manifest it rests on, e.g. [cites: {judged.other}]")
    missing = ", ".join(_unshared(unit.text, judged.common)[:6])
    better = (f"; '{judged.other}' in the ledger shares {judged.other_shared}"
              if judged.other is not None and judged.other_shared > judged.shared else "")
    return (f"{said} (not in them: {missing}){better}: expected wording a cited claim supports, or a citation of the "
            "manifest that says it")


def _unshared(text: str, common: frozenset[str]) -> list[str]:
    """The unit's distinctive words as written (lower-cased) that no cited claim shares, in order, once."""
    text = _TARGETS.sub(" ", text)
    return [word for word in dict.fromkeys(_WORD.findall(text.lower())) if (stems := terms(word)) and not stems & common]


def ledger_pools(story: Story, site: SiteIndex) -> dict[str, frozenset[str]]:
    """Manifest id -> the wording of the claims the ledger uses from it, and of its title."""
    key = ("pools", story.path)
    made = site.derived.get(key)
    if made is None:
        found = resolution(story, site)
        made = site.derived[key] = {manifest_id: pool(site.manifests[manifest_id], tuple(c.text for c in claims))
                                    for manifest_id, claims in found.used.items()}
    return made  # type: ignore[return-value]


def pool(record: ManifestFile, claims: tuple[str, ...]) -> frozenset[str]:
    return _pool(record.manifest.title, claims)


@functools.lru_cache(maxsize=1 << 12)
def _pool(title: str, claims: tuple[str, ...]) -> frozenset[str]:
    """Manifests are cited by many stories: the wording of each title and set of claims is worked out once."""
    return frozenset().union(_claim_terms(title), *map(_claim_terms, claims))


@functools.lru_cache(maxsize=1 << 14)
def _claim_terms(text: str) -> frozenset[str]:
    return terms(text)


@functools.lru_cache(maxsize=1 << 10)
def _unit_terms(text: str) -> frozenset[str]:
    """A unit's words, kept while its story is checked and its evidence is aligned (both in one worker); the
    target of a link markdown-it refused to render is no wording (LP060 reports it)."""
    if "](" in text or "<" in text:
        text = _TARGETS.sub(" ", text)
    return terms(text)


Evidence = tuple[tuple[str, tuple[str, ...]], ...]  # ((manifest id, (claim id, … best first)), …)


def used_claims(story: Story, manifests: dict[str, ManifestFile]) -> dict[str, list[Claim]]:
    """Manifest id -> the claims the ledger uses from it that exist, in ledger order."""
    used: dict[str, list[Claim]] = {}
    for entry in story.meta.ledger:
        found = manifests.get(entry.manifest)
        if found is not None and entry.manifest not in used:
            by_id = {claim.id: claim for claim in found.manifest.claims}
            used[entry.manifest] = [by_id[claim_id] for claim_id in entry.claims if claim_id in by_id]
    return used


def align(units: list[Unit], used: dict[str, list[Claim]]) -> Evidence:
    """The claims that back a block's units, by manifest: those sharing the most words (and figures) first,
    and the manifest whose best claim matches best first; a cited manifest none of whose claims matches
    lists all the claims the ledger uses from it."""
    scores: dict[str, dict[str, int]] = {}
    for unit in units:
        words, figures = _unit_terms(unit.text), _figure_keys(unit.text)
        for manifest_id in unit.cited_ids:
            best = scores.setdefault(manifest_id, {})
            for claim in used.get(manifest_id, ()):
                score = len(words & _claim_terms(claim.text)) + 2 * len(figures & _figure_keys(claim.text))
                if score > best.get(claim.id, 0):
                    best[claim.id] = score
    found = []
    for order, (manifest_id, best) in enumerate(scores.items()):
        claims = used.get(manifest_id, [])
        rank = {claim.id: index for index, claim in enumerate(claims)}
        matched = sorted(best, key=lambda claim_id: (-best[claim_id], rank[claim_id]))
        top = best[matched[0]] if matched else 0
        found.append((-top, order, manifest_id, tuple(matched) or tuple(claim.id for claim in claims)))
    return tuple((manifest_id, claims) for _, _, manifest_id, claims in sorted(found))


@functools.lru_cache(maxsize=1 << 14)
def _figure_keys(text: str) -> frozenset[tuple]:
    return frozenset((figure.unit, figure.magnitude) if figure.date is None else figure.date for figure in figures(text))
