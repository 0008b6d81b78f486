"""The memo: what the last good build learned (records of every input file and output, and the site-wide
indexes as snapshots), so that the next build reads and makes again only what changed. Plain data, pickled
into one file in .ledgerpress-cache/ and signed with a key that never leaves this user's own cache folder: a
memo that arrives with a checkout, or is damaged, is ignored, never unpickled."""

from __future__ import annotations

import hashlib
import hmac
import os
import pickle
import secrets
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from ..content.layout import CACHE_DIR, file_digest
from .records import ManifestRecord, StoryRecord

FORMAT = b"ledgerpress-memo-4\n"
KEY_NAME = "memo-key"


@dataclass
class PageRecord:
    """A site output as last made: the fingerprint of what it was made from, its digest, its source."""

    fingerprint: str
    digest: str
    source: str


@dataclass
class Memo:
    """Valid for one generator, one site.toml and one set of build options (`key`); kept in a file named by
    the options alone (`options`), so that builds with other options keep theirs."""

    key: str
    options: str
    manifests: dict[str, ManifestRecord] = field(default_factory=dict)  # by path as shown
    stories: dict[str, StoryRecord] = field(default_factory=dict)       # by path as shown
    pages: dict[str, PageRecord] = field(default_factory=dict)          # by output path
    site: str = ""                 # the fingerprint of all the site outputs are made from (see engine/pages.py)
    repeats: bytes | None = None   # LP040's RepeatIndex.snapshot(), pickled: restored afresh each build
    related: bytes | None = None   # the RelatedIndex.snapshot(), pickled, with every story's related stories
    scores: dict[tuple[str, str], float] = field(default_factory=dict)  # LP040's exact scores, by file digests
    search: dict[str, str] = field(default_factory=dict)               # the search index's files and digests


class TeaserFiles:
    """Each story's teaser (its view without sections, as JSON) in a file of the cache named by its digest: a
    page that lists a story reads it from there when it needs more than the story's keys, so that neither the
    memo nor a build's memory holds thousands of them. A file whose bytes are not its name is not used."""

    def __init__(self, root: Path) -> None:
        self.folder = root / CACHE_DIR / "teasers"
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError:  # a site that cannot be written to: the teasers last as long as the build
            self.folder = Path(tempfile.mkdtemp(prefix="ledgerpress-teasers-"))

    def put(self, text: bytes) -> str:
        """Keep a teaser (in whichever process made it); its digest, which names it."""
        name = file_digest(text)
        path = self.folder / name
        if not path.exists():
            temporary = self.folder / f".{name}.{os.getpid()}"
            temporary.write_bytes(text)
            os.replace(temporary, path)
        return name

    def read(self, name: str) -> bytes:
        try:
            text = (self.folder / name).read_bytes()
        except OSError as err:
            raise DamagedCache(f"{self.folder / name}: {err.strerror}") from None
        if file_digest(text) != name:
            raise DamagedCache(f"{self.folder / name} is not the teaser it is named after")
        return text

    def keep_only(self, names: set[str]) -> None:
        """Remove the teasers no record names any longer."""
        try:
            for entry in os.scandir(self.folder):
                if entry.name not in names:
                    os.unlink(entry.path)
        except OSError:
            pass


class DamagedCache(Exception):
    """A file of the cache was gone or changed when the build came to read it: the build starts afresh."""


def snapshot(data: object) -> bytes:
    """An index's snapshot() as the memo keeps it (a build restores a copy of its own, never the memo's)."""
    return pickle.dumps(data, protocol=pickle.HIGHEST_PROTOCOL)


def restored(kept: bytes | None) -> object | None:
    return pickle.loads(kept) if kept is not None else None


def memo_path(root: Path, options: str) -> Path:
    return root / CACHE_DIR / f"memo-{hashlib.blake2b(options.encode(), digest_size=8).hexdigest()}"


def load_memo(root: Path, options: str, key: str) -> Memo | None:
    """The memo of the last good build of root with these options, if it is ours, intact and made for `key`."""
    secret = _secret()
    try:
        data = memo_path(root, options).read_bytes()
    except OSError:
        return None
    head, signature, body = data[:len(FORMAT)], data[len(FORMAT):len(FORMAT) + 32], data[len(FORMAT) + 32:]
    if secret is None or head != FORMAT or not hmac.compare_digest(signature, _sign(secret, body)):
        return None
    try:
        memo = pickle.loads(body)
    except Exception:  # signed by us: only a generator change could make it unreadable; start afresh
        return None
    return memo if isinstance(memo, Memo) and memo.key == key else None


def save_memo(root: Path, memo: Memo) -> None:
    """Write the memo whole under a temporary name, then put it in place (a reader finds the old or the new)."""
    secret = _secret()
    if secret is None:
        return
    path = memo_path(root, memo.options)
    path.parent.mkdir(parents=True, exist_ok=True)
    body = pickle.dumps(memo, protocol=pickle.HIGHEST_PROTOCOL)
    temporary = path.with_name(f".{path.name}.{os.getpid()}")
    with open(temporary, "wb") as out:
        out.write(FORMAT)
        out.write(_sign(secret, body))
        out.write(body)
    os.replace(temporary, path)
    TeaserFiles(root).keep_only({record.rendered.teaser for record in memo.stories.values() if record.rendered})


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
