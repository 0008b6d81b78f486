"""manifests/<id>/index.html and index.json: each source record with its claims and backlinks."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from functools import partial

from ..content.config import SiteConfig
from ..content.models import ManifestFile
from ..render.manifest_view import ManifestView, manifest_view
from ..render.story_view import StoryView
from ..render.templates import Renderer
from .plans import Mark, Plan, marks


def manifest_plans(manifests: dict[str, ManifestFile], views: list[StoryView], renderer: Renderer,
                   config: SiteConfig, mark: Mark) -> Iterator[Plan]:
    """manifests/<id>/index.html and index.json: each record with its claims and backlinks."""
    citing: dict[str, list[StoryView]] = {}
    for view in views:
        for manifest_id in view.ledger_claims:
            citing.setdefault(manifest_id, []).append(view)
    for manifest_id in sorted(manifests):
        found, mine = manifests[manifest_id], citing.get(manifest_id, [])
        page = functools.cache(partial(manifest_view, found, mine, config))
        inputs = (found.digest, tuple(sorted(marks(mine, mark))))
        for suffix in ("html", "json"):
            yield Plan(f"manifests/{manifest_id}/index.{suffix}", found.path, f"manifest.{suffix}", inputs,
                       partial(_manifest_page, renderer, f"manifest.{suffix}", page))


def _manifest_page(renderer: Renderer, template: str, page: Callable[[], ManifestView]) -> str:
    return renderer.render(template, manifest=page())
