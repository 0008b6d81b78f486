"""Image files: content/images/ (PNG, JPEG, WebP or AVIF, in any folder below it), each known by the path a story
names it by, its bytes' digest and its size as shown (after its EXIF orientation). Pillow reads only a file's
header here; a file it cannot read, or one too large to decode safely, is named with the reason (LP070)."""

from __future__ import annotations

import os
import warnings
from dataclasses import dataclass
from pathlib import Path

from .layout import file_digest
from .limits import MAX_IMAGE_BYTES, MAX_IMAGE_PIXELS
from .source import bad_name, read_bounded, refused_symlink, top_folder

FORMATS = {"PNG": "image/png", "JPEG": "image/jpeg", "WEBP": "image/webp", "AVIF": "image/avif"}
SUFFIXES = (".png", ".jpg", ".jpeg", ".webp", ".avif")
_TURNED = (5, 6, 7, 8)    # EXIF orientations that swap width and height


@dataclass(frozen=True)
class ImageFile:
    """An image of content/images/ that Pillow can read: `src` is its path below content/images/."""

    src: str
    path: str
    digest: str
    width: int
    height: int
    format: str

    @property
    def fingerprint(self) -> str:
        return self.digest


class ImageChanged(Exception):
    """An image file changed while the site was being built: what the build measured is no longer there."""


def image_files(root: Path) -> list[tuple[str, str, str | None]]:
    """(path, src, why it may not be read or None) of every image file below content/images/, by src; hidden
    files and folders are left out, linked folders are not entered, and a file whose name is not UTF-8 or
    that is a link to a place outside content/ is named with the reason (LP070, where a story shows it)."""
    top, inside = top_folder(root, "images", None)
    found: list[tuple[str, str, str | None]] = []
    for folder, dirs, files in os.walk(top) if top else ():
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            if not name.startswith(".") and name.lower().endswith(SUFFIXES):
                path = os.path.join(folder, name)
                why = bad_name(name) or (refused_symlink(os.path.realpath(path), inside) if os.path.islink(path)
                                         else None)
                found.append((path, os.path.relpath(path, top).replace(os.sep, "/"), why))
    return sorted(found, key=lambda item: item[1])


def read_image(path: str, src: str, data: bytes | None = None) -> ImageFile | str:
    """The image at path (its bytes, if read already), or why it cannot be used."""
    if data is None:
        data, problems = read_bounded(path, src, MAX_IMAGE_BYTES)
        if data is None:
            return problems[0].message if problems else "cannot be read"
    return _measured(path, src, data)


def _measured(path: str, src: str, data: bytes) -> ImageFile | str:
    import io

    from PIL import Image, UnidentifiedImageError

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as image:
                width, height, image_format = image.width, image.height, image.format
                turned = image.getexif().get(0x0112) in _TURNED
    except UnidentifiedImageError:
        return "is not an image file Pillow can read"
    except (Image.DecompressionBombWarning, Image.DecompressionBombError):  # Pillow's own bound, above ours
        return f"is more than {MAX_IMAGE_PIXELS // 1_000_000} million pixels"
    except (OSError, ValueError, SyntaxError) as err:
        return f"cannot be read as an image ({err})"
    if image_format not in FORMATS:
        return f"is {image_format or 'an unknown format'}, not PNG, JPEG, WebP or AVIF"
    if width * height > MAX_IMAGE_PIXELS:
        return f"is {width} x {height} pixels, more than {MAX_IMAGE_PIXELS // 1_000_000} million"
    if turned:
        width, height = height, width
    return ImageFile(src, path, file_digest(data), width, height, image_format)


def safe_src(src: str) -> bool:
    """A src that names a file below content/images/: relative, without '..', a scheme or a backslash."""
    parts = src.split("/")
    return bool(src) and not src.startswith("/") and "\\" not in src and ":" not in parts[0] and \
        not any(part in ("", ".", "..") for part in parts)
