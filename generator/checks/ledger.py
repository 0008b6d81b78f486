"""LP02x: citations, the ledger and the manifests agree."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator

from ..content.findings import Finding, did_you_mean
from ..content.models import Story
from . import SiteIndex, rule
from .resolve import nearest, resolution
from .support import misattributed


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
    found = resolution(story, site)
    typos = set(found.ledger_hint.values())
    for manifest_id, line, col in cited_places(story, site):
        if not manifest_id or manifest_id in found.entries or manifest_id in typos:
            continue  # an empty id is LP004's; a ledger typo is reported once, at the ledger (LP022)
        if twin := found.cite_hint.get(manifest_id):
            why = f"which is not in the ledger: expected an id the ledger lists{did_you_mean(twin)}"
        elif manifest_id in site.manifests:
            why = f"which is not in the ledger: add it, e.g. ledger: [{{manifest: \"{manifest_id}\", claims: [\"<claim id>\"]}}]"
        else:
            why = ("which is neither in the ledger nor in content/manifests: expected an id the ledger lists, "
                   f"e.g. [cites: {next(iter(found.entries), '<manifest id>')}]")
        yield Finding(story.path, line, col, "LP020", f"cites manifest '{manifest_id}', {why}", subject=manifest_id)


@rule("LP021", "story", "a ledger manifest is never cited", passes="every ledger manifest is cited")
def ledger_cited(story: Story, site: SiteIndex) -> Iterator[Finding]:
    found = resolution(story, site)
    cited = {manifest_id for manifest_id, _, _ in cited_places(story, site)}
    meant = set(found.cite_hint.values())  # cited under a mistyped id (LP020), or for the wrong manifest (LP032)
    for i, entry in enumerate(story.meta.ledger):
        if entry.manifest in cited or entry.manifest in meant or entry.manifest not in site.manifests:
            continue
        if entry.manifest not in misattributed(story, site).values():
            yield story.source.finding(("ledger", i, "manifest"), "LP021",
                                       f"ledger manifest '{entry.manifest}' is never cited: cite it where the story "
                                       f"uses it, e.g. [cites: {entry.manifest}], or remove it from the ledger")


@rule("LP022", "story", "a ledger manifest does not exist in content/manifests",
      passes="every cited manifest exists")
def manifest_exists(story: Story, site: SiteIndex) -> Iterator[Finding]:
    found = resolution(story, site)
    for i, entry in enumerate(story.meta.ledger):
        if entry.manifest not in site.manifests:
            cited = found.ledger_hint.get(entry.manifest)
            hint = f" (did you mean '{cited}', which the story cites?)" if cited else ""
            yield story.source.finding(("ledger", i, "manifest"), "LP022",
                                       f"manifest '{entry.manifest}' does not exist: expected a file "
                                       f"content/manifests/{entry.manifest}.json{hint}", subject=entry.manifest)


@rule("LP023", "story", "a ledger manifest is not recent", passes="every cited manifest is recent")
def manifest_recent(story: Story, site: SiteIndex) -> Iterator[Finding]:
    days = site.config.manifest_max_age_days
    published = story.meta.published
    earliest = published - dt.timedelta(days=days)
    for i, entry in enumerate(story.meta.ledger):
        found = site.manifests.get(entry.manifest)
        if found is None:
            continue
        when = found.manifest.published
        if when > published:
            why = (f"was published {_utc(when)}, after the story ({_utc(published)}): expected a source published "
                   "before the story cites it; check both published times")
        elif when < earliest:
            why = (f"was published {_utc(when)}, more than {days} days before the story ({_utc(published)}): expected "
                   f"one published on or after {_utc(earliest)} (manifest_max_age_days = {days}), or, to cite an "
                   "older source on purpose, waive: {LP023: \"<why it is cited>\"}")
        else:
            continue
        yield story.source.finding(("ledger", i, "manifest"), "LP023", f"manifest '{entry.manifest}' {why}")


def _utc(moment: dt.datetime) -> str:
    return moment.astimezone(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


@rule("LP024", "story", "a ledger claim id does not belong to that manifest",
      passes="claim ids belong to their manifest")
def claims_belong(story: Story, site: SiteIndex) -> Iterator[Finding]:
    owners = {claim.id: entry.manifest for entry in story.meta.ledger if entry.manifest in site.manifests
              for claim in site.manifests[entry.manifest].manifest.claims}
    for i, entry in enumerate(story.meta.ledger):
        found = site.manifests.get(entry.manifest)
        if found is None:
            continue
        known = [claim.id for claim in found.manifest.claims]
        for j, claim_id in enumerate(entry.claims):
            if claim_id in known:
                continue
            said = f"claim '{claim_id}' does not belong to manifest '{entry.manifest}'"
            expected = f"expected one of its {len(known)} claim ids, e.g. '{known[0]}'"
            if claim_id in owners:  # listed under the wrong ledger entry
                yield story.source.finding(("ledger", i, "claims", j), "LP024", f"{said}: it is a claim of "
                                           f"'{owners[claim_id]}': expected it under that manifest's ledger entry")
            else:  # a mistyped one is suggested here; checks.follow names its manifest if another has it
                yield story.source.finding(("ledger", i, "claims", j), "LP024",
                                           f"{said}{did_you_mean(nearest(claim_id, known))}: {expected}", subject=claim_id)


@rule("LP025", "story", "a ledger entry lists no claims, or a manifest appears twice",
      passes="each ledger entry lists its claims once")
def entries_well_formed(story: Story, site: SiteIndex) -> Iterator[Finding]:
    seen: set[str] = set()
    for i, entry in enumerate(story.meta.ledger):
        if entry.manifest in seen:
            yield story.source.finding(("ledger", i, "manifest"), "LP025",
                                       f"manifest '{entry.manifest}' appears twice in the ledger: expected one entry "
                                       "listing all the claims used from it")
        seen.add(entry.manifest)
        if not entry.claims:
            yield story.source.finding(("ledger", i, "claims"), "LP025",
                                       f"ledger entry for '{entry.manifest}' lists no claims: expected the ids of the "
                                       "claims the story uses, e.g. claims: [\"<claim id>\"]")
        repeated = sorted({c for c in entry.claims if entry.claims.count(c) > 1})
        for claim_id in repeated:
            j = len(entry.claims) - 1 - entry.claims[::-1].index(claim_id)
            yield story.source.finding(("ledger", i, "claims", j), "LP025",
                                       f"claim '{claim_id}' is listed twice for '{entry.manifest}': expected each once")
