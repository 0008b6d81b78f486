"""manifests/<id>/index.html and index.json: each source record with its claims and the stories citing it."""

from __future__ import annotations

from collections.abc import Iterator

from ..content.config import SiteConfig
from ..content.models import ManifestFile
from ..render.ledger_rows import manifest_path
from ..render.manifest_view import manifest_view
from ..render.teaser import Teaser
from .outputs import Output, Site, output_file, producer


@producer()
def manifest_pages(site: Site) -> Iterator[Output]:
    citing: dict[str, list[Teaser]] = {}
    for story in site.stories:
        for manifest_id in story.cited_manifest_ids:
            citing.setdefault(manifest_id, []).append(story)
    for manifest_id in sorted(site.manifests):
        found = site.manifests[manifest_id]
        context = {"found": found, "citing": citing.get(manifest_id, [])}
        for suffix in ("html", "json"):
            yield Output(output_file(manifest_path(manifest_id), f"index.{suffix}"), found.path,
                         f"manifest.{suffix}", context, view=manifest_context)


def manifest_context(config: SiteConfig, found: ManifestFile, citing: list[Teaser]) -> dict:
    return {"manifest": manifest_view(found, citing, config)}
