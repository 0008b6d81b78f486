"""What the last good build knew, kept for the next one: per story, what it was read and rendered from and
what came of it; per site page, what it was made from. Saved in .ledgerpress-cache/memo-<options>/ as
pickles: the story entries in shards named by their digest (an edit writes one shard again, not the whole
memo) and a head naming them, signed with a key that never leaves this user's own cache folder, so a cache
that arrives with a checkout (or is damaged) is ignored, never unpickled."""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import os
import pickle
import secrets
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .cache import CACHE_DIR, digest
from .load import stored_manifests

MEMO_DIR = "memo-{options}"  # one per set of build options (output folder, drafts, base URL...)
HEAD = "head"
FORMAT = b"ledgerpress-memo-2\n"
KEY_NAME = "memo-key"
SHARDS = 64  # story entries are kept in this many files, so that an edit writes one of them again


@dataclass
class Entry:
    """One story as the last good build read and rendered it."""

    prepared: Any                      # prepare.Prepared, its story a brief, without its sections
    deps: str                          # digest of the manifests it refers to, as they were
    render: str = ""                   # digest of everything its three variants were rendered from:
    related: list[str] | None = None   # among them, its related stories
    passed: list[str] = field(default_factory=list)  # and the checks it passed
    view: Any = None                   # view.StoredView: what list pages, feeds and sitemaps need
    outputs: list[tuple[str, str]] = field(default_factory=list)  # (output path, digest)

    def same(self, other: Entry) -> bool:
        """The same reading and rendering as `other` (the objects themselves for what is compared by identity)."""
        return (self.prepared is other.prepared and self.view is other.view and self.deps == other.deps
                and self.render == other.render and self.related == other.related and self.passed == other.passed
                and self.outputs == other.outputs)


@dataclass
class Memo:
    """The last good build: valid for the same generator, options and site.toml (`key`)."""

    key: str                                                        # from new_memo(): code, site.toml, options
    options: str = ""                                               # digest of the build options alone
    stories: dict[str, Entry] = field(default_factory=dict)          # story path -> entry
    related: Any = None                                             # related_stories.RelatedIndex (with results)
    pages: dict[str, tuple[str, str, str]] = field(default_factory=dict)  # site output -> (inputs, digest, source)
    scores: dict[tuple[str, str], float] = field(default_factory=dict)  # LP040 exact scores by file digests
    site: str = ""                                                    # digest of all the site pages' inputs
    manifests: dict = field(default_factory=dict)  # load.Content.manifest_files (on disk: load.stored_manifests)
    manifest_digests: dict[str, str] = field(default_factory=dict)  # manifest id -> digest of its file
    repeats: Any = None                                             # similarity.RepeatIndex (LP040)
    templates: str = ""                                             # digest of the story templates
    compiled: dict[str, bytes] = field(default_factory=dict)        # render.CompiledTemplates, for the next process
    shards: dict[int, tuple[str, dict[str, Entry]]] = field(default_factory=dict, repr=False)  # as loaded: file, entries


def new_memo(root: Path, options: str) -> Memo:
    """An empty memo for a build of root with these options (valid for this code and this site.toml)."""
    try:
        config = (root / "content" / "site.toml").read_bytes()
    except OSError:
        config = b""
    named = _hex(options.encode())
    return Memo(_hex(b"\0".join([code_digest().encode(), named.encode(), config])), named)


def _hex(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def code_digest() -> str:
    """The generator's own source: a new version or a local change makes every memo stale."""
    package = Path(__file__).resolve().parent
    hasher = hashlib.blake2b(digest_size=16)
    for path in sorted([*package.glob("*.py"), *package.glob("checks/*.py")]):
        hasher.update(path.name.encode() + b"\0" + path.read_bytes())
    return hasher.hexdigest()


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


def load_memo(root: Path, empty: Memo) -> Memo | None:
    """The memo of the last good build of this root with the same options, if it is ours, intact and made
    for the same code and site.toml as `empty` (from new_memo)."""
    secret = _secret()
    if secret is None:
        return None
    folder = root / CACHE_DIR / MEMO_DIR.format(options=empty.options)
    try:
        data = (folder / HEAD).read_bytes()
    except OSError:
        return None
    head, signature, body = data[:len(FORMAT)], data[len(FORMAT):len(FORMAT) + 32], data[len(FORMAT) + 32:]
    if head != FORMAT or not hmac.compare_digest(signature, hmac.new(secret, body, hashlib.sha256).digest()):
        return None
    try:
        memo, names = pickle.loads(body)
        if not isinstance(memo, Memo) or memo.key != empty.key:
            return None
        for number, name in names.items():
            data = (folder / name).read_bytes()
            if digest(data) != name:  # the signed head names each shard by its digest
                return None
            entries = pickle.loads(data)
            memo.stories.update(entries)
            memo.shards[number] = (name, entries)
    except Exception:  # signed by us, so only a generator change or a lost shard can break it: start afresh
        return None
    if memo.related is not None and not memo.related.relink(memo.stories):
        memo.related = None
    return memo


def save_memo(root: Path, memo: Memo) -> None:
    """Write the memo: the story entries in SHARDS files named by their digest, of which only those holding
    an entry that changed since the memo was loaded are written again, then the signed head naming them."""
    secret = _secret()
    if secret is None:
        return
    folder = root / CACHE_DIR / MEMO_DIR.format(options=memo.options)
    folder.mkdir(parents=True, exist_ok=True)
    groups: dict[int, dict[str, Entry]] = {}
    for path, entry in memo.stories.items():
        groups.setdefault(zlib.crc32(path.encode()) % SHARDS, {})[path] = entry
    names: dict[int, str] = {}
    for number, entries in sorted(groups.items()):
        name, before = memo.shards.get(number, ("", {}))
        if not (name and before.keys() == entries.keys() and all(entries[path] is entry for path, entry in before.items())
                and (folder / name).is_file()):
            data = pickle.dumps(entries, protocol=pickle.HIGHEST_PROTOCOL)
            name = digest(data)
            _write(folder / name, [data])
            memo.shards[number] = (name, entries)
        names[number] = name
    kept = dataclasses.replace(memo, stories={}, shards={}, manifests=stored_manifests(root, memo.manifests))
    body = pickle.dumps((kept, names), protocol=pickle.HIGHEST_PROTOCOL)
    _write(folder / HEAD, [FORMAT, hmac.new(secret, body, hashlib.sha256).digest(), body])
    for stale in set(os.listdir(folder)) - {HEAD, *names.values()}:  # shards no head names any longer
        (folder / stale).unlink(missing_ok=True)
    (folder.parent / f"{folder.name}.pickle").unlink(missing_ok=True)  # the one-file memo of earlier versions


def _write(path: Path, parts: list[bytes]) -> None:
    """Write a file whole or not at all (a reader sees the old one or the new one)."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}")
    with open(temporary, "wb") as out:
        for part in parts:
            out.write(part)
    os.replace(temporary, path)
