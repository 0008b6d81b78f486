"""The evidence a reader is shown for each block of a story: the claims its paragraphs cite, ordered by the
same word overlap LP032 judges by (and by shared figures), best match first."""

from __future__ import annotations

import functools

from ..content.body import Body, Unit
from ..content.models import Claim, ManifestFile, Story
from .figures import figures
from .resolve import used_claims
from .wording import text_terms, unit_terms

MIN_BACKING = 2  # a claim backs a passage with this score (shared words, 2 per figure) or more

Backing = tuple[tuple[str, tuple[str, ...]], ...]  # ((manifest id, (claim id, … best first)), …)


def block_backing(story: Story, body: Body, manifests: dict[str, ManifestFile]) -> list[Backing]:
    """Per block of the body (sections in order, then blocks), the claims that back it (align)."""
    used = used_claims(story, manifests)
    words = unit_terms(story.body, body, story.body_line) if body.cites else []
    index = {id(unit): i for i, unit in enumerate(body.units)}
    return [align([(unit, words[index[id(unit)]]) for unit in block.units], used) if block.cited_ids else ()
            for section in body.sections for block in section.blocks]


def align(units: list[tuple[Unit, frozenset[int]]], used: dict[str, list[Claim]]) -> Backing:
    """The claims that back a block's units (each with its terms), by manifest: those sharing the most words
    (and figures) first, and the manifest whose best claim matches best first; a cited manifest none of whose
    claims matches lists all the claims the ledger uses from it."""
    scores: dict[str, dict[str, int]] = {}
    for unit, words in units:
        numbers = _figure_keys(unit.text)
        for manifest_id in unit.cited_ids:
            best = scores.setdefault(manifest_id, {})
            for claim in used.get(manifest_id, ()):
                score = len(words & text_terms(claim.text)) + 2 * len(numbers & _figure_keys(claim.text))
                if score > best.get(claim.id, 0):
                    best[claim.id] = score
    found = []
    for order, (manifest_id, best) in enumerate(scores.items()):
        claims = used.get(manifest_id, [])
        rank = {claim.id: index for index, claim in enumerate(claims)}
        top = max(best.values(), default=0)
        floor = max(MIN_BACKING, top / 3) if top >= MIN_BACKING else top  # a word or two in common is chance
        matched = sorted((c for c, score in best.items() if score >= floor), key=lambda c: (-best[c], rank[c]))
        found.append((-top, order, manifest_id, tuple(matched) or tuple(claim.id for claim in claims)))
    return tuple((manifest_id, claims) for _, _, manifest_id, claims in sorted(found))


@functools.lru_cache(maxsize=1 << 14)
def _figure_keys(text: str) -> frozenset[tuple]:
    return frozenset((figure.unit, figure.magnitude) if figure.date is None else figure.date for figure in figures(text))
