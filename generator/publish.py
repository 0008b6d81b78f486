"""Publish the built public/ to a folder or an s3:// bucket, by scheme: only changed files, pages after their assets."""

from __future__ import annotations

import contextlib
import ctypes
import errno
import hashlib
import json
import os
import re
import shutil
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol
from urllib.parse import urlsplit

from .serve import content_type
from .write import swap_in

IMMUTABLE = "public, max-age=31536000, immutable"
DOCUMENT = "public, max-age=60, must-revalidate"
ASSET = "public, max-age=300"
DOCUMENTS = (".html", ".md", ".json", ".xml", ".txt")
INDEXES = {"feed.xml", "feed.json", "sitemap.xml", "news-sitemap.xml", "stories.json", "robots.txt"}
HASHED = re.compile(r"[._-](?=[0-9a-f]*[0-9])[0-9a-f]{7,}\.[A-Za-z0-9_]+$")  # en_3bdcab7.pf_fragment, app.1a2b3c4d.css
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
        if HASHED.search(self.path.rsplit("/", 1)[-1]) and not self.path.endswith(DOCUMENTS):
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
    present: int = 0  # files of this site already at the destination (same path), changed or not

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
    """Every regular file of the built site by its relative path; refuses a missing or empty public/."""
    if not public.is_dir():
        raise PublishError(f"{public} does not exist: run `ledgerpress build` first")
    files = {}
    for folder, dirs, names in os.walk(public):
        dirs.sort()
        for name in sorted(names):
            path = Path(folder, name)
            if path.is_file() and not path.is_symlink():
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


def publish_site(public: Path, files: dict[str, Path], dest: str, endpoint_url: str | None = None,
                 dry_run: bool = False) -> Plan:
    """Plan the copy of public/'s files to dest and, unless dry_run, carry it out."""
    target = target_for(dest, endpoint_url, public)
    plan = target.plan(items(files))
    if plan.delete and not plan.present:  # an exact mirror deletes what is not ours: is this the right place?
        raise PublishError(f"{dest} holds {len(plan.delete)} files and none of them is a file of this site; "
                           "empty it or pick another destination")
    if not dry_run:
        target.apply(plan, files)
    return plan


def target_for(dest: str, endpoint_url: str | None, public: Path) -> Target:
    """Publishers by URL scheme: s3:// to a bucket, anything else a folder on this machine."""
    scheme = urlsplit(dest).scheme
    if scheme == "s3":
        return S3Target(dest, endpoint_url)
    if endpoint_url:
        raise PublishError("--endpoint-url is for s3:// destinations")
    if scheme == "file":
        return FolderTarget(Path(urlsplit(dest).path), public)
    if len(scheme) > 1:
        raise PublishError(f"cannot publish to {scheme}://: give a folder or s3://bucket/prefix")
    return FolderTarget(Path(dest), public)


class FolderTarget:
    """An exact mirror: unchanged files are hard links to the old ones, the new tree is swapped in at once."""

    def __init__(self, dest: Path, public: Path) -> None:
        self.dest, public = dest.resolve(), public.resolve()
        if self.dest == public or self.dest.is_relative_to(public) or public.is_relative_to(self.dest):
            raise PublishError(f"{dest} overlaps {public}: publish to a folder outside it")
        if self.dest.exists() and not self.dest.is_dir():
            raise PublishError(f"{dest} exists and is not a folder")

    def plan(self, local: dict[str, Item]) -> Plan:
        plan = Plan()
        for rel, item in local.items():
            old = self.dest / rel
            plan.present += old.is_file()
            same = (old.is_file() and not old.is_symlink() and old.stat().st_size == item.size
                    and sha256(old) == item.sha256)
            (plan.unchanged if same else plan.upload).append(item)
        if self.dest.is_dir():
            present = {path.relative_to(self.dest).as_posix() for path in self.dest.rglob("*")
                       if path.is_file() or path.is_symlink()}
            plan.delete = sorted(present - set(local))
        return plan

    def apply(self, plan: Plan, files: dict[str, Path]) -> None:
        staging = self.dest.parent / f".{self.dest.name}.publish-{os.getpid()}"
        shutil.rmtree(staging, ignore_errors=True)
        try:
            for item in plan.unchanged:
                _place(staging / item.path, lambda target, rel=item.path: _link_or_copy(self.dest / rel, target))
            for item in plan.upload:
                _place(staging / item.path, lambda target, rel=item.path: shutil.copy2(files[rel], target))
            if not self.dest.exists() or not _exchange(staging, self.dest):
                swap_in(staging, self.dest)
        finally:
            shutil.rmtree(staging, ignore_errors=True)


def _place(target: Path, make) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    make(target)


def _link_or_copy(source: Path, target: Path) -> None:
    """A hard link keeps the unchanged file's inode and mtime; a copy where links are not possible."""
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


def _exchange(new: Path, old: Path) -> bool:
    """Swap two folders in one step (Linux renameat2 RENAME_EXCHANGE); False where the system cannot."""
    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return False
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    at_fdcwd, rename_exchange = -100, 2
    if renameat2(at_fdcwd, os.fsencode(new), at_fdcwd, os.fsencode(old), rename_exchange) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP):
        return False
    raise OSError(code, os.strerror(code), str(old))


