"""The memo: what the last good build learned (records of every input file and output, and the site-wide
indexes as snapshots), so that the next build reads and makes again only what changed. Plain data, pickled
into .ledgerpress-cache/ (a head, signed with a key that never leaves this user's own cache folder, naming the
files of the story records and of their teasers by their digests): a memo that arrives with a checkout, or is
damaged, is ignored, never unpickled."""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import io
import os
import pickle
import secrets
import weakref
import zlib
from dataclasses import dataclass, field
from pathlib import Path

from ..analysis.similarity import Features
from ..content.layout import CACHE_DIR, file_digest, key_of
from ..output.record import file_stamp
from ..output.whole_files import write_whole
from .records import ImageRecord, MadeFrom, ManifestRecord, PageRecord, Rendered, SearchRecord, StoryRecord

FORMAT = b"ledgerpress-memo-9\n"
KEY_NAME = "memo-key"
KEY_BYTES = 32


@dataclass
class Memo:
    """Valid for one generator, one site.toml and one set of build options (`key`); kept in a file named by
    the options alone (`options`), so that builds with other options keep theirs."""

    key: str
    options: str
    manifests: dict[str, ManifestRecord] = field(default_factory=dict)  # by path as shown
    stories: dict[str, StoryRecord] = field(default_factory=dict)       # by path as shown
    pages: dict[str, PageRecord] = field(default_factory=dict)          # by output path
    site: str = ""                 # the fingerprint of what site outputs are made from (engine/site_outputs.py) ...
    reads: dict[str, str] = field(default_factory=dict)  # ... but the story outputs they read, by path: digest
    repeats: dict | None = None    # LP040's RepeatIndex.snapshot()
    related: dict | None = None    # the RelatedIndex.snapshot(), with every story's related stories
    scores: dict[tuple[str, str], float] = field(default_factory=dict)  # LP040's exact scores, by file digests
    search: SearchRecord | None = None
    images: dict[str, ImageRecord] = field(default_factory=dict)       # image files by path as shown
    # The files the story records were loaded from, by shard number (RecordShard). Not saved itself; a build hands
    # it from the memo it was given to the next.
    loaded: dict[int, RecordShard] = field(default_factory=dict, repr=False, compare=False)
    # What each story's variants were last made from, by path: the preview's next build compares a story's job
    # with it instead of taking the job's fingerprint again. Not saved (a job is as large as its fingerprint is
    # small), so a build from a loaded memo takes every job's fingerprint.
    made: dict[str, MadeFrom] = field(default_factory=dict, repr=False, compare=False)

    def teaser(self, story: str) -> bytes:
        """The teaser of a story whose record came from a shard of this memo (its Rendered holds None)."""
        shard = self.loaded[shard_of(story)]
        start, end = shard.at[story]
        return shard.teasers.read(start, end, shard.records[story].rendered.teaser_digest)


@dataclass
class RecordShard:
    """A file of story records as loaded or saved: its name, its records, the file of their teasers and where
    each story's stands in it. A record is never changed in place (StoryRecord is frozen; a build makes a new
    one for what changed), so a shard whose records are all the very objects it was loaded with is that file
    still, and a save does not pickle and write it again."""

    name: str
    records: dict[str, StoryRecord]
    teasers: Teasers
    at: dict[str, tuple[int, int]]


class MemoDamaged(Exception):
    """A file of the memo, read only when a build needed it, is not what the head names."""

    def __init__(self, path: Path) -> None:
        super().__init__(f"{path} is damaged (it was removed): build again")
        self.path = path

    def __reduce__(self):  # raised in a worker, raised again in the build
        return MemoDamaged, (self.path,)


class Teasers:
    """A shard's teasers, their JSON one after another in a file of their own: most builds list no story anew
    and the rest list a few, so a build reads only the teasers of the stories a page it makes lists. The file
    is opened when the memo is loaded (a build saving its memo meanwhile cannot take it away) and must then
    stand as the head recorded it; each teaser read is checked against its digest, which its story's record
    holds (what the head's signature covers)."""

    def __init__(self, path: Path, digest: str, stamp: tuple[int, int, int]) -> None:
        self.path, self.digest, self.stamp = path, digest, stamp
        self.descriptor = os.open(self.path, os.O_RDONLY | os.O_CLOEXEC)
        weakref.finalize(self, os.close, self.descriptor)
        if file_stamp(os.fstat(self.descriptor)) != stamp:
            raise ValueError(f"{self.path} is not as the head recorded it")

    def read(self, start: int, end: int, digest: str) -> bytes:
        data = os.pread(self.descriptor, end - start, start)  # by offset: forked workers share the descriptor
        if file_digest(data) != digest:  # (a file cut short reads short)
            self.path.unlink(missing_ok=True)  # the next build then reads every story again
            raise MemoDamaged(self.path)
        return data


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


RECORD_SHARDS = 16  # the story records are kept in this many files: an edit writes again the one holding its story
TEASERS = "teasers-"  # before the digest in the names of the shards' teasers files


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
        loaded = {n: _load_shard(path, *named) for n, named in enumerate(shards)}
    except Exception:  # signed by us (each shard by its digest): only a generator change could make it unreadable
        return None
    if not isinstance(memo, Memo) or memo.key != key or len(loaded) != RECORD_SHARDS:
        return None
    memo.loaded = loaded
    memo.stories = {path: record for shard in loaded.values() for path, record in shard.records.items()}
    return memo


def shard_of(story: str) -> int:
    return zlib.crc32(story.encode()) % RECORD_SHARDS


def _beside(head: Path, name: str) -> Path:
    return head.with_name(f"{head.name}-{name}")


