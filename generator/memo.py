"""What the last good build knew, kept for the next one: per story, what it was read and rendered from and
what came of it; per site page, what it was made from. Saved in .ledgerpress-cache/memo-<options>/ as
pickles: the story entries in shards named by their digest (an edit writes one shard again, not the whole
memo) and a head naming them, signed with a key that never leaves this user's own cache folder, so a cache
that arrives with a checkout (or is damaged) is ignored, never unpickled."""

from __future__ import annotations

import copyreg
import dataclasses
import functools
import hashlib
import hmac
import io
import os
import pickle
import secrets
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .cache import CACHE_DIR, digest, put_file
from .content.manifests import stored_manifests
from .render.stored_view import StoredView
from .workers import Aside

MEMO_DIR = "memo-{options}"  # one per set of build options (output folder, drafts, base URL...)
HEAD = "head"
FORMAT = b"ledgerpress-memo-3\n"
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
    shards: dict[int, tuple[str, _Views, dict[str, Entry]]] = field(default_factory=dict, repr=False)  # file, views, entries


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
    for path in sorted(package.rglob("*.py")):
        hasher.update(path.relative_to(package).as_posix().encode() + b"\0" + path.read_bytes())
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


class DamagedMemo(Exception):
    """A file the memo's signed head names was gone or changed when the build came to read it."""


class _Views:
    """One shard's story views as JSON (view.StoredView.text), read and checked against the digest the signed
    head names the file by only when a page first asks for one: most builds after an edit never do."""

    def __init__(self, path: Path, texts: dict[str, bytes] | None = None) -> None:
        self.path, self.texts = path, texts

    def text(self, story: str) -> bytes:
        if self.texts is None:
            try:
                data = self.path.read_bytes()
            except OSError as err:
                raise DamagedMemo(f"{self.path}: {err.strerror}") from err
            if digest(data) != self.path.name:
                raise DamagedMemo(f"{self.path}: not the file the memo signed")
            self.texts = pickle.loads(data)
        return self.texts[story]


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
        for number, (name, views_name) in names.items():
            data = (folder / name).read_bytes()
            if digest(data) != name or not (folder / views_name).is_file():  # the signed head names each shard by its digest
                return None
            entries = pickle.loads(data)
            views = _Views(folder / views_name)
            for path, entry in entries.items():
                entry.view.lend(functools.partial(views.text, path))
            memo.stories.update(entries)
            memo.shards[number] = (name, views, entries)
    except Exception:  # signed by us, so only a generator change or a lost shard can break it: start afresh
        return None
    if memo.related is not None and not memo.related.relink(memo.stories):
        memo.related = None
    return memo


def save_memo(root: Path, memo: Memo, ahead: ShardWriter | None = None) -> None:
    """Write the memo: the story entries in SHARDS files named by their digest, each with a file of its views'
    JSON, of which only those holding an entry (or a view) that changed since the memo was loaded are written
    again (or that `ahead` has not written already); then the signed head naming them. (If a file of views
    the memo came with was changed meanwhile, no memo is left: the next build starts afresh.)"""
    secret = _secret()
    if secret is None:
        return
    folder = root / CACHE_DIR / MEMO_DIR.format(options=memo.options)
    folder.mkdir(parents=True, exist_ok=True)
    groups = _groups(memo.stories)
    if ahead is not None:
        ahead.adopt(memo, folder, groups)
    names: dict[int, tuple[str, str]] = {}
    try:
        for number, entries in sorted(groups.items()):
            name, views, before = memo.shards.get(number, ("", None, {}))
            same = bool(name) and before.keys() == entries.keys() and views.path.is_file()
            if not (same and all(entries[path] is entry for path, entry in before.items()) and (folder / name).is_file()):
                if not (same and all(entries[path].view is entry.view or entries[path].view.text == entry.view.text
                                     for path, entry in before.items())):  # a story edited, its listed view the same
                    views = _save_views(folder, entries)
                data = _compact(entries)
                name = digest(data)
                put_file(folder / name, [data])
                memo.shards[number] = (name, views, entries)
            names[number] = (name, views.path.name)
    except DamagedMemo:
        (folder / HEAD).unlink(missing_ok=True)
        return
    kept = dataclasses.replace(memo, stories={}, shards={}, manifests=stored_manifests(root, memo.manifests))
    body = pickle.dumps((kept, names), protocol=pickle.HIGHEST_PROTOCOL)
    put_file(folder / HEAD, [FORMAT, hmac.new(secret, body, hashlib.sha256).digest(), body])
    for stale in set(os.listdir(folder)) - {HEAD, *(name for pair in names.values() for name in pair)}:
        (folder / stale).unlink(missing_ok=True)  # files no head names any longer
    (folder.parent / f"{folder.name}.pickle").unlink(missing_ok=True)  # the one-file memo of earlier versions


