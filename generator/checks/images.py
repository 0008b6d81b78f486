"""LP07x: the images a story shows are files of content/images/ that can be read, described for readers who
cannot see them, and (the lead image) credited."""

from __future__ import annotations

from collections.abc import Iterator

from ..content.findings import Finding, close_match, did_you_mean
from ..content.image_files import safe_src
from ..content.models import ImageUse, StoryBrief
from . import SiteIndex, rule


def _place(story: StoryBrief, image: ImageUse, field: str) -> tuple[int, int]:
    """A lead image's field in the front matter; a body image where it is written."""
    return story.source.at(("image", field)) if image.lead else (image.line, image.col)


def _shown(site: SiteIndex) -> Iterator[tuple[StoryBrief, ImageUse]]:
    """Every image of every story read, drafts too (these rules are about the story itself)."""
    for story in [*site.stories, *site.drafts]:
        for image in story.images:
            yield story, image


@rule("LP070", "site", "an image is not a readable PNG, JPEG, WebP or AVIF file in content/images/")
def image_files(site: SiteIndex) -> Iterator[Finding]:
    for story, image in _shown(site):
        if image.src in site.images:
            continue
        where = "the lead image" if image.lead else "image"
        if not safe_src(image.src):
            why = f"{where} '{image.src}' is not a path below content/images/: expected e.g. 2026/ferry-road.jpg " \
                  "(images are copied from there; addresses elsewhere are not shown)"
        elif image.src in site.unusable:
            why = f"{where} content/images/{image.src} {site.unusable[image.src]}: expected a PNG, JPEG, WebP or AVIF file"
        else:
            hint = did_you_mean(close_match(image.src, site.images))
            why = f"{where} content/images/{image.src} does not exist{hint}: expected the file there, " \
                  "its path written relative to content/images/"
        yield Finding(story.path, *_place(story, image, "src"), "LP070", why)


@rule("LP071", "site", "an image has no alt text")
def alt_text(site: SiteIndex) -> Iterator[Finding]:
    for story, image in _shown(site):
        if not image.alt.strip():
            if image.lead:
                yield Finding(story.path, *_place(story, image, "alt"), "LP071", "the lead image has no alt text: "
                              "expected what it shows for readers who cannot see it, e.g. alt: \"Buses queue on Ferry Road\"")
            else:
                yield Finding(story.path, image.line, image.col, "LP071", f"image '{image.src}' has no alt text: "
                              f"expected what it shows between the brackets, e.g. ![Buses queue on Ferry Road]({image.src})")


@rule("LP072", "site", "the lead image has no credit")
def credit(site: SiteIndex) -> Iterator[Finding]:
    for story, image in _shown(site):
        if image.lead and not (image.credit or "").strip():
            yield Finding(story.path, *story.source.at(("image",)), "LP072", "the lead image has no credit: expected "
                          "who made it, e.g. credit: \"Ana Lima\" (or \"Calder Ledger graphic\")")
