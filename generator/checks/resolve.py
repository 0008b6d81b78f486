"""What a story's ids resolve to, worked out once for every rule: one mistyped id is one finding, and the rules
that would only repeat it (an unsupported figure, a manifest never cited) leave alone what it touches."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from ..content.cites import cited_ids
from ..content.models import Claim, LedgerEntry, ManifestFile, Story
from . import SiteIndex


@dataclass
class Resolution:
    """A story's ledger as it resolves against content/manifests."""

    entries: dict[str, LedgerEntry]                                 # manifest id -> its first ledger entry
    used: dict[str, list[Claim]] = field(default_factory=dict)      # manifest id -> the ledger's claims of it
    unresolved: set[str] = field(default_factory=set)               # ids whose claims cannot be known
    cite_hint: dict[str, str] = field(default_factory=dict)         # cited id not in the ledger -> ledger id
    ledger_hint: dict[str, str] = field(default_factory=dict)       # ledger id that is no manifest -> cited id

    def resolved(self, ids: Iterable[str]) -> bool:
        """True when every id is a ledger manifest whose claims are known: only then can support be judged."""
        return not any(manifest_id in self.unresolved or manifest_id not in self.entries for manifest_id in ids)


def used_claims(story: Story, manifests: Mapping[str, ManifestFile]) -> dict[str, list[Claim]]:
    """Manifest id -> the claims the ledger uses from it that exist, in ledger order."""
    used: dict[str, list[Claim]] = {}
    for entry in story.meta.ledger:
        found = manifests.get(entry.manifest)
        if found is not None and entry.manifest not in used:
            by_id = {claim.id: claim for claim in found.manifest.claims}
            used[entry.manifest] = [by_id[claim_id] for claim_id in entry.claims if claim_id in by_id]
    return used


def resolution(story: Story, site: SiteIndex) -> Resolution:
    """The story's Resolution, made once per story and check run."""
    return site.derive(("resolution", story.path), lambda: _resolve(story, site))


def _resolve(story: Story, site: SiteIndex) -> Resolution:
    entries: dict[str, LedgerEntry] = {}
    for entry in story.meta.ledger:
        entries.setdefault(entry.manifest, entry)
    result = Resolution(entries, used_claims(story, site.manifests))
    for manifest_id, entry in entries.items():
        found = site.manifests.get(manifest_id)
        if found is None:
            result.unresolved.add(manifest_id)
            continue
        ids = [claim.id for claim in found.manifest.claims]
        twice = len(set(ids)) < len(ids)  # LP102: which claim an id names is unknown
        if not entry.claims or twice or any(claim_id not in ids for claim_id in entry.claims):
            result.unresolved.add(manifest_id)
    stray = [i for i in cited_ids(story, site.bodies[story.path]) if i not in entries]
    missing = [i for i in entries if i not in site.manifests]
    for cited in stray:
        if cited in site.manifests and (twin := nearest(cited, missing)):
            result.ledger_hint[twin] = cited  # the ledger has the typo: its id is no manifest, the cited one is
        elif twin := nearest(cited, [i for i in entries if i not in result.ledger_hint]):
            result.cite_hint[cited] = twin
    return result


def nearest(wrong: str, known: Iterable[str]) -> str | None:
    """The known id a mistyped one most likely meant (a character or two off), if one alone is that close."""
    cutoff = 0.85 if len(wrong) >= 12 else 0.75  # long ids (19 digits) may differ in two characters, short in one
    scored = []
    for candidate in known:
        matcher = difflib.SequenceMatcher(None, wrong, candidate)
        if matcher.real_quick_ratio() >= cutoff and matcher.quick_ratio() >= cutoff and (ratio := matcher.ratio()) >= cutoff:
            scored.append((ratio, candidate))
    scored.sort(reverse=True)
    if not scored or (len(scored) > 1 and scored[1][0] == scored[0][0]):
        return None  # nothing close, or two as close: a guess would mislead
    return scored[0][1]
