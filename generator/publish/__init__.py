"""Publish the built public/ to a folder or an s3:// bucket, by scheme: only changed files, pages after their
assets, and only ever deleting what an earlier publish of this site put there."""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol
from urllib.parse import urlsplit

from ..content.findings import shown_name
from ..content.layout import is_utf8
from ..output.lock import LOCK, OutputLock
from ..output.media import content_type
from ..output.record import own_folder

IMMUTABLE = "public, max-age=31536000, immutable"
DOCUMENT = "public, max-age=60, must-revalidate"
ASSET = "public, max-age=300"
DOCUMENTS = (".html", ".md", ".json", ".xml", ".txt")
INDEXES = {"feed.xml", "feed.json", "sitemap.xml", "news-sitemap.xml", "stories.json", "robots.txt",
           "shards.json"}  # shards.json last: it names the search bundles uploaded before it
HASHED = re.compile(r"[._-](?=[0-9a-f]*[0-9])[0-9a-f]{7,}\.[A-Za-z0-9_]+$")  # en_3bdcab7.pf_fragment, x.1a2b3c4d.webp
FINGERPRINTED = ("pagefind/", "images/")  # where the build names files by content (a file of yours may look alike)
MANIFEST = ".ledgerpress-manifest.json"
THREADS = 16


class PublishError(Exception):
    """Why publishing stopped: printed as is, exit 1."""


@dataclass(frozen=True)
class Item:
    path: str
    size: int
    sha256: str

    @property
    def content_type(self) -> str:
        return content_type(self.path)

    @property
    def cache_control(self) -> str:
        """Fingerprinted files never change under their name; everything else is checked again soon."""
        if self.path.startswith(FINGERPRINTED) and HASHED.search(self.path.rsplit("/", 1)[-1]) \
                and not self.path.endswith(DOCUMENTS):
            return IMMUTABLE
        return DOCUMENT if self.path.endswith(DOCUMENTS) else ASSET


def batch(item: Item) -> tuple[int, int]:
    """Upload order: fingerprinted assets, other assets, data variants, HTML deepest first, feeds and sitemaps."""
    name = item.path.rsplit("/", 1)[-1]
    if item.cache_control == IMMUTABLE:
        return 0, 0
    if name in INDEXES:
        return 4, 0
    if name.endswith(".html"):
        return 3, -item.path.count("/")
    return (2, 0) if name.endswith(DOCUMENTS) else (1, 0)


@dataclass
class Plan:
    upload: list[Item] = field(default_factory=list)
    unchanged: list[Item] = field(default_factory=list)
    delete: list[str] = field(default_factory=list)

    def summary(self) -> str:
        return (f"uploaded {len(self.upload)}, unchanged {len(self.unchanged)}, deleted {len(self.delete)}, "
                f"bytes {sum(item.size for item in self.upload)}")

    def lines(self) -> Iterator[str]:
        """The plan in the order it is carried out."""
        for item in (item for group in self.batches() for item in group):
            yield f"upload {item.path} ({item.size} bytes, {item.content_type}, {item.cache_control})"
        for path in self.delete:
            yield f"delete {path}"

    def batches(self) -> Iterator[list[Item]]:
        """Uploads grouped by batch(), in order: a batch starts only when the one before it is done."""
        ordered = sorted(self.upload, key=lambda item: (batch(item), item.path))
        start = 0
        for end in range(1, len(ordered) + 1):
            if end == len(ordered) or batch(ordered[end]) != batch(ordered[start]):
                yield ordered[start:end]
                start = end


def sha256(path: Path) -> str:
    with path.open("rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def public_files(public: Path) -> dict[str, Path]:
    """Every regular file of the built site by its relative path (a link is left out: it may lead anywhere on
    the disk); refuses a missing or empty public/."""
    if not public.is_dir():
        raise PublishError(f"{public} does not exist: run `ledgerpress build` first")
    files = {}
    for folder, dirs, names in os.walk(public):
        dirs.sort()
        for name in sorted(names):
            path = Path(folder, name)
            if path.is_file() and not path.is_symlink():
                if not is_utf8(name):  # no URL, S3 key or manifest can name it
                    raise PublishError(f"{shown_name(str(path))}: the file name is not UTF-8; rename it or move it "
                                       f"out of {public.name}/")
                files[path.relative_to(public).as_posix()] = path
    if not files:
        raise PublishError(f"{public} is empty: run `ledgerpress build` first")
    return files


def items(files: dict[str, Path]) -> dict[str, Item]:
    with ThreadPoolExecutor(THREADS) as pool:
        digests = pool.map(sha256, files.values())
        return {rel: Item(rel, path.stat().st_size, digest) for (rel, path), digest in zip(files.items(), digests)}


class Target(Protocol):
    def plan(self, local: dict[str, Item]) -> Plan: ...
    def apply(self, plan: Plan, files: dict[str, Path]) -> None: ...


def publish_site(public: Path, dest: str, endpoint_url: str | None = None, dry_run: bool = False) -> Plan:
    """Plan the copy of public/'s files to dest and, unless dry_run, carry it out; public/ is held still meanwhile
    (a build waits to switch it until the publish is done)."""
    lock = OutputLock(own_folder(public.resolve()) / LOCK)
    if own_folder(public.resolve()).is_dir():
        lock.take(exclusive=False, wait=True, what=f"{public} is being written by a build")
    try:
        files = public_files(public)
        target = target_for(dest, endpoint_url, public)
        plan = target.plan(items(files))
        if not dry_run:
            target.apply(plan, files)
        return plan
    finally:
        lock.release()


def target_for(dest: str, endpoint_url: str | None, public: Path) -> Target:
    """Publishers by URL scheme: s3:// to a bucket, anything else a folder on this machine."""
    scheme = urlsplit(dest).scheme
    if scheme == "s3":
        from .s3 import S3Target

        return S3Target(dest, endpoint_url)
    if endpoint_url:
        raise PublishError("--endpoint-url is for s3:// destinations")
    from .to_folder import FolderTarget

    if scheme == "file":
        return FolderTarget(Path(urlsplit(dest).path), public)
    if len(scheme) > 1:
        raise PublishError(f"cannot publish to {scheme}://: give a folder or s3://bucket/prefix")
    return FolderTarget(Path(dest), public)
