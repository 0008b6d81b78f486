"""LP02x: citations, the ledger and the manifests agree."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator

from ..content.findings import Finding
from ..content.models import Story
from . import SiteIndex, rule


def cited_places(story: Story, site: SiteIndex) -> Iterator[tuple[str, int, int]]:
    """Every cited manifest id with the place it is cited: body markers, then key facts."""
    for cite in site.bodies[story.path].cites:
        for manifest_id in cite.ids:
            yield manifest_id, cite.line, cite.col
    for i, fact in enumerate(story.meta.key_facts):
        for j, manifest_id in enumerate(fact.cites):
            yield manifest_id, *story.source.at(("key_facts", i, "cites", j))


@rule("LP020", "story", "a [cites: X] names a manifest that is not in the story's ledger",
      passes="every citation is listed in the ledger")
def cite_in_ledger(story: Story, site: SiteIndex) -> Iterator[Finding]:
    ledger = {entry.manifest for entry in story.meta.ledger}
    for manifest_id, line, col in cited_places(story, site):
        if manifest_id and manifest_id not in ledger:
            yield Finding(story.path, line, col, "LP020", f"cites manifest '{manifest_id}', which is not in the ledger")


@rule("LP021", "story", "a ledger manifest is never cited")
def ledger_cited(story: Story, site: SiteIndex) -> Iterator[Finding]:
    cited = {manifest_id for manifest_id, _, _ in cited_places(story, site)}
    for i, entry in enumerate(story.meta.ledger):
        if entry.manifest not in cited:
            yield story.source.finding(("ledger", i, "manifest"), "LP021",
                                       f"ledger manifest '{entry.manifest}' is never cited")


@rule("LP022", "story", "a ledger manifest does not exist in content/manifests",
      passes="every cited manifest exists")
def manifest_exists(story: Story, site: SiteIndex) -> Iterator[Finding]:
    for i, entry in enumerate(story.meta.ledger):
        if entry.manifest not in site.manifests:
            yield story.source.finding(("ledger", i, "manifest"), "LP022",
                                       f"manifest '{entry.manifest}' does not exist in content/manifests")


@rule("LP023", "story", "a ledger manifest is not recent", passes="every cited manifest is recent")
def manifest_recent(story: Story, site: SiteIndex) -> Iterator[Finding]:
    days = site.config.manifest_max_age_days
    published = story.meta.published
    for i, entry in enumerate(story.meta.ledger):
        found = site.manifests.get(entry.manifest)
        if found is None:
            continue
        when = found.manifest.published
        if when > published:
            why = f"was published {_utc(when)}, after the story ({_utc(published)})"
        elif when < published - dt.timedelta(days=days):
            why = f"was published {_utc(when)}, more than {days} days before the story ({_utc(published)})"
        else:
            continue
        yield story.source.finding(("ledger", i, "manifest"), "LP023", f"manifest '{entry.manifest}' {why}")


def _utc(moment: dt.datetime) -> str:
    return moment.astimezone(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


@rule("LP024", "story", "a ledger claim id does not belong to that manifest",
      passes="claim ids belong to their manifest")
def claims_belong(story: Story, site: SiteIndex) -> Iterator[Finding]:
    for i, entry in enumerate(story.meta.ledger):
        found = site.manifests.get(entry.manifest)
        if found is None:
            continue
        known = {claim.id for claim in found.manifest.claims}
        for j, claim_id in enumerate(entry.claims):
            if claim_id not in known:
                yield story.source.finding(("ledger", i, "claims", j), "LP024",
                                           f"claim '{claim_id}' does not belong to manifest '{entry.manifest}'")


@rule("LP025", "story", "a ledger entry lists no claims, or a manifest appears twice")
def entries_well_formed(story: Story, site: SiteIndex) -> Iterator[Finding]:
    seen: set[str] = set()
    for i, entry in enumerate(story.meta.ledger):
        if entry.manifest in seen:
            yield story.source.finding(("ledger", i, "manifest"), "LP025",
                                       f"manifest '{entry.manifest}' appears twice in the ledger")
        seen.add(entry.manifest)
        if not entry.claims:
            yield story.source.finding(("ledger", i, "claims"), "LP025",
                                       f"ledger entry for '{entry.manifest}' lists no claims")
        repeated = sorted({c for c in entry.claims if entry.claims.count(c) > 1})
        for claim_id in repeated:
            j = len(entry.claims) - 1 - entry.claims[::-1].index(claim_id)
            yield story.source.finding(("ledger", i, "claims", j), "LP025",
                                       f"claim '{claim_id}' is listed twice for '{entry.manifest}'")