def _load_shard(head: Path, name: str, teasers: str, stamp: tuple[int, int, int]) -> RecordShard:
    data = _beside(head, name).read_bytes()
    if file_digest(data) != name:
        raise ValueError("a shard of the memo is not what its head names")
    records, at = pickle.loads(data)
    return RecordShard(name, records, Teasers(_beside(head, TEASERS + teasers), teasers, stamp), at)


def save_memo(root: Path, memo: Memo) -> None:
    """Write the story shards and teasers that changed under names of their own digests, then the head naming
    them under a temporary name put in place (a reader finds the old memo or the new), then remove the files
    no head names."""
    secret = _secret()
    if secret is None:
        return
    path = memo_path(root, memo.options)
    path.parent.mkdir(parents=True, exist_ok=True)
    grouped: list[dict[str, StoryRecord]] = [{} for _ in range(RECORD_SHARDS)]
    for story, record in memo.stories.items():
        grouped[shard_of(story)][story] = record
    # The teasers files kept as they are come first: another shard's can come to the same bytes (two shards
    # without a story), and writing that file again would move the stamp the head records for it.
    same = [_same_teasers(memo.loaded.get(n), records) for n, records in enumerate(grouped)]
    files = {memo.loaded[n].teasers.digest: memo.loaded[n].teasers for n in range(RECORD_SHARDS) if same[n]}
    shards = [_saved_shard(path, memo, memo.loaded.get(n), records, same[n], files)
              for n, records in enumerate(grouped)]
    head = dataclasses.replace(memo, stories={}, loaded={}, made={})
    body = pickle.dumps((head, [(shard.name, shard.teasers.digest, shard.teasers.stamp) for shard in shards]),
                        protocol=pickle.HIGHEST_PROTOCOL)
    write_whole(path, FORMAT + _sign(secret, body) + body)
    memo.loaded = dict(enumerate(shards))
    named = {_beside(path, name).name for shard in shards for name in (shard.name, TEASERS + shard.teasers.digest)}
    for found in path.parent.glob(f"{path.name}-*"):
        if found.name not in named:
            found.unlink(missing_ok=True)


def _same_teasers(was: RecordShard | None, records: dict[str, StoryRecord]) -> bool:
    """These records have the teasers of the shard as loaded (`was`), whose teasers file holds them."""
    if was is None or was.records.keys() != records.keys() or not was.teasers.path.exists():
        return False
    return all(record is was.records[path] or _teaser_digest(record) == _teaser_digest(was.records[path])
               for path, record in records.items())


def _saved_shard(head: Path, memo: Memo, was: RecordShard | None, records: dict[str, StoryRecord],
                 same_teasers: bool, files: dict[str, Teasers]) -> RecordShard:
    """The shard holding these records: the files it was loaded from (`was`) where they hold the same (its
    teasers file where `same_teasers`); `files`: the teasers files of this save so far, by digest."""
    if same_teasers:
        if _beside(head, was.name).exists() and all(was.records[path] is record for path, record in records.items()):
            return was
        teasers, at = was.teasers, was.at
    else:
        listed = {path: memo.teaser(path) if record.rendered.teaser is None else record.rendered.teaser
                  for path, record in records.items() if record.rendered is not None}
        at, offset = {}, 0
        for path, teaser in listed.items():
            at[path] = (offset, offset + len(teaser))
            offset += len(teaser)
        data = b"".join(listed.values())
        digest = file_digest(data)
        teasers = files.get(digest)
        if teasers is None:
            file = _beside(head, TEASERS + digest)
            write_whole(file, data)
            teasers = files[digest] = Teasers(file, digest, file_stamp(file.stat()))
    out = io.BytesIO()
    _ShardPickler(out, protocol=pickle.HIGHEST_PROTOCOL).dump((records, at))
    return RecordShard(_write_named(head, out.getvalue()), records, teasers, at)


def _teaser_digest(record: StoryRecord) -> str | None:
    return record.rendered.teaser_digest if record.rendered is not None else None


def _write_named(head: Path, data: bytes) -> str:
    """Write a file of the memo under the name of its digest; the digest."""
    digest = file_digest(data)
    write_whole(_beside(head, digest), data)
    return digest


class _ShardPickler(pickle.Pickler):
    """Pickles each story's similarity features as their few plain values (Features.plain), loaded through
    Features.from_plain: thousands of signatures pickle and load far quicker as bytes than as arrays; and
    each story's Rendered without its teaser, which the shard's teasers file holds."""

    def reducer_override(self, obj):
        if type(obj) is Features:
            return Features.from_plain, (obj.plain(),)
        if type(obj) is Rendered and obj.teaser is not None:
            return dataclasses.replace(obj, teaser=None).__reduce_ex__(pickle.HIGHEST_PROTOCOL)
        return NotImplemented


def _sign(secret: bytes, body: bytes) -> bytes:
    return hmac.new(secret, body, hashlib.sha256).digest()


def _secret() -> bytes | None:
    """This user's signing key (made on first use, readable only by them), or None if it cannot be kept."""
    home = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "ledgerpress"
    path = home / KEY_NAME
    try:
        key = path.read_bytes()
        if len(key) >= KEY_BYTES:  # (a shorter one was not made here, and would sign nothing worth trusting)
            return key
    except OSError:
        pass
    temporary = home / f".{KEY_NAME}.{os.getpid()}"
    try:
        home.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "wb") as out:
            out.write(secrets.token_bytes(KEY_BYTES))
        os.replace(temporary, path)  # whole: no process ever reads a key half written
        return path.read_bytes()
    except OSError:
        temporary.unlink(missing_ok=True)
        return None