def _groups(stories: dict[str, Entry]) -> dict[int, dict[str, Entry]]:
    """The story entries by the shard that holds them."""
    groups: dict[int, dict[str, Entry]] = {}
    for path, entry in stories.items():
        groups.setdefault(zlib.crc32(path.encode()) % SHARDS, {})[path] = entry
    return groups


class ShardWriter:
    """A first build's story shards, written by a forked process while the build goes on to its site pages.
    The story entries are complete once every story is rendered, and then the parent spends a few tenths of
    a second on its own planning the site pages, a core idle meanwhile: the shards (pickled and written, a
    quarter of a second for 4,000 stories) are made on it. save_memo takes their names, if the child wrote
    them all and the entries are still those it was given; else it writes the shards itself, as it would.
    (Not with --jobs 1: the build then keeps to one process.)"""

    MIN_STORIES = 256  # fewer are written in less time than forking takes to pay for

    def __init__(self, root: Path, options: str) -> None:
        self.folder = root / CACHE_DIR / MEMO_DIR.format(options=options)
        self.aside: Aside | None = None
        self.given: dict[str, Entry] = {}

    @property
    def pending(self) -> bool:
        """A child is writing shards (or has written them) that the memo has not taken yet."""
        return self.aside is not None

    def start(self, stories: dict[str, Entry], previous: Memo | None, jobs: int) -> None:
        """Fork the writer, when the build may use more than one process (`jobs`), there are enough entries
        and there is no shard of a loaded memo to keep."""
        if self.aside is not None or jobs <= 1 or len(stories) < self.MIN_STORIES or (previous and previous.shards) \
                or _secret() is None:
            return
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError:
            return
        self.given = dict(stories)
        self.aside = Aside(_write_shards, self.folder, stories)

    def adopt(self, memo: Memo, folder: Path, groups: dict[int, dict[str, Entry]]) -> None:
        """Put the child's shards into the memo as if save_memo had written them, if they are all there and
        made of these very entries (nothing, and save_memo writes them, if not)."""
        given, names = self.given, self.close()
        if (names is None or folder != self.folder or names.keys() != groups.keys() or len(given) != len(memo.stories)
                or any(memo.stories.get(path) is not entry for path, entry in given.items())):
            return
        for number, entries in groups.items():
            name, views_name = names[number]
            views = _Views(folder / views_name)  # read back, and checked, only if a page asks for a view
            for path, entry in entries.items():
                entry.view.lend(functools.partial(views.text, path))
            memo.shards[number] = (name, views, entries)

    def close(self) -> dict[int, tuple[str, str]] | None:
        """Wait for the child; the names of the shards it wrote, if it wrote them all."""
        if self.aside is None:
            return None
        try:
            return self.aside.result()
        finally:
            self.aside, self.given = None, {}


def _write_shards(folder: Path, stories: dict[str, Entry]) -> dict[int, tuple[str, str]]:
    return {number: _write_shard(folder, entries) for number, entries in _groups(stories).items()}


def _write_shard(folder: Path, entries: dict[str, Entry]) -> tuple[str, str]:
    """Write one shard and its views' JSON; their file names."""
    views = _save_views(folder, entries)
    data = _compact(entries)
    name = digest(data)
    put_file(folder / name, [data])
    return name, views.path.name


def _save_views(folder: Path, entries: dict[str, Entry]) -> _Views:
    """Write one shard's views' JSON; the views then read it from there (or from memory, as it was written)."""
    texts = {path: entry.view.text for path, entry in entries.items()}
    data = pickle.dumps(texts, protocol=pickle.HIGHEST_PROTOCOL)
    views = _Views(folder / digest(data), texts)
    put_file(views.path, [data])
    for path, entry in entries.items():
        entry.view.lend(functools.partial(views.text, path))
    return views


def _compact(entries: dict[str, Entry]) -> bytes:
    """Pickled story entries without their views' JSON (kept apart; their similarity features come packed
    from the worker that read them, and stay so)."""
    out = io.BytesIO()
    pickler = pickle.Pickler(out, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.dispatch_table = copyreg.dispatch_table | {StoredView: StoredView.reduced}
    pickler.dump(entries)
    return out.getvalue()


