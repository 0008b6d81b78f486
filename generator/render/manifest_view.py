"""The view of a manifest page: the record, every claim, and every story that cites it."""

from __future__ import annotations

from ..content.config import SiteConfig
from ..content.models import ManifestFile
from .dates import iso_z
from .ledger_rows import manifest_path
from .teaser import Teaser
from .view import View


class ClaimUse(View):
    """A manifest's claim and the stories whose ledgers use it."""

    id: str
    text: str
    used_by: list[str]
    retracted: bool


class RetractionView(View):
    """The source withdrew the whole record: when, and what it said."""

    date: str
    note: str


class Backlink(View):
    key: str
    title: str
    url: str
    path: str
    published: str
    claims_used: list[str]


class ManifestView(View):
    """A manifest page: the record, every claim, and every story that cites it."""

    id: str
    title: str
    source_name: str
    source_url: str
    published: str
    brief: str | None
    url: str
    path: str
    retracted: RetractionView | None
    claims: list[ClaimUse]
    stories: list[Backlink]
    unused_claims: int


def manifest_view(found: ManifestFile, citing: list[Teaser], config: SiteConfig) -> ManifestView:
    """citing: every story whose ledger lists this manifest, in any order."""
    manifest = found.manifest
    backlinks = []
    for story in sorted(citing, key=lambda view: (view.published, view.path), reverse=True):
        backlinks.append(Backlink(key=story.path.removeprefix("/stories/").strip("/"), title=story.title,
                                  url=story.url, path=story.path, published=story.published,
                                  claims_used=_claims_used(story, manifest.id)))
    claims = [ClaimUse(id=claim.id, text=claim.text, retracted=claim.retracted,
                       used_by=[link.key for link in backlinks if claim.id in link.claims_used])
              for claim in manifest.claims]
    withdrawn = manifest.retracted
    retracted = RetractionView(date=iso_z(withdrawn.date), note=withdrawn.note) if withdrawn else None
    path = manifest_path(manifest.id)
    return ManifestView(id=manifest.id, title=manifest.title, source_name=manifest.source.name,
                        source_url=manifest.source.url, published=iso_z(manifest.published), brief=manifest.brief,
                        url=config.url(path), path=path, retracted=retracted, claims=claims, stories=backlinks,
                        unused_claims=sum(not claim.used_by for claim in claims))


def _claims_used(story: Teaser, manifest_id: str) -> list[str]:
    """The ids of the claims a story's ledger uses from this manifest."""
    return [claim.id for row in story.ledger if row.manifest_id == manifest_id for claim in row.claims]
