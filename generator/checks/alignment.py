"""Every unit a reader sees, split into sentences (sentencex), each aligned to the claims that state it: the
claims of the manifests the unit cites that share the most of its distinctive words and figures, and any
further claim that states a part of it the first does not. The meaning checks compare each sentence with its
claims; every variant of a story publishes the alignment."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from sentencex import segment

from ..content.body import LINK_TARGETS, Body, Unit
from ..content.models import ManifestFile, Story
from .statements import content_stems

MIN_SCORE = 1.0    # a sentence rests on a claim sharing this weight of words and figures (one distinctive word: 1)
MIN_SHARED = 2     # ...and at least this many words or figures
MIN_GAIN = 1.0     # a further claim is added for this weight of what the ones before it do not state
MAX_CLAIMS = 3
_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")


@dataclass(frozen=True)
class ClaimRef:
    """A claim as the checks of one story see it."""

    manifest_id: str
    claim_id: str
    text: str
    title: str              # its manifest's
    listed: bool = True     # the story's ledger lists it
    retracted: bool = False  # the claim, or its whole manifest, was withdrawn

    @property
    def named(self) -> str:
        """How a message names its manifest: by title and id."""
        return f"'{self.title}' ({self.manifest_id})"


@dataclass
class Sentence:
    """One sentence of a unit and the claims it rests on, best first (none: nothing in the cited claims states
    it in words they share); aligned when first asked (`rests_on`): a check reads most sentences no closer
    than their words, a page shows every one."""

    start: int   # in the unit's text
    end: int
    text: str
    claims: tuple[ClaimRef, ...] | None = None   # None until aligned


@dataclass
class Place:
    """A unit a reader sees: a paragraph, list item or table row of the body, the title, the description, a
    heading, a key fact, an image caption or a correction note; the manifests whose claims may support it."""

    kind: str
    text: str
    cited: tuple[str, ...]
    unit: Unit | None = None        # a body unit: where its lines are
    loc: tuple | None = None        # a front-matter field: its place in the source map
    line: int = 0                   # a heading: its line

    @functools.cached_property
    def sentences(self) -> list[Sentence]:
        """Split when first asked: a check passes over most places whole (`meaning.worth_reading`)."""
        return [Sentence(start, end, self.text[start:end]) for start, end in sentence_spans(self.text)]


@dataclass
class Claims:
    """The claims one story may rest on: every claim of every manifest its ledger names, each with the terms
    alignment compares (and how many of the ledger's listed claims share each term)."""

    refs: dict[str, list[ClaimRef]]            # manifest id -> its claims, the ledger's first
    terms: dict[tuple[str, str], frozenset[str]]
    counts: dict[str, int]

    def weight(self, term: str) -> float:
        return (1.5 if term[0] == "#" else 1.0) / max(self.counts.get(term, 1), 1)

    def listed(self, manifest_ids: Iterable[str]) -> list[ClaimRef]:
        return [ref for manifest_id in manifest_ids for ref in self.refs.get(manifest_id, ()) if ref.listed]

    def unlisted(self, manifest_ids: Iterable[str]) -> list[ClaimRef]:
        return [ref for manifest_id in manifest_ids for ref in self.refs.get(manifest_id, ()) if not ref.listed]


def terms(text: str) -> frozenset[str]:
    """What alignment compares: a text's distinctive stems, and its numbers (as '#3.2')."""
    return content_stems(text) | {"#" + number.replace(",", "") for number in _NUMBER.findall(text)}


def rests_on(sentence: Sentence, place: Place, claims: Claims) -> tuple[ClaimRef, ...]:
    """The claims a sentence of a place rests on, aligned the first time they are asked for."""
    if sentence.claims is None:
        candidates = claims.listed(place.cited)
        sentence.claims = align(sentence.text, candidates, claims) if candidates else ()
    return sentence.claims


_claim_terms = functools.lru_cache(maxsize=1 << 14)(terms)  # (a claim is cited by many stories)


def story_claims(story: Story, manifests: Mapping[str, ManifestFile]) -> Claims:
    refs: dict[str, list[ClaimRef]] = {}
    for entry in story.meta.ledger:
        found = manifests.get(entry.manifest)
        if found is None or entry.manifest in refs or not hasattr(found, "manifest"):
            continue
        manifest = found.manifest
        withdrawn = manifest.retracted is not None
        listed = set(entry.claims)
        ordered = sorted(manifest.claims, key=lambda claim: claim.id not in listed)
        refs[entry.manifest] = [ClaimRef(entry.manifest, claim.id, claim.text, manifest.title, claim.id in listed,
                                         withdrawn or claim.retracted) for claim in ordered]
    found_terms = {(ref.manifest_id, ref.claim_id): _claim_terms(ref.text) for refs_of in refs.values() for ref in refs_of}
    counts: dict[str, int] = {}
    for refs_of in refs.values():
        for ref in refs_of:
            if ref.listed:
                for term in found_terms[(ref.manifest_id, ref.claim_id)]:
                    counts[term] = counts.get(term, 0) + 1
    return Claims(refs, found_terms, counts)


def align(text: str, candidates: list[ClaimRef], claims: Claims) -> tuple[ClaimRef, ...]:
    """The claims among `candidates` a sentence rests on, best first."""
    said = terms(text)
    scored = []
    for ref in candidates:
        shared = said & claims.terms[(ref.manifest_id, ref.claim_id)]
        if len(shared) >= MIN_SHARED or any(term[0] == "#" for term in shared):
            scored.append((sum(map(claims.weight, shared)), len(shared), ref, shared))
    scored.sort(key=lambda item: (-item[0], -item[1]))
    if not scored or scored[0][0] < MIN_SCORE:
        return ()
    chosen, covered = [scored[0][2]], set(scored[0][3])
    for score, _, ref, shared in scored[1:]:
        if len(chosen) == MAX_CLAIMS:
            break
        if sum(map(claims.weight, shared - covered)) >= MIN_GAIN:
            chosen.append(ref)
            covered |= shared
    return tuple(chosen)


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Where each sentence of a text starts and ends (sentencex: abbreviations, initials and decimals do not
    end one)."""
    spans, at = [], 0
    for piece in segment("en", text):
        start = text.find(piece, at)
        if start < 0:  # (sentencex gives back the text whole, in order; this is only a guard)
            start = at
        stripped = piece.strip()
        if stripped:
            lead = len(piece) - len(piece.lstrip())
            spans.append((start + lead, start + lead + len(stripped)))
        at = start + len(piece)
    return spans


def places(story: Story, body: Body) -> list[Place]:
    """Every unit of a story a reader sees, with the manifests whose claims may support it: a body unit its
    citations; a key fact its `cites`; a correction the manifest it names (else the whole ledger); the title,
    description, headings and the lead image's caption the whole ledger."""
    ledger = tuple(dict.fromkeys(entry.manifest for entry in story.meta.ledger))
    found = front_places(story)
    for section in body.sections:
        if section.title is not None:
            found.append(Place("heading", section.title, ledger, line=section.line))
        for block in section.blocks:
            for unit in block.units:
                if unit.cites:
                    found.append(Place(unit.what, LINK_TARGETS.sub(" ", unit.text), tuple(unit.cited_ids), unit=unit))
    return found


# The last story aligned, with the objects it was aligned from (held, so that no other object takes their ids):
# its rules, then its pages ask for it, in one process.
_LAST: list = []


def front_places(story: Story) -> list[Place]:
    """The places of a story's front matter: title, description, the lead image's caption, corrections, key facts."""
    ledger = tuple(dict.fromkeys(entry.manifest for entry in story.meta.ledger))
    meta = story.meta
    found = [Place("title", meta.title, ledger, loc=("title",)),
             Place("description", meta.description, ledger, loc=("description",))]
    if meta.image is not None and meta.image.caption:
        found.append(Place("caption", meta.image.caption, ledger, loc=("image", "caption")))
    for index, correction in enumerate(meta.corrections):
        found.append(Place("correction", correction.text, (correction.manifest,) if correction.manifest else ledger,
                           loc=("corrections", index, "text")))
    for index, fact in enumerate(meta.key_facts):
        found.append(Place("key fact", fact.text, tuple(dict.fromkeys(fact.cites)), loc=("key_facts", index, "text")))
    return found


def front_alignment(story: Story, manifests: Mapping[str, ManifestFile],
                    headings: list[str]) -> tuple[list[Place], Claims]:
    """The front matter's places and the headings, each sentence aligned (what a story's pages show of them)."""
    claims = story_claims(story, manifests)
    ledger = tuple(dict.fromkeys(entry.manifest for entry in story.meta.ledger))
    found = [*front_places(story), *(Place("heading", title, ledger) for title in headings)]
    for place in found:
        for sentence in place.sentences:
            rests_on(sentence, place, claims)
    return found, claims


def aligned(story: Story, body: Body, manifests: Mapping[str, ManifestFile]) -> tuple[list[Place], Claims]:
    """Every place of a story, its sentences each aligned to the claims the ledger lists from its cited manifests
    when first asked (`rests_on`), and those claims (made once for the last story asked about)."""
    if _LAST and _LAST[0] is story and _LAST[1] is body and _LAST[2] is manifests:
        return _LAST[3]
    claims = story_claims(story, manifests)
    found = places(story, body)
    _LAST[:] = [story, body, manifests, (found, claims)]
    return found, claims


Shown = tuple[tuple[str, tuple[tuple[str, str], ...]], ...]  # ((sentence, ((manifest id, claim id), …)), …)


def place_rows(place: Place, claims: Claims) -> Shown:
    """A place's sentences as its pages show them: each with the claims it rests on."""
    return tuple((s.text, tuple((ref.manifest_id, ref.claim_id) for ref in rests_on(s, place, claims)))
                 for s in place.sentences)


def block_sentences(story: Story, body: Body, manifests: Mapping[str, ManifestFile]) -> list[Shown]:
    """Per block of the body (sections in order, then blocks), its units' sentences with their claims."""
    found, claims = aligned(story, body, manifests)
    by_unit = {id(place.unit): place for place in found if place.unit is not None}
    return [tuple(row for unit in block.units if id(unit) in by_unit for row in place_rows(by_unit[id(unit)], claims))
            for section in body.sections for block in section.blocks]
