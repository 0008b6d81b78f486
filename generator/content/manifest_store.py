"""Making manifest files: fresh ids, atomic writes, and the ids stories cite that content/manifests lacks
(manifest_pull.py fetches them)."""

from __future__ import annotations

import json
import os
import re
import secrets
import time
from collections.abc import Collection
from pathlib import Path

from .cites import CITE
from .findings import Finding
from .load import Content
from .manifest_files import load_manifest
from .models import ID_PATTERN

_ID = re.compile(ID_PATTERN)
_EPOCH_MS = 1_767_225_600_000  # 2026-01-01: ids count milliseconds from here, so they stay 19 digits for decades


def mint_id(taken: Collection[str] = ()) -> str:
    """A fresh 19-digit id: milliseconds since 2026 then random bits, so ids sort by time and never collide
    in practice; `taken` ids are skipped all the same."""
    while True:
        stamp = max(int(time.time() * 1000) - _EPOCH_MS, 0) & ((1 << 40) - 1)
        minted = str((1 << 62) | (stamp << 22) | secrets.randbits(22))
        if minted not in taken:
            return minted


def manifest_text(data: dict) -> str:
    """A manifest as ledgerpress writes one: two-space JSON, keys in the order given, ids as strings."""
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def checked_text(manifest_id: str, text: str, shown: str) -> list[Finding]:
    """What reading this text saved as <manifest_id>.json would find (LP100, LP004), without saving it: the rules
    on manifests (LP101, LP102) cannot fault a file `manifest new` makes, with a fresh id and claim ids."""
    return load_manifest(f"{manifest_id}.json", shown, text.encode("utf-8"))[1]


def write_new(path: Path, text: str) -> None:
    """Write a file that must not exist yet, all at once: a reader never sees half of it, and an existing
    file is never replaced (FileExistsError)."""
    temp = _temp_beside(path, text)
    try:
        os.link(temp, path)
    finally:
        os.unlink(temp)


def write_replacing(path: Path, text: str) -> None:
    """Write a file all at once, replacing what was there."""
    temp = _temp_beside(path, text)
    try:
        os.replace(temp, path)
    except BaseException:
        os.unlink(temp)
        raise


def _temp_beside(path: Path, text: str) -> str:
    """A hidden temporary file in the target's folder (so a rename is atomic; `check` skips hidden files)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = str(path.parent / f".{path.name}.{secrets.token_hex(6)}.tmp")
    # (not mkstemp, whose files are the user's alone: the umask decides, as for any file the user makes)
    handle = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
    except BaseException:
        os.unlink(temp)
        raise
    return temp


def missing_ids(root: Path, content: Content) -> list[str]:
    """Ids that stories cite (ledger, key facts, body) and content/manifests has no file for."""
    cited: set[str] = set()
    for story in content.stories:
        cited.update(entry.manifest for entry in story.meta.ledger)
        cited.update(i for fact in story.meta.key_facts for i in fact.cites)
    for item in (*content.stories, *content.broken):
        cited.update(part.strip() for found in CITE.finditer(item.body) for part in found[1].split(","))
    folder = root / "content" / "manifests"
    return sorted(i for i in cited if _ID.fullmatch(i) and not (folder / f"{i}.json").exists())
