"""The site's manifests as an agent looks for them: found by text, by the newsroom whose stories cite them, by
when they were published; one at a time with its claims, its retraction and the stories citing it."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ..checks.resolve import nearest
from ..content.findings import did_you_mean
from ..content.config import SiteConfig
from ..content.models import Manifest, ManifestFile, StoryBrief
from .errors import DeskError, site_broken
from .recheck import SiteChecks
from .schemas import CitingStory, ClaimOut, ManifestDetail, ManifestPage, ManifestSummary, Retraction

MAX_LIMIT = 100


@dataclass(frozen=True)
class Shelf:
    """The manifests and every story's brief (drafts too), as the desk's last check of the site read them."""

    config: SiteConfig
    manifests: Mapping[str, ManifestFile]
    briefs: list[StoryBrief]
    problems: list[str]


def shelf(checks: SiteChecks) -> Shelf:
    checked = checks.check(False, {})  # warm: only files changed since the last call are read again
    if checked.config is None:
        raise site_broken(checked.findings)
    briefs = sorted((record.brief for record in checked.records.values() if record.brief), key=lambda s: s.path)
    problems = [str(finding) for record in checked.manifest_records.values() for finding in record.findings]
    return Shelf(checked.config, checked.manifests, briefs, problems)


@dataclass(frozen=True)
class ManifestQuery:
    """Which manifests an agent asks for: words they must all hold (any case), the newsroom whose stories cite
    them, and when they were published (ISO 8601; a date alone, the whole day)."""

    text: str = ""
    newsroom: str | None = None
    published_after: str | None = None
    published_before: str | None = None


def list_manifests(checks: SiteChecks, query: ManifestQuery, cursor: str | None = None,
                   limit: int = 20) -> ManifestPage:
    """One page of the manifests that match, newest first."""
    start = _offset(cursor)
    after = _moment(query.published_after, "published_after", end=False)
    before = _moment(query.published_before, "published_before", end=True)
    text, newsroom = query.text, query.newsroom
    site = shelf(checks)
    if newsroom is not None and newsroom not in site.config.newsrooms:
        raise DeskError("unknown_newsroom", f"'{newsroom}' is not one of {', '.join(sorted(site.config.newsrooms))} "
                        "(from site.toml)", known=sorted(site.config.newsrooms))
    terms = text.casefold().split()
    found = [manifest for manifest in (item.manifest for item in site.manifests.values())
             if all(term in _words(manifest) for term in terms)
             and (newsroom is None or newsroom in _newsrooms(manifest.id, site.briefs))
             and (after is None or manifest.published >= after) and (before is None or manifest.published <= before)]
    found.sort(key=lambda manifest: (-manifest.published.timestamp(), manifest.id))
    if start and start >= len(found):  # no page gave it, or the manifests that match have changed since
        raise DeskError("bad_cursor", f"cursor '{cursor}' is past the {len(found)} manifests that match: pass the "
                        "`next_cursor` of the page before, or none to start again", total=len(found))
    page = found[start:start + limit]
    return ManifestPage(manifests=[_summary(site, manifest) for manifest in page], total=len(found),
                        next_cursor=str(start + limit) if start + limit < len(found) else None, problems=site.problems)


def get_manifest(checks: SiteChecks, manifest_id: str) -> ManifestDetail:
    """One manifest whole, with where a story may cite it and which stories do."""
    site = shelf(checks)
    found = site.manifests.get(manifest_id)
    if found is None:
        twin = nearest(manifest_id, site.manifests)
        raise DeskError("unknown_manifest", f"no manifest has the id '{manifest_id[:80]}'{did_you_mean(twin)}: "
                        "list_manifests finds them", did_you_mean=twin)
    manifest = found.manifest
    citing = [_citing(story, manifest.id) for story in _cited_by(manifest.id, site.briefs)]
    withdrawn = manifest.retracted
    try:
        until = manifest.published + dt.timedelta(days=site.config.manifest_max_age_days)
    except OverflowError:  # published near the end of the calendar: any time after it will do
        until = dt.datetime.max.replace(microsecond=0, tzinfo=dt.timezone.utc)
    usable = [claim.id for claim in manifest.claims if not claim.retracted]
    return ManifestDetail(
        id=manifest.id, title=manifest.title, source_name=manifest.source.name, source_url=manifest.source.url,
        published=_iso(manifest.published), brief=manifest.brief, path=found.path,
        retracted=Retraction(date=_iso(withdrawn.date), note=withdrawn.note) if withdrawn else None,
        claims=[ClaimOut(id=claim.id, text=claim.text, retracted=claim.retracted) for claim in manifest.claims],
        cited_by=citing, cite_until=_iso(until),
        ledger_entry=f"  - manifest: {json.dumps(manifest.id)}\n    claims: {json.dumps(usable)}\n")


def _summary(site: Shelf, manifest: Manifest) -> ManifestSummary:
    cited = _cited_by(manifest.id, site.briefs)
    return ManifestSummary(
        id=manifest.id, title=manifest.title, source_name=manifest.source.name, source_url=manifest.source.url,
        published=_iso(manifest.published),
        retracted=manifest.retracted is not None or any(claim.retracted for claim in manifest.claims),
        claims=len(manifest.claims), cited_by=len(cited), newsrooms=sorted({story.newsroom for story in cited}),
        path=site.manifests[manifest.id].path)


def _citing(story: StoryBrief, manifest_id: str) -> CitingStory:
    claims = next(list(claims) for entry, claims in story.ledger if entry == manifest_id)
    return CitingStory(path=story.path, url_path=story.url_path, title=story.title, published=_iso(story.published),
                       newsroom=story.newsroom, draft=story.draft, claims=claims,
                       corrected=manifest_id in story.corrected)


def _words(manifest: Manifest) -> str:
    """Everything the text filter looks in: id, title, brief, source, claims."""
    parts = [manifest.id, manifest.title, manifest.brief or "", manifest.source.name, manifest.source.url,
             *(claim.text for claim in manifest.claims)]
    return "\n".join(parts).casefold()


def _newsrooms(manifest_id: str, briefs: Iterable[StoryBrief]) -> set[str]:
    return {story.newsroom for story in _cited_by(manifest_id, briefs)}


def _cited_by(manifest_id: str, briefs: Iterable[StoryBrief]) -> list[StoryBrief]:
    """The stories whose ledger lists this manifest."""
    return [story for story in briefs if any(entry == manifest_id for entry, _ in story.ledger)]


def _offset(cursor: str | None) -> int:
    if cursor is None or cursor == "":
        return 0
    if not (cursor.isascii() and cursor.isdigit()) or len(cursor) > 9:  # int() takes no '²', which isdigit() does
        raise DeskError("bad_cursor", f"'{cursor[:40]}' is not a cursor: pass the `next_cursor` of the page before")
    return int(cursor)


def _moment(value: str | None, name: str, end: bool) -> dt.datetime | None:
    """An ISO 8601 date (the whole day, in UTC) or date and time (UTC when it has no offset)."""
    if value is None or value == "":
        return None
    try:
        if len(value) == 10:
            day = dt.datetime.combine(dt.date.fromisoformat(value), dt.time(), dt.timezone.utc)
            return day + dt.timedelta(days=1, microseconds=-1) if end else day
        moment = dt.datetime.fromisoformat(value)
    except ValueError:
        raise DeskError("bad_date", f"`{name}` '{value[:40]}' is not an ISO 8601 date (2026-11-20) or date and time "
                        "(2026-11-20T14:30:00Z)") from None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=dt.timezone.utc)


def _iso(moment: dt.datetime) -> str:
    return moment.astimezone(dt.timezone.utc).isoformat().replace("+00:00", "Z")