class S3Target:
    """A bucket prefix: sha256 in each object's metadata and in a manifest object; uploads in batch() order."""

    def __init__(self, dest: str, endpoint_url: str | None) -> None:
        import boto3
        from botocore.config import Config

        parts = urlsplit(dest)
        self.bucket, self.prefix = parts.netloc, parts.path.strip("/")
        if not self.bucket:
            raise PublishError(f"{dest}: no bucket; write s3://bucket or s3://bucket/prefix")
        self.client = boto3.client("s3", endpoint_url=endpoint_url,
                                   config=Config(max_pool_connections=THREADS, retries={"mode": "standard"}))
        self.remote: dict[str, str] = {}
        self.previous: dict[str, dict[str, str]] = {}
        self.known: dict[str, dict[str, str]] = {}

    def key(self, rel: str) -> str:
        return f"{self.prefix}/{rel}" if self.prefix else rel

    def plan(self, local: dict[str, Item]) -> Plan:
        with _s3_errors(self.bucket):
            self.remote = self._listing()
            self.previous = self._manifest()
            known = {rel: dict(entry) for rel, entry in self.previous.items()}
            unknown = [rel for rel in local  # not recorded, or replaced since: ask the object itself
                       if rel in self.remote and known.get(rel, {}).get("etag") != self.remote[rel]]
            with ThreadPoolExecutor(THREADS) as pool:
                for rel, digest in zip(unknown, pool.map(self._stored_digest, unknown)):
                    known[rel] = {"sha256": digest, "etag": self.remote[rel]}
        plan = Plan(delete=sorted(set(self.remote) - set(local) - {MANIFEST}))
        plan.present = len(set(local) & set(self.remote))
        for rel, item in local.items():
            same = rel in self.remote and known.get(rel, {}).get("sha256") == item.sha256
            (plan.unchanged if same else plan.upload).append(item)
        self.known = known
        return plan

    def apply(self, plan: Plan, files: dict[str, Path]) -> None:
        with _s3_errors(self.bucket), ThreadPoolExecutor(THREADS) as pool:
            for group in plan.batches():
                for item, etag in zip(group, pool.map(lambda item: self._put(item, files[item.path]), group)):
                    self.known[item.path] = {"sha256": item.sha256, "etag": etag}
            for start in range(0, len(plan.delete), 1000):
                chunk = [{"Key": self.key(rel)} for rel in plan.delete[start:start + 1000]]
                done = self.client.delete_objects(Bucket=self.bucket, Delete={"Objects": chunk, "Quiet": True})
                for failed in done.get("Errors", [])[:1]:
                    raise PublishError(f"could not delete {failed.get('Key')}: {failed.get('Message')}")
            manifest = {item.path: self.known[item.path] for item in sorted([*plan.upload, *plan.unchanged],
                                                                             key=lambda item: item.path)}
            if manifest != self.previous:
                self.client.put_object(Bucket=self.bucket, Key=self.key(MANIFEST), ContentType="application/json",
                                       CacheControl="no-cache", Body=json.dumps(manifest, indent=0).encode())

    def _put(self, item: Item, path: Path) -> str:
        reply = self.client.put_object(Bucket=self.bucket, Key=self.key(item.path), Body=path.read_bytes(),
                                       ContentType=item.content_type, CacheControl=item.cache_control,
                                       Metadata={"sha256": item.sha256})
        return reply["ETag"].strip('"')

    def _listing(self) -> dict[str, str]:
        """Every object under the prefix: relative path -> ETag."""
        start = f"{self.prefix}/" if self.prefix else ""
        found = {}
        for page in self.client.get_paginator("list_objects_v2").paginate(Bucket=self.bucket, Prefix=start):
            for entry in page.get("Contents", []):
                found[entry["Key"][len(start):]] = entry["ETag"].strip('"')
        return found

    def _manifest(self) -> dict[str, dict[str, str]]:
        """What the last publish recorded; a missing or damaged manifest counts as empty."""
        if MANIFEST not in self.remote:
            return {}
        body = self.client.get_object(Bucket=self.bucket, Key=self.key(MANIFEST))["Body"].read()
        try:
            data = json.loads(body)
        except ValueError:
            return {}
        return {rel: entry for rel, entry in data.items() if isinstance(entry, dict)} if isinstance(data, dict) else {}

    def _stored_digest(self, rel: str) -> str | None:
        """The sha256 an object carries in its metadata (when the manifest does not know it, or it was replaced)."""
        return self.client.head_object(Bucket=self.bucket, Key=self.key(rel)).get("Metadata", {}).get("sha256")


@contextlib.contextmanager
def _s3_errors(bucket: str) -> Iterator[None]:
    """boto3's errors as one clear line: no credentials, no bucket, no endpoint, access denied."""
    from botocore.exceptions import BotoCoreError, ClientError, NoCredentialsError

    try:
        yield
    except NoCredentialsError as err:
        raise PublishError(f"{err}: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE") from None
    except ClientError as err:
        error = err.response.get("Error", {})
        raise PublishError(f"s3://{bucket}: {error.get('Code', '')} {error.get('Message', '')}".rstrip()) from None
    except BotoCoreError as err:
        raise PublishError(f"s3://{bucket}: {err}") from None
