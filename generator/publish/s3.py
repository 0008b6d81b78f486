"""Publishing to an S3 bucket (or any S3-compatible host): each object carries its sha256, and a manifest object
records what this site published, so that a publish uploads only what changed and deletes only its own."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlsplit

from ..content.findings import counted
from . import MANIFEST, THREADS, Item, Plan, PublishError


class S3Target:
    """A bucket prefix: sha256 in each object's metadata and in a manifest object; uploads in batch() order. An
    object is this site's if the manifest lists it or it carries a sha256: only those are replaced; only those
    the manifest lists are deleted (when public/ no longer holds them)."""

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
        foreign = sorted(rel for rel in local if rel in self.remote and rel not in self.previous
                         and not known.get(rel, {}).get("sha256"))  # neither recorded nor marked as ours
        if foreign:
            raise PublishError(f"s3://{self.bucket}/{self.key(foreign[0])} was not published by ledgerpress and would "
                               f"be replaced ({counted(len(foreign), 'such object')}): move it, or "
                               "publish under another prefix")
        plan = Plan(delete=sorted(rel for rel in self.previous if rel in self.remote and rel not in local))
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
