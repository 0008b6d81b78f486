"""A story's provenance ledger as its formats show it: each manifest of the ledger with the claims the story
uses from it, and how a reader fetches those records themselves (site.toml's [verify])."""

from __future__ import annotations

from typing import Any

from ..content.config import SiteConfig
from ..content.models import ManifestFile, Story
from .dates import iso_z
from .formats import sh_url, sh_word
from .view import View


class ClaimView(View):
    id: str
    text: str


class LedgerRow(View):
    manifest_id: str
    number: int
    title: str
    source_name: str
    source_url: str
    published: str
    claims: list[ClaimView]
    manifest_url: str
    manifest_path: str
    verify_url: str | None


class Verify(View):
    endpoint: str
    header: str | None
    urls: list[str]
    command: str


def manifest_path(manifest_id: str) -> str:
    """Where a manifest's page is (under base_path)."""
    return f"/manifests/{manifest_id}/"


def ledger_rows(story: Story, manifests: dict[str, ManifestFile], config: SiteConfig) -> list[LedgerRow]:
    """The ledger in its front-matter order, each used claim with its text. A manifest or claim that does
    not exist is left out (its rule, LP022 or LP024, must have been turned off for the story to get here);
    the rows keep their ledger numbers, which the body's citations use."""
    rows = []
    for number, entry in enumerate(story.meta.ledger, start=1):
        found = manifests.get(entry.manifest)
        if found is None:
            continue
        fields, claims = _manifest_row(found, config)
        rows.append(LedgerRow(**fields, number=number,
                              claims=[claims[claim_id] for claim_id in entry.claims if claim_id in claims]))
    return rows


def _manifest_row(found: ManifestFile, config: SiteConfig) -> tuple[dict[str, Any], dict[str, ClaimView]]:
    """What every ledger row citing this manifest holds besides its number and claims, and its claims as
    views by id: made once a manifest (many stories cite each), known by its file's digest and the settings
    its URLs come from."""
    key = (found.manifest.id, found.digest, config.root_url, config.verify.endpoint if config.verify else None)
    made = _MANIFEST_ROWS.get(key)  # none is kept for a manifest without a digest
    if made is None:
        manifest = found.manifest
        made = ({"manifest_id": manifest.id, "title": manifest.title, "source_name": manifest.source.name,
                 "source_url": manifest.source.url, "published": iso_z(manifest.published),
                 "manifest_url": config.url(manifest_path(manifest.id)), "manifest_path": manifest_path(manifest.id),
                 "verify_url": config.verify.endpoint.replace("{id}", manifest.id) if config.verify else None},
                {claim.id: ClaimView(id=claim.id, text=claim.text) for claim in manifest.claims})
        if found.digest:
            if len(_MANIFEST_ROWS) >= 1 << 16:  # a preview server rebuilds for hours: keep it bounded
                _MANIFEST_ROWS.clear()
            _MANIFEST_ROWS[key] = made
    return made


_MANIFEST_ROWS: dict[tuple, tuple[dict[str, Any], dict[str, ClaimView]]] = {}


def verify_view(config: SiteConfig, ids: list[str]) -> Verify | None:
    """The shell loop a reader pastes to fetch the cited manifests: every word quoted for the shell (ids,
    the header, the URL around "$id"), so nothing in site.toml runs on the reader's machine."""
    if config.verify is None:
        return None
    endpoint = config.verify.endpoint
    header = f"-H {sh_word(config.verify.header)} " if config.verify.header else ""
    command = (f"for id in {' '.join(sh_word(i) for i in ids)}; do\n"
               f"  curl -s {header}{sh_url(endpoint, '{id}', 'id')}\n"
               "done")
    return Verify(endpoint=endpoint, header=config.verify.header,
                  urls=[endpoint.replace("{id}", i) for i in ids], command=command)
