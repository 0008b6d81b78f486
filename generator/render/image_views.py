"""An image as pages show it: the widths it is written at (image_widths, never wider than the file), their
content-hashed paths under images/, and the attributes of its <img>. site/renditions.py writes the same files."""

from __future__ import annotations

import functools
import posixpath
from collections.abc import Iterable
from typing import Any, NamedTuple

from ..content.config import SiteConfig
from ..content.image_files import FORMATS, ImageFile
from ..content.layout import key_of
from ..content.slugs import slugify
from .view import View

ENCODING = "3"  # bump when the bytes written for the same file and width change (their names must change too)
SIZES = "(min-width: 44rem) 42rem, calc(100vw - 2rem)"  # the story column: 42rem, or the screen less its margins


class Rendition(NamedTuple):
    """One file written for an image: its path below the site, its size, and the format it is written in."""

    path: str
    width: int
    height: int
    format: str


# The longest side each format can hold: a tall image's renditions may be taller than WebP allows.
LONGEST = {"WEBP": 16383, "JPEG": 65535, "PNG": (1 << 31) - 1}


@functools.cache
def _webp() -> bool:
    from PIL import features

    return bool(features.check("webp"))


def written_format(source: str, longest: int) -> str:
    """WebP when this Pillow writes it, else the file's own format (AVIF and WebP files then as PNG); the next of
    these that can hold a rendition whose longest side is `longest` pixels when one cannot."""
    own = source if source in ("PNG", "JPEG") else "PNG"
    return next(form for form in ("WEBP", own, "PNG") if (form != "WEBP" or _webp()) and longest <= LONGEST[form])


def renditions(image: ImageFile, widths: list[int]) -> list[Rendition]:
    """The widths an image is written at: each of `widths` narrower than the file, and the file's own width in
    place of those wider (an image is never enlarged), narrowest first."""
    kept = [width for width in widths if width < image.width]
    if len(kept) < len(widths):
        kept.append(image.width)
    widest = kept[-1]
    written = written_format(image.format, max(widest, round(image.height * widest / image.width)))
    stem = slugify(posixpath.splitext(posixpath.basename(image.src))[0]) or "image"
    code = key_of(image.digest, ENCODING, written)[:12]
    suffix = {"WEBP": "webp", "PNG": "png", "JPEG": "jpg"}[written]
    return [Rendition(f"/images/{stem}-{width}.{code}.{suffix}", width,
                      max(1, round(image.height * width / image.width)), written) for width in kept]


def media_type(image_format: str) -> str:
    return FORMATS[image_format]


def img_attributes(image: ImageFile, config: SiteConfig) -> dict[str, str | int]:
    """The attributes of a body image's <img> (besides alt): the widest file as src, every width in srcset,
    and the widest one's size, so that the page keeps its place before the image arrives."""
    made = renditions(image, config.widths)
    widest, base_path = made[-1], config.base_path
    return {"src": base_path + widest.path, "srcset": srcset(made, base_path), "sizes": SIZES, "width": widest.width,
            "height": widest.height}


def srcset(made: Iterable[Any], base_path: str) -> str:
    """An <img>'s srcset: each rendition (anything with a path and a width) under base_path, with its width (the
    `srcset` filter of the templates' lead and teaser images)."""
    return ", ".join(f"{base_path}{rendition.path} {rendition.width}w" for rendition in made)


class RenditionView(View):
    """One width of an image: its path below the site and absolute URL, and its size."""

    path: str
    url: str
    width: int
    height: int


class ImageView(View):
    """An image a story shows: what it is (src below content/images/), its alt text, caption and credit, and
    the files written for it (the widest is `path`, `url`, `width` and `height`)."""

    src: str
    alt: str
    caption: str | None
    credit: str | None
    type: str
    path: str
    url: str
    width: int
    height: int
    renditions: list[RenditionView]


def image_view(image: ImageFile, alt: str, caption: str | None, credit: str | None, config: SiteConfig) -> ImageView:
    written = renditions(image, config.widths)
    made = [RenditionView(path=r.path, url=config.url(r.path), width=r.width, height=r.height) for r in written]
    widest = made[-1]
    return ImageView(src=image.src, alt=alt, caption=caption, credit=credit,
                     type=media_type(written[-1].format), path=widest.path, url=widest.url,
                     width=widest.width, height=widest.height, renditions=made)
