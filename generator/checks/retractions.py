"""LP026: a story that rests on a retracted source says so. A manifest or claim marked `retracted` fails every
story citing it until the story carries a correction naming that manifest (SPEC 6.2) and no longer states what
was withdrawn: a sentence aligned to a retracted claim fails whatever correction the story carries."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

from ..content.findings import Finding
from ..content.models import ManifestFile, Story, StoryBrief
from . import SiteIndex, rule
from .sentence_rules import retracted_statements


@rule("LP026", "story", "the story cites a retracted manifest or claim and has no correction that acknowledges it, or still "
      "states what was withdrawn",
      passes="no source it cites was retracted without a correction")
def retracted_sources(story: Story, site: SiteIndex) -> Iterator[Finding]:
    """A sentence still stating a retracted claim is the finding, wherever the story corrects it; a story that
    no longer states it needs a correction naming the manifest."""
    stating = list(retracted_statements(story, site))
    yield from stating
    corrected = {correction.manifest for correction in story.meta.corrections if correction.manifest}
    for i, entry in enumerate(story.meta.ledger):
        found = site.manifests.get(entry.manifest)
        if found is None or entry.manifest in corrected or stating:
            continue
        manifest = found.manifest
        withdrawn = manifest.retracted
        day = max(_day(story.meta.published), _day(withdrawn.date) if withdrawn else "")
        fix = (f"expected a correction naming it, e.g. corrections: [{{date: {day}, text: \"…\", "
               f"manifest: \"{entry.manifest}\"}}]")
        if withdrawn is not None:
            yield story.source.finding(("ledger", i, "manifest"), "LP026",
                                       f"manifest '{entry.manifest}' was retracted on {_day(withdrawn.date)} "
                                       f"({withdrawn.note.rstrip('.')}): {fix}", subject=entry.manifest)
            continue
        claims = {claim.id for claim in manifest.claims if claim.retracted}
        for j, claim_id in enumerate(entry.claims):
            if claim_id in claims:
                yield story.source.finding(("ledger", i, "claims", j), "LP026",
                                           f"claim '{claim_id}' of manifest '{entry.manifest}' was retracted: {fix}",
                                           subject=entry.manifest)


def _day(moment: dt.datetime) -> str:
    return moment.astimezone(dt.timezone.utc).date().isoformat()


@dataclass(frozen=True)
class Affected:
    """A retracted manifest (or one with a retracted claim) and the stories that cite it."""

    manifest_id: str
    what: str                       # "retracted 2026-11-28" or "claim 123 retracted"
    stories: list[tuple[str, bool]]  # (story path, carries a correction naming it)


def affected(stories: Iterable[StoryBrief], manifests: Mapping[str, ManifestFile]) -> list[Affected]:
    """Every retraction and the stories resting on it, corrected or not."""
    found: dict[str, Affected] = {}
    for story in sorted(stories, key=lambda s: s.path):
        for manifest_id, claims in story.ledger:
            what = _retraction(manifests, manifest_id, claims)
            if what:
                item = found.setdefault(manifest_id, Affected(manifest_id, what, []))
                item.stories.append((story.path, manifest_id in story.corrected))
    return [found[key] for key in sorted(found)]


def _retraction(manifests: Mapping[str, ManifestFile], manifest_id: str, claims: Iterable[str]) -> str:
    record = manifests.get(manifest_id)
    if record is None:
        return ""
    manifest = record.manifest
    if manifest.retracted is not None:
        return f"retracted {_day(manifest.retracted.date)}: {manifest.retracted.note}"
    withdrawn = [claim.id for claim in manifest.claims if claim.retracted and claim.id in claims]
    return f"claim{'s' * (len(withdrawn) > 1)} {', '.join(withdrawn)} retracted" if withdrawn else ""
