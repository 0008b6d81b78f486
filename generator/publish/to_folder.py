"""Publishing to a folder on this machine: the new tree is staged beside it (unchanged files as hard links) and
exchanged with it in one step; files put there by others are carried over, never deleted or replaced."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from ..content.findings import counted
from ..output.whole_files import link_or_copy
from ..output.folder import never_written
from ..output.switch import switch
from ..output.tree import in_the_way
from . import MANIFEST, Item, Plan, PublishError, sha256


def _forbidden(dest: Path, public: Path) -> str | None:
    """Why dest must never be published to, if it must not (as a build's output folder must not, and never
    where public/ is)."""
    if dest == public or dest.is_relative_to(public) or public.is_relative_to(dest):
        return f"it overlaps {public}"
    return never_written(dest, public.parent)


class FolderTarget:
    """A folder that becomes public/'s copy: what an earlier publish wrote there (its manifest) is replaced or
    deleted as public/ says; everything else there is kept, and a file of the site may not replace it."""

    def __init__(self, dest: Path, public: Path) -> None:
        self.dest, public = dest.resolve(), public.resolve()
        why = _forbidden(self.dest, public)
        if why:
            raise PublishError(f"refusing to publish into {dest}: {why}")
        if self.dest.exists() and not self.dest.is_dir():
            raise PublishError(f"{dest} exists and is not a folder")
        self.ours = self._manifest()
        self.others: list[str] = []

    def _manifest(self) -> dict[str, str]:
        """What the last publish here wrote, by path: its sha256 (empty when there was none)."""
        try:
            data = json.loads((self.dest / MANIFEST).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return {rel: digest for rel, digest in data.items() if isinstance(digest, str)} if isinstance(data, dict) else {}

    def plan(self, local: dict[str, Item]) -> Plan:
        present = _files(self.dest)
        if present and MANIFEST not in present:
            raise PublishError(f"{self.dest} holds {counted(len(present), 'file')} that ledgerpress did "
                               "not publish: publish into an empty folder, or one ledgerpress published to before")
        foreign = sorted(rel for rel in present if rel not in self.ours and rel != MANIFEST)
        clash = sorted({*(rel for rel in foreign if rel in local and sha256(self.dest / rel) != local[rel].sha256),
                        *in_the_way(foreign, local)})
        if clash:
            raise PublishError(f"{self.dest / clash[0]} was not published by ledgerpress and would be replaced "
                               f"({counted(len(clash), 'such file')}): move it, or publish elsewhere")
        self.others = [rel for rel in foreign if rel not in local]
        plan = Plan(delete=sorted(rel for rel in self.ours if rel in present and rel not in local))
        for rel, item in local.items():
            old = self.dest / rel
            same = (rel in present and not old.is_symlink() and old.stat().st_size == item.size
                    and sha256(old) == item.sha256)
            (plan.unchanged if same else plan.upload).append(item)
        return plan

    def apply(self, plan: Plan, files: dict[str, Path]) -> None:
        staging = self.dest.parent / f".{self.dest.name}.publish-{os.getpid()}"
        shutil.rmtree(staging, ignore_errors=True)
        try:
            for rel in [*(item.path for item in plan.unchanged), *self.others]:
                _place(staging / rel, lambda target, rel=rel: link_or_copy(self.dest / rel, target))
            for item in plan.upload:
                _place(staging / item.path, lambda target, rel=item.path: shutil.copy2(files[rel], target))
            manifest = {item.path: item.sha256 for item in sorted([*plan.unchanged, *plan.upload], key=lambda i: i.path)}
            (staging / MANIFEST).write_text(json.dumps(manifest, indent=0), encoding="utf-8")
            switch(staging, self.dest, self.dest.parent / f".{self.dest.name}.previous-{os.getpid()}")
        finally:  # (with the folder switched out, if it was)
            shutil.rmtree(staging, ignore_errors=True)


def _files(top: Path) -> set[str]:
    if not top.is_dir():
        return set()
    return {path.relative_to(top).as_posix() for path in top.rglob("*") if path.is_file() or path.is_symlink()}


def _place(target: Path, make) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    make(target)
