"""The memo: what the last good build learned (records of every input file and output, and the site-wide
indexes as snapshots), so that the next build reads and makes again only what changed. Plain data, pickled
into .ledgerpress-cache/ (a head, signed with a key that never leaves this user's own cache folder, naming the
files of the story records by their digests): a memo that arrives with a checkout, or is damaged, is
ignored, never unpickled."""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import io
import os
import pickle
import secrets
import zlib
from dataclasses import dataclass, field
from pathlib import Path

from ..analysis.similarity import Features
from ..content.layout import CACHE_DIR, key_of
from ..output.whole import write_whole
from .records import ImageRecord, Made, ManifestRecord, SearchRecord, StoryRecord

FORMAT = b"ledgerpress-memo-8\n"
KEY_NAME = "memo-key"


@dataclass
class PageRecord:
    """A site output as last made: the fingerprint of what it was made from, its digest, its source, the
    producer that made it and the story outputs it read."""

    fingerprint: str
    digest: str
    source: str
    producer: str = ""
    reads: tuple[str, ...] = ()


@dataclass
class Memo:
    """Valid for one generator, one site.toml and one set of build options (`key`); kept in a file named by
    the options alone (`options`), so that builds with other options keep theirs."""

    key: str
    options: str
    manifests: dict[str, ManifestRecord] = field(default_factory=dict)  # by path as shown
    stories: dict[str, StoryRecord] = field(default_factory=dict)       # by path as shown
    pages: dict[str, PageRecord] = field(default_factory=dict)          # by output path
    site: str = ""                 # the fingerprint of what site outputs are made from (engine/pages.py) ...
    repeats: dict | None = None    # LP040's RepeatIndex.snapshot()
    related: dict | None = None    # the RelatedIndex.snapshot(), with every story's related stories
    scores: dict[tuple[str, str], float] = field(default_factory=dict)  # LP040's exact scores, by file digests
    search: SearchRecord | None = None
    images: dict[str, ImageRecord] = field(default_factory=dict)       # image files by path as shown
    reads: dict[str, str] = field(default_factory=dict)  # ... but the story outputs they read, by path: digest
    # The files the story records were loaded from: by shard, its file's name and its records as loaded. A
    # record is never changed in place (StoryRecord is frozen; a build makes a new one for what changed), so a
    # shard whose records are all the very objects it was loaded with is that file still, and a save does not
    # pickle and write it again. Not saved itself; a build hands it from the memo it was given to the next.
    loaded: dict[int, tuple[str, dict[str, StoryRecord]]] = field(default_factory=dict, repr=False, compare=False)
    # What each story's variants were last made from, by path: the preview's next build compares a story's job
    # with it instead of taking the job's fingerprint again. Not saved (a job is as large as its fingerprint is
    # small), so a build from a loaded memo takes every job's fingerprint.
    made: dict[str, Made] = field(default_factory=dict, repr=False, compare=False)


def take(memo: Memo | None, name: str) -> dict | None:
    """An index's snapshot, taken out of the memo: restoring it hands it over to the index, which then changes
    it in place, so the memo lets go of it first (a build that fails after that starts the index afresh)."""
    if memo is None:
        return None
    kept = getattr(memo, name)
    setattr(memo, name, None)
    return kept


def memo_path(root: Path, options: str) -> Path:
    return root / CACHE_DIR / f"memo-{key_of(options)[:16]}"


SHARDS = 16  # the story records are kept in this many files: an edit writes again the one holding its story


def load_memo(root: Path, options: str, key: str) -> Memo | None:
    """The memo of the last good build of root with these options, if it is ours, intact and made for `key`."""
    secret = _secret()
    path = memo_path(root, options)
    try:
        data = path.read_bytes()
    except OSError:
        return None
    head, signature, body = data[:len(FORMAT)], data[len(FORMAT):len(FORMAT) + 32], data[len(FORMAT) + 32:]
    if secret is None or head != FORMAT or not hmac.compare_digest(signature, _sign(secret, body)):
        return None
    try:
        memo, shards = pickle.loads(body)
        loaded = {n: (name, _load_shard(path, name)) for n, name in enumerate(shards)}
    except Exception:  # signed by us (each shard by its digest): only a generator change could make it unreadable
        return None
    if not isinstance(memo, Memo) or memo.key != key or len(loaded) != SHARDS:
        return None
    memo.loaded = loaded
    memo.stories = {path: record for _, records in loaded.values() for path, record in records.items()}
    return memo


def _load_shard(head: Path, name: str) -> dict[str, StoryRecord]:
    data = head.with_name(f"{head.name}-{name}").read_bytes()
    if hashlib.sha256(data).hexdigest()[:32] != name:
        raise ValueError("a shard of the memo is not what its head names")
    return pickle.loads(data)


def save_memo(root: Path, memo: Memo) -> None:
    """Write the story shards that changed under names of their own digests, then the head naming them under a
    temporary name put in place (a reader finds the old memo or the new), then remove the shards no head names."""
    secret = _secret()
    if secret is None:
        return
    path = memo_path(root, memo.options)
    path.parent.mkdir(parents=True, exist_ok=True)
    grouped: list[dict[str, StoryRecord]] = [{} for _ in range(SHARDS)]
    for story, record in memo.stories.items():
        grouped[zlib.crc32(story.encode()) % SHARDS][story] = record
    shards = [_saved_shard(path, memo.loaded.get(n), records) for n, records in enumerate(grouped)]
    head = dataclasses.replace(memo, stories={}, loaded={}, made={})
    body = pickle.dumps((head, shards), protocol=pickle.HIGHEST_PROTOCOL)
    write_whole(path, FORMAT + _sign(secret, body) + body)
    memo.loaded = dict(enumerate(zip(shards, grouped)))
    named = {f"{path.name}-{name}" for name in shards}
    for found in path.parent.glob(f"{path.name}-*"):
        if found.name not in named:
            found.unlink(missing_ok=True)


def _saved_shard(head: Path, was: tuple[str, dict[str, StoryRecord]] | None, records: dict[str, StoryRecord]) -> str:
    """The name of the shard file holding these records: the one it was loaded from (`was`) if they are its
    very objects."""
    name, loaded = was or ("", {})
    if name and loaded.keys() == records.keys() and all(loaded[path] is record for path, record in records.items()):
        if head.with_name(f"{head.name}-{name}").exists():
            return name
    out = io.BytesIO()
    _ShardPickler(out, protocol=pickle.HIGHEST_PROTOCOL).dump(records)
    data = out.getvalue()
    name = hashlib.sha256(data).hexdigest()[:32]
    write_whole(head.with_name(f"{head.name}-{name}"), data)
    return name


class _ShardPickler(pickle.Pickler):
    """Pickles each story's similarity features as their few plain values (Features.plain), loaded through
    Features.from_plain: thousands of signatures pickle and load far quicker as bytes than as arrays."""

    def reducer_override(self, obj):
        if type(obj) is Features:
            return Features.from_plain, (obj.plain(),)
        return NotImplemented


def _sign(secret: bytes, body: bytes) -> bytes:
    return hmac.new(secret, body, hashlib.sha256).digest()


def _secret() -> bytes | None:
    """This user's signing key (made on first use, readable only by them), or None if it cannot be kept."""
    home = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "ledgerpress"
    path = home / KEY_NAME
    try:
        return path.read_bytes()
    except OSError:
        pass
    try:
        home.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "wb") as out:
            out.write(secrets.token_bytes(32))
        return path.read_bytes()
    except OSError:
        return None
