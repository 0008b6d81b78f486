"""What the last good build knew, kept for the next one: per story, what it was read and rendered from and
what came of it; per site page, what it was made from. Saved in .ledgerpress-cache/ as a pickle signed
with a key that never leaves this user's own cache folder, so a cache that arrives with a checkout (or is
damaged) is ignored, never unpickled."""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import os
import pickle
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .cache import CACHE_DIR
from .load import stored_manifests

MEMO_FILE = "memo-{options}.pickle"  # one per set of build options (output folder, drafts, base URL...)
FORMAT = b"ledgerpress-memo-1\n"
KEY_NAME = "memo-key"


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
    digest = hashlib.blake2b(digest_size=16)
    for path in sorted([*package.glob("*.py"), *package.glob("checks/*.py")]):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


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
    try:
        data = (root / CACHE_DIR / MEMO_FILE.format(options=empty.options)).read_bytes()
    except OSError:
        return None
    head, signature, body = data[:len(FORMAT)], data[len(FORMAT):len(FORMAT) + 32], data[len(FORMAT) + 32:]
    if head != FORMAT or not hmac.compare_digest(signature, hmac.new(secret, body, hashlib.sha256).digest()):
        return None
    try:
        memo = pickle.loads(body)
    except Exception:  # signed by us, so only a generator change can break it: start afresh
        return None
    return memo if isinstance(memo, Memo) and memo.key == empty.key else None


def save_memo(root: Path, memo: Memo) -> None:
    secret = _secret()
    if secret is None:
        return
    folder = root / CACHE_DIR
    folder.mkdir(exist_ok=True)
    name = MEMO_FILE.format(options=memo.options)
    temporary = folder / f".{name}.{os.getpid()}"
    with open(temporary, "wb") as out:  # streamed, signed as it goes: a large site's memo is never one bytes object
        out.write(FORMAT + bytes(32))
        signed = _Signed(out, hmac.new(secret, digestmod=hashlib.sha256))
        kept = dataclasses.replace(memo, manifests=stored_manifests(root, memo.manifests))
        pickle.dump(kept, signed, protocol=pickle.HIGHEST_PROTOCOL)
        out.seek(len(FORMAT))
        out.write(signed.mac.digest())
    os.replace(temporary, folder / name)


class _Signed:
    """A file to pickle into that also feeds every byte to an HMAC."""

    def __init__(self, out, mac: hmac.HMAC) -> None:
        self.out, self.mac = out, mac

    def write(self, data: bytes) -> int:
        self.mac.update(data)
        return self.out.write(data)
