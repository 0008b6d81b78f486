"""images/: every image a built story shows, written at each of its widths (render/image_views.py names them) with
Pillow: turned upright by its EXIF orientation, its metadata left behind, WebP where this Pillow writes it."""

from __future__ import annotations

import io
from collections.abc import Iterator

from ..content.config import SiteConfig
from ..content.image_files import ImageChanged, ImageFailed, ImageFile, upright
from ..content.layout import file_digest
from ..render.image_views import renditions
from .outputs import Output, Site, producer

QUALITY = 82  # lossy WebP and JPEG: at this quality a chart's text stays sharp, at half a lossless file's size


@producer()
def images(site: Site) -> Iterator[Output]:
    """Each width of each image the site's stories show, once, however many stories show it."""
    shown = sorted({src for story in site.stories for src in story.keys["images.src"]} & site.images.keys())
    made: set[str] = set()
    for src in shown:
        image = site.images[src]
        for rendition in renditions(image, site.config.widths):
            if rendition.path not in made:  # two files with the same bytes share their names
                made.add(rendition.path)
                yield Output(rendition.path.lstrip("/"), f"content/images/{src}", None,
                             {"image": image, "width": rendition.width, "height": rendition.height,
                              "image_format": rendition.format}, make=write_rendition)


def write_rendition(config: SiteConfig, image: ImageFile, width: int, height: int, image_format: str) -> bytes:
    """The image at this size in this format; the file must still be the one the build measured."""
    from PIL import Image

    with open(image.path, "rb") as source:
        data = source.read()
    if file_digest(data) != image.digest:
        raise ImageChanged(f"content/images/{image.src}")
    picture = upright(data)
    if isinstance(picture, str):
        raise ImageFailed(f"content/images/{image.src}", picture)
    with picture:
        alpha = picture.mode in ("RGBA", "LA", "PA") or "transparency" in picture.info
        picture = picture.convert("RGBA" if alpha and image_format != "JPEG" else "RGB")
        if picture.size != (width, height):
            # reduced by a whole factor first: LANCZOS alone from 40 million pixels in a row to 640 took 2 GB
            picture = picture.resize((width, height), Image.Resampling.LANCZOS, reducing_gap=3.0)
        out = io.BytesIO()
        if image_format == "WEBP":
            picture.save(out, "WEBP", quality=QUALITY, method=4)
        elif image_format == "JPEG":
            picture.save(out, "JPEG", quality=QUALITY, optimize=True, progressive=True)
        else:
            picture.save(out, "PNG", optimize=True)
    return out.getvalue()
