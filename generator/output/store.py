"""Where a build puts its outputs: the one interface the engine writes through, and the store that keeps them
in memory (for the preview server and the tests). output/folder.py keeps them in an output folder."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import NamedTuple, Protocol

from ..content.layout import file_digest


class UnsafePath(ValueError):
    """An output path that would leave the output folder."""


def check_relative(path: str) -> None:
    """Refuse a path that is absolute, empty, or has a '..', '.' or empty segment, a backslash or a NUL."""
    if not path or path.startswith("/") or "\\" in path or "\x00" in path \
            or any(part in ("..", ".", "") for part in path.split("/")):
        raise UnsafePath(f"refusing to write outside the output folder: {path!r}")


class Receipt(NamedTuple):
    """What put() did with one output, sent back to the process that commits: its digest, whether the store
    had to take new bytes, the bytes themselves when the store keeps outputs in that process's memory, and the
    size, time and inode of the file written when it keeps them in a folder (which records them at commit:
    the worker that wrote the file has them at hand)."""

    path: str
    digest: str
    written: bool
    data: bytes | None = None
    stamp: tuple[int, int, int] | None = None


@dataclass
class CommitStats:
    files: int = 0
    written: int = 0
    unchanged: int = 0
    deleted: int = 0
    paths: list[str] = field(default_factory=list)  # those written, then those deleted


class OutputStore(Protocol):
    """put() may run in a forked worker; everything else runs in the process that builds."""

    def holds(self, path: str, digest: str) -> bool:
        """The store has this output with these bytes already (then the build need not make it again)."""

    def put(self, path: str, data: bytes) -> Receipt: ...

    def receive(self, receipt: Receipt) -> None: ...

    def read(self, path: str) -> bytes:
        """An output as this build leaves it (put this build, or kept from the last one)."""

    def commit(self, outputs: Mapping[str, str]) -> CommitStats:
        """Make `outputs` (every output of the build, by path, with its digest) what the store holds, whole."""

    def abort(self) -> None: ...

    def scratch(self) -> str | None:
        """A folder for the build's temporary files, on the file system the outputs go to (None: the system's
        temporary folder)."""


@dataclass
class MemoryStore:
    """Outputs as bytes in this process: what `serve` shows and the tests read. `files` is the last committed
    build (never changed in place: a commit makes a new dict, so a reader holding the old one is not disturbed)."""

    files: dict[str, bytes] = field(default_factory=dict)
    digests: dict[str, str] = field(default_factory=dict)
    incoming: dict[str, Receipt] = field(default_factory=dict)

    def holds(self, path: str, digest: str) -> bool:
        return self.digests.get(path) == digest

    def put(self, path: str, data: bytes) -> Receipt:
        check_relative(path)
        return Receipt(path, file_digest(data), True, data)

    def receive(self, receipt: Receipt) -> None:
        self.incoming[receipt.path] = receipt

    def read(self, path: str) -> bytes:
        return self.incoming[path].data if path in self.incoming else self.files[path]

    def commit(self, outputs: Mapping[str, str]) -> CommitStats:
        gone = self.files.keys() - outputs.keys()
        files, digests = self.files.copy(), self.digests.copy()
        for path in gone:
            del files[path], digests[path]
        changed = [receipt for path, receipt in self.incoming.items()
                   if path in outputs and self.digests.get(path) != receipt.digest]
        for receipt in changed:
            files[receipt.path], digests[receipt.path] = receipt.data, receipt.digest
        self.files, self.digests, self.incoming = files, digests, {}
        return CommitStats(len(files), len(changed), len(files) - len(changed), len(gone),
                           [receipt.path for receipt in changed] + list(gone))

    def abort(self) -> None:
        self.incoming = {}

    def scratch(self) -> str | None:
        return None
