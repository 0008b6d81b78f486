"""What a story's pages are made from besides its file and site.toml: the inputs its job resolved. The view
is made from the job alone (it is given no other manifest, author or image), and the engine takes the job's
fingerprint whole, so an input added to the job is both what the view reads and what decides whether the
story's pages are made again: there is no second list of them to keep."""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

from ..content.author_files import Author
from ..content.image_files import ImageFile
from ..content.manifest_files import KnownManifest
from ..content.models import ManifestFile


class StoryJob(NamedTuple):
    """One story's job (a named tuple: a build makes one for every story of the site, and compares it with the
    last one). Each file it holds stands, in the fingerprint, for the bytes it is the digest of."""

    path: str                                            # the story file, as shown
    digest: str                                          # of its bytes, as they were checked
    manifests: tuple[ManifestFile | KnownManifest, ...]  # those its ledger and citations name (that exist)
    related: tuple[tuple[str, str, str], ...]            # its related stories: (key, title, URL path)
    passed: tuple[str, ...]                              # the codes of the checks it passed
    authors: tuple[Author, ...] = ()                     # its authors' files (that exist)
    images: tuple[tuple[ImageFile, str], ...] = ()       # the images it shows, with their alt text: the lead first
    corrections: int | None = None                       # how many of its corrections are due at the build's time (None: all)

    def manifests_by_id(self) -> Mapping[str, ManifestFile | KnownManifest]:
        return {found.id: found for found in self.manifests}

    def images_by_src(self) -> Mapping[str, ImageFile]:
        return {image.src: image for image, _ in self.images}
