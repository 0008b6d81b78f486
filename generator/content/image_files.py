"""Image files: content/images/ (PNG, JPEG, WebP or AVIF, in any folder below it), each known by the path a story
names it by, its bytes' digest and its size as shown (after its EXIF orientation). Pillow decodes the whole file
here, after its header says it is not too large to; a file it cannot read is named with the reason (LP070)."""

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


class ImageFailed(Exception):
    """An image `check` decoded could not be decoded again to be written (the system ran short of memory)."""


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
    picture = upright(data)
    if isinstance(picture, str):
        return picture
    with picture:
        return ImageFile(src, path, file_digest(data), picture.width, picture.height, picture.format)


def upright(data: bytes):  # -> PIL.Image.Image | str
    """The image whole, decoded and turned upright by its EXIF orientation (its `format` kept), or why it cannot
    be used. `check` measures an image with this and the build writes it from this, so that they agree on every
    file: a header that reads is not enough (a truncated JPEG, an EXIF block one byte off)."""
    import io

    from PIL import Image, UnidentifiedImageError

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a damaged EXIF block Pillow reads past: no lines on the terminal
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as image:
                found = image.format
                if found not in FORMATS:
                    return f"is {found or 'an unknown format'}, not PNG, JPEG, WebP or AVIF"
                if image.width * image.height > MAX_IMAGE_PIXELS:
                    millions = MAX_IMAGE_PIXELS // 1_000_000
                    return f"is {image.width} x {image.height} pixels, more than {millions} million"
                image.load()  # every pixel: a file cut short fails here, not in the build
                turned = _turned(image)
    except UnidentifiedImageError:
        return "is not an image file Pillow can read"
    except (Image.DecompressionBombWarning, Image.DecompressionBombError):  # Pillow's own bound, above ours
        return f"is more than {MAX_IMAGE_PIXELS // 1_000_000} million pixels"
    except Exception as err:  # noqa: BLE001 (a decoder of any bytes: whatever it raises, the file is the cause)
        return f"cannot be read as an image ({type(err).__name__}: {err})"
    turned.format = found
    return turned


def _turned(image):  # (PIL.Image.Image) -> PIL.Image.Image
    """A copy turned upright by the EXIF orientation, if the file's EXIF block says one. Not ImageOps.exif_transpose,
    which writes the block back and fails on a byte of it out of place: the files written leave it behind anyway,
    and an orientation that cannot be read is none."""
    from PIL import Image

    try:
        orientation = image.getexif().get(0x0112)
    except Exception:  # noqa: BLE001 (an EXIF block of any bytes: it is read only for this one number)
        orientation = None
    method = _UPRIGHT.get(orientation) if type(orientation) is int else None
    return image.transpose(Image.Transpose[method]) if method is not None else image.copy()


_UPRIGHT = {2: "FLIP_LEFT_RIGHT", 3: "ROTATE_180", 4: "FLIP_TOP_BOTTOM", 5: "TRANSPOSE", 6: "ROTATE_270",
            7: "TRANSVERSE", 8: "ROTATE_90"}  # EXIF orientation: what undoes it (as ImageOps.exif_transpose)


def safe_src(src: str) -> bool:
    """A src that names a file below content/images/: relative, without '..', a scheme or a backslash."""
    parts = src.split("/")
    return bool(src) and not src.startswith("/") and "\\" not in src and ":" not in parts[0] and \
        not any(part in ("", ".", "..") for part in parts)
