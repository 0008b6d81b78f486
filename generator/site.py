"""Site-wide outputs built from story views: the front page, plain pages, the schema, the stylesheet."""

from __future__ import annotations

import json
from collections.abc import Iterator

from .body import render_markdown
from .config import SiteConfig
from .models import ManifestFile, Page
from .render import Renderer, builtin_templates
from .view import StoryView, manifest_view

SCHEMA_PATH = "schema/story.schema.json"


def newest_first(views: list[StoryView]) -> list[StoryView]:
    """Newest published first; the URL breaks ties so the order never depends on input order."""
    return sorted(views, key=lambda view: (view.published, view.path), reverse=True)


def story_schema(config: SiteConfig) -> dict:
    """The JSON Schema of index.json, generated from the StoryView model."""
    schema = StoryView.model_json_schema(mode="serialization", by_alias=True)
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": config.url("/" + SCHEMA_PATH),
            **schema}


def site_outputs(views: list[StoryView], pages: list[Page], renderer: Renderer,
                 config: SiteConfig) -> Iterator[tuple[str, str | bytes, str]]:
    """(output path, content, source path) for every file that is not a story variant."""
    yield "index.html", renderer.render("index.html", stories=newest_first(views)), "content/site.toml"
    yield SCHEMA_PATH, json.dumps(story_schema(config), indent=2, ensure_ascii=False) + "\n", "generator/view.py"
    yield "style.css", _stylesheet(renderer), "templates/style.css"
    for page in sorted(pages, key=lambda p: p.url_path):
        context = {"title": page.meta.title, "description": page.meta.description, "path": page.url_path,
                   "html": render_markdown(page.body)}
        yield page.url_path.lstrip("/") + "index.html", renderer.render("page.html", page=context), page.path


def _stylesheet(renderer: Renderer) -> bytes:
    """The site's own style.css if it has one, else ours (through the same loader, not rendered)."""
    source, _, _ = renderer.env.loader.get_source(renderer.env, "style.css")
    return source.encode("utf-8") if source else (builtin_templates() / "style.css").read_bytes()


def manifest_outputs(manifests: dict[str, ManifestFile], views: list[StoryView], renderer: Renderer,
                     config: SiteConfig) -> Iterator[tuple[str, str, str]]:
    """manifests/<id>/index.html and index.json: each record with its claims and backlinks."""
    citing: dict[str, list[StoryView]] = {}
    for view in views:
        for row in view.ledger:
            citing.setdefault(row.manifest_id, []).append(view)
    for manifest_id in sorted(manifests):
        found = manifests[manifest_id]
        page = manifest_view(found, citing.get(manifest_id, []), config)
        for suffix in ("html", "json"):
            yield f"manifests/{manifest_id}/index.{suffix}", renderer.render(f"manifest.{suffix}", manifest=page), found.path
