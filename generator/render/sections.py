"""A story's body as sections, as every variant shows it: each block rendered, its cite markers numbered by the
ledger, with the claims that back it."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ..checks.evidence import Backing, block_backing
from ..content.body import Body, render_block
from ..content.config import SiteConfig
from ..content.images import ImageFile
from ..content.models import ManifestFile, Story
from .images import img_attributes, renditions
from .view import View


class Evidence(View):
    """The claims of one cited manifest that back a block, best match first (their texts are in the ledger)."""

    manifest_id: str
    claims: list[str]


class Paragraph(View):
    """A top-level block of the body: paragraph, list, table, quote, code or sub-heading."""

    kind: str
    markdown: str
    html: str
    cites: list[str]
    evidence: list[Evidence]


class SectionView(View):
    """A part of the body: the heading that opens it (its title and anchor; none before the first heading) and
    its blocks."""

    title: str | None
    anchor: str | None
    paragraphs: list[Paragraph]


SectionRow = tuple[str | None, str | None, list[tuple[str, str, str, list[str], Backing]]]


def section_rows(story: Story, body: Body, manifests: dict[str, ManifestFile],
                 images: Mapping[str, ImageFile] | None = None, config: SiteConfig | None = None) -> list[SectionRow]:
    """The body as rendered sections, as plain tuples (title, anchor, [(kind, markdown, html, cites, evidence)]):
    cite markers numbered by ledger order, titled by their manifest. What a build keeps between reading a story
    and rendering its page (quicker to make, pickle and load than the models: sections_of makes those).
    Images of content/images/ (`images`, by src) are shown at the widths the build writes them in."""
    env: dict[str, Any] = {"sources": {}}
    for number, entry in enumerate(story.meta.ledger, start=1):
        found = manifests.get(entry.manifest)
        env["sources"][entry.manifest] = (number, found.manifest.title if found else entry.manifest)
    shown = {src: images[src] for src, *_ in body.images if images and src in images}
    if shown and config is not None:
        env["images"] = {src: img_attributes(image, config) for src, image in shown.items()}
        moved = {src: config.url(renditions(image, config.widths)[-1].path) for src, image in shown.items()}
    else:
        moved = {}
    backing = iter(block_backing(story, body, manifests))
    return [(section.title, section.anchor,
             [(block.kind, _moved(block.markdown, moved), render_block(block, env), block.cited_ids, next(backing))
              for block in section.blocks])
            for section in body.sections]


def _moved(markdown: str, moved: Mapping[str, str]) -> str:
    """A block's Markdown with each image's src (a file of content/images/) replaced by the URL of its widest
    written file, so that the Markdown variant shows it wherever it is read."""
    for src, url in moved.items():
        if src in markdown:
            markdown = re.sub(rf"(\]\(\s*<?|^\s*\[[^\]]*\]:\s*<?){re.escape(src)}(?=>?(\s|\)|$))",
                              lambda m: m[1] + url, markdown, flags=re.M)
    return markdown


def sections_of(rows: list[SectionRow]) -> list[SectionView]:
    return [SectionView(title=title, anchor=anchor, paragraphs=[
                Paragraph(kind=kind, markdown=markdown, html=html, cites=cites,
                          evidence=[Evidence(manifest_id=manifest_id, claims=list(claims))
                                    for manifest_id, claims in evidence])
                for kind, markdown, html, cites, evidence in paragraphs])
            for title, anchor, paragraphs in rows]
