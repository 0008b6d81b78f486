"""A story's body as sections, as every variant shows it: each block rendered, its cite markers numbered by the
ledger, with each of its sentences and the claims that state it."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ..checks.alignment import Shown, block_sentences
from ..content.body import Body, render_block
from ..content.config import SiteConfig
from ..content.image_files import ImageFile
from ..content.models import ManifestFile, Story
from .image_views import img_attributes, renditions
from .view import View


class ClaimRefView(View):
    """A claim a sentence rests on: its manifest's id and its own (its text is in the story's ledger)."""

    manifest_id: str
    claim_id: str


class SentenceView(View):
    """A sentence as a reader reads it, with the claims of its cited manifests that state it, best first (none:
    it rests on its passage's sources as a whole, in the reporter's own words)."""

    text: str
    claims: list[ClaimRefView]


def sentence_views(rows: Shown) -> list[SentenceView]:
    return [SentenceView(text=text, claims=[ClaimRefView(manifest_id=m, claim_id=c) for m, c in claims])
            for text, claims in rows]


class Paragraph(View):
    """A top-level block of the body: paragraph, list, table, quote, code or sub-heading."""

    kind: str
    markdown: str
    html: str
    cites: list[str]
    sentences: list[SentenceView]


class SectionView(View):
    """A part of the body: the heading that opens it (its title and anchor; none before the first heading) and
    its blocks."""

    title: str | None
    anchor: str | None
    paragraphs: list[Paragraph]


SectionRow = tuple[str | None, str | None, list[tuple[str, str, str, list[str], Shown]]]


def section_rows(story: Story, body: Body, manifests: dict[str, ManifestFile],
                 images: Mapping[str, ImageFile] | None = None, config: SiteConfig | None = None) -> list[SectionRow]:
    """The body as rendered sections, as plain tuples (title, anchor, [(kind, markdown, html, cites, sentences)]):
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
    said = iter(block_sentences(story, body, manifests))
    return [(section.title, section.anchor,
             [(block.kind, _moved(block.markdown, moved), render_block(block, env), block.cited_ids, next(said))
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
                Paragraph(kind=kind, markdown=markdown, html=html, cites=cites, sentences=sentence_views(said))
                for kind, markdown, html, cites, said in paragraphs])
            for title, anchor, paragraphs in rows]
