"""The output folder: a build never changes the live tree a reader sees. It brings a second tree, kept beside the
output folder, up to date (hard links for what did not change, new files for what did) and then exchanges
the two folders in one step, so a reader, a publish or a killed build sees the old site or the new one,
never a mix. Only files ledgerpress wrote are ever replaced or deleted; files put there by hand are kept."""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Mapping
from pathlib import Path

from ..content.findings import shown_name
from ..content.layout import CACHE_DIR, file_digest, is_utf8
from .whole_files import link_or_copy, prune, replace_file, write_file, write_new
from .lock import LOCK, OutputLock
from .look import LiveLook
from .record import (
    CARRIED,
    UNKNOWN,
    Entry,
    file_stamp,
    load_record,
    own_folder,
    same,
    save_record,
    stat_entry,
)
from .store import CommitStats, Receipt, check_relative
from .switch import restore, switch
from .tree import folder_times, folders_of, foreign_files, in_the_way


NEXT = "next"  # in the output's own folder: the second tree, which the next build changes into the new site
SCRATCH = "scratch"  # in the output's own folder: the build's temporary files
CHANGING = "changing"  # in the output's own folder while a build changes the next tree
PREVIOUS = "previous"  # in the output's own folder: the live tree, for a moment, where two cannot be exchanged
MIRROR = "mirror"  # in the output's own folder during a first build: links to each file it writes, the next tree


class OutputRefused(Exception):
    """Why the build will not write this output folder: printed as is."""


def never_written(folder: Path, root: Path) -> str | None:
    """Why a build or a publish must never write into this folder (resolved), of the site at `root` (resolved):
    it is the whole disk, a home folder, the site or a folder holding it, or inside the site's inputs."""
    try:
        home = Path.home().resolve()
    except RuntimeError:  # no HOME and no entry in the password database: no home folder to spare
        home = None
    if folder == Path(folder.anchor) or folder == home or folder in root.parents or folder == root:
        return "it holds the site itself, a home folder or the whole disk"
    for inputs in (root / "content", root / "templates", root / CACHE_DIR):
        if folder == inputs or inputs in folder.parents:
            return f"it is inside {inputs.name}/"
    return None


def check_target(out: Path, root: Path) -> None:
    """Refuse an output folder a build must never own (the filesystem root, a home folder, the site itself, a
    folder holding it, or a folder inside its content/ or templates/) or cannot (a file, a mount point, or one
    whose folder for the record and the second tree is taken by a file or a link)."""
    out, root = out.resolve(), root.resolve()
    why = never_written(out, root)
    if why:
        raise OutputRefused(f"refusing to write the site into {out}: {why}; choose an empty folder, e.g. --out public")
    if out.exists() and not out.is_dir():
        raise OutputRefused(f"{out} is a file, not a folder: move it, or choose another folder with --out")
    if os.path.ismount(out):  # it could be neither exchanged with the tree beside it nor hard-linked into it
        raise OutputRefused(f"{out} is a mount point, and a build puts each new tree in its folder's place: build "
                            f"into a folder inside it, e.g. --out {out / 'public'}")
    own = own_folder(out)
    if own.is_symlink() or own.exists() and not own.is_dir():  # a link would take the second tree elsewhere
        raise OutputRefused(f"{own} is in the way: ledgerpress keeps the record and the second tree of "
                            f"{out.name}/ in a folder of that name; move it")


class FolderStore:
    """Outputs in a folder (OutputStore). Holds the output's lock from creation to commit() or abort(); `build`,
    the key of the build's inputs and options, is recorded with the tree it makes."""

    def __init__(self, out: Path, root: Path, build: str = "", look: LiveLook | None = None) -> None:
        check_target(out, root)
        self.build, self.look = build, look
        self.out = out.resolve()
        self.own = own_folder(self.out)
        self.next = self.own / NEXT
        self.changing = self.own / CHANGING
        self.own.mkdir(parents=True, exist_ok=True)
        self.lock = OutputLock(self.own / LOCK)
        self.lock.take(exclusive=True, wait=False, what=f"{self.out} is being written by another build",
                       read=f"{self.out} is being published")
        try:
            self._start()
        except BaseException:
            self.lock.release()
            raise

    def _start(self) -> None:
        restore(self.out, self.own / PREVIOUS)
        self.record = load_record(self.out)
        live = self.record.tree(self.out) if self.out.exists() else {}
        if live is None:
            with os.scandir(self.out) as entries:
                foreign = any(entries)
            if foreign:
                raise OutputRefused(f"{self.out} holds files ledgerpress did not write; delete it (the build "
                                    "makes it again) or choose another folder with --out")
            live = {}
        self.recorded = {path: entry for path, entry in live.items() if entry[0] != CARRIED}
        changed = self.look.changed(self.record, os.stat(self.out).st_ino) if self.look and live else None
        if changed is None:
            top = f"{self.out}{os.sep}"
            self.live = {path: entry for path, entry in self.recorded.items() if same(top + path, entry)}
        else:
            self.live = {path: entry for path, entry in self.recorded.items() if path not in changed}
        self.live_folders = self.record.folders(self.out) if live else None  # the live tree's, as last seen
        self.live_record = live  # with the files carried so far: commit() looks for those put there by hand
        # A build stopped while it changed the next tree leaves the mark: that tree is not as recorded.
        ours = self.record.tree(self.next) if not self.changing.exists() else None
        self.next_folders = self.record.folders(self.next)  # the next tree's, as recorded when it was last made
        if ours is None or not self.out.exists():
            shutil.rmtree(self.next, ignore_errors=True)
            ours, self.next_folders = {}, None
        # A file of the next tree linked to a live file edited in place since (the same inode) was edited too.
        self.made = {path: entry for path, entry in ours.items() if entry[0] != CARRIED
                     and (path in self.live or path not in self.recorded or self.recorded[path][3] != entry[3])}
        # Those edited in place leave the next tree (written again if still made, else gone), as do the user's
        # files carried into it, until commit() links those still there again: a link of theirs to a folder
        # elsewhere must never take an output written into this tree out of it.
        self.dropped = ours.keys() - self.made.keys()
        self.next.mkdir(exist_ok=True)
        shutil.rmtree(self.own / SCRATCH, ignore_errors=True)  # a killed build's: no other one holds the lock
        shutil.rmtree(self.own / MIRROR, ignore_errors=True)
        # A first build into the folder leaves no second tree: it links each file it writes into one as it goes
        # (on every core), which becomes the next tree once the new one is live, so that the next build, likely
        # an edit someone is waiting for, does not link the whole site first.
        self.mirror = str(self.own / MIRROR) if not self.out.exists() else None
        if self.mirror is not None:
            os.mkdir(self.mirror)
        self.changing.touch()
        for path in self.dropped:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(os.path.join(self.next, path))
        self.foreign: list[str] = []  # the files put there by hand, looked for at commit
        self.moved: set[str] = set()  # the folders of the next tree whose entries commit changed
        self.handled: dict[str, str] = {}
        self.written: dict[str, tuple[int, int, int]] = {}  # files put into the next tree anew this build: stamps
        self._folders_made: set[str] = set()

    def holds(self, path: str, digest: str) -> bool:
        entry = self.live.get(path)
        return entry is not None and entry[0] == digest

    def put(self, path: str, data: bytes) -> Receipt:
        check_relative(path)
        code = file_digest(data)
        if self._link_unchanged(path, code):
            return Receipt(path, code, False)
        target = os.path.join(self.next, path)
        self._folder(os.path.dirname(target))
        written = write_new(target, data)
        if written is None:  # a file there, maybe a link to a live one: replaced, never written through
            replace_file(target, lambda temporary: write_file(temporary, data))
            written = os.stat(target, follow_symlinks=False)
        if self.mirror is not None:
            mirrored = os.path.join(self.mirror, path)
            self._folder(os.path.dirname(mirrored))
            link_or_copy(target, mirrored)
        return Receipt(path, code, True, stamp=file_stamp(written))

    def _folder(self, folder: str) -> None:
        """Make a folder of the next tree once (in whichever process asks first: workers inherit the set)."""
        if folder not in self._folders_made:
            os.makedirs(folder, exist_ok=True)
            self._folders_made.add(folder)

    def _link_unchanged(self, path: str, code: str) -> bool:
        """Give the next tree the live tree's file at `path` when it has these bytes (True: the next tree holds
        them already, or now does, as a link); False when the file must be written."""
        made = self.made.get(path)
        if made is not None and made[0] == code:
            return True
        if not self.holds(path, code):
            return False
        target = os.path.join(self.next, path)
        self._folder(os.path.dirname(target))
        link_or_copy(os.path.join(self.out, path), target)  # in place of what the next tree held there
        return True

    def receive(self, receipt: Receipt) -> None:
        self.handled[receipt.path] = receipt.digest
        if receipt.written:
            self.written[receipt.path] = receipt.stamp
        else:  # (put twice, and linked the second time: the file is the live one)
            self.written.pop(receipt.path, None)

    def read(self, path: str) -> bytes:
        return Path(self.next if path in self.handled else self.out, path).read_bytes()

    def commit(self, outputs: Mapping[str, str]) -> CommitStats:
        """Complete the next tree, record it, and switch it in; the lock is released whatever happens."""
        try:
            # The files put there by hand, looked for now rather than when the build started: one put there while
            # it ran is carried too (or refused where it stands in the way), not left in the tree switched out,
            # and a link put in place of a folder never reaches the tree the next build writes into.
            self.foreign = foreign_files(self.out, self.live_record, self.live_folders)
            stats = self._complete(outputs)
            tree = {path: self._entry(path, code) for path, code in outputs.items()}
            tree.update({path: [CARRIED, 0, 0, 0] for path in self.foreign})
            self.record.build = self.build
            next_tree = str(os.stat(self.next).st_ino)
            self.record.trees = {next_tree: tree}
            self.record.dirs = {next_tree: folder_times(self.next, tree, self.next_folders, self.moved)}
            first = not self.out.exists()
            if not first:  # what was edited or deleted by hand since is ours still, its bytes unknown
                live_tree = str(os.stat(self.out).st_ino)
                self.record.trees[live_tree] = {
                    **{path: self.live.get(path, [UNKNOWN, 0, 0, 0]) for path in self.recorded},
                    **{path: [CARRIED, 0, 0, 0] for path in self.foreign}}
                self.record.dirs[live_tree] = self.live_folders or folder_times(self.out, self.record.trees[live_tree])
            save_record(self.out, self.record)
            self.changing.unlink(missing_ok=True)  # the next tree is complete and recorded: trusted from now on
            switch(self.next, self.out, self.own / PREVIOUS)  # the live tree becomes the next
            if first and self.mirror is not None:
                self._mirrored(tree)
            return stats
        finally:
            self.lock.release()

    def _entry(self, path: str, code: str) -> Entry:
        """The record of an output in the next tree: written this build, as put() found it; else as it was
        there, or as it is in the live tree it is linked to."""
        if path in self.written:
            return [code, *self.written[path]]
        for known in (self.made.get(path), self.live.get(path)):
            if known is not None and known[0] == code:
                return known
        return stat_entry(os.path.join(self.next, path), code)

    def _complete(self, outputs: Mapping[str, str]) -> CommitStats:
        unnamed = [path for path in self.foreign if not is_utf8(path)]
        if unnamed:  # the record, in JSON, cannot hold such a name
            raise OutputRefused(f"{self.out}/{shown_name(unnamed[0])} was not written by ledgerpress and its name is "
                                f"not UTF-8, so it cannot be carried into the new site: rename it or move it out of "
                                f"{self.out.name}/")
        clash = sorted({*outputs.keys() & set(self.foreign), *in_the_way(self.foreign, outputs)})
        if clash:
            raise OutputRefused(f"{self.out / clash[0]} was not written by ledgerpress and the build would replace "
                                f"it ({len(clash)} such file{'s' * (len(clash) != 1)}): move it out of {self.out.name}/")
        for path, code in outputs.items():
            if path not in self.handled and not self._link_unchanged(path, code):
                raise RuntimeError(f"{path}: the build took it as unchanged, but {self.out} does not hold it")
        for path in self.foreign:
            replace_file(os.path.join(self.next, path),
                         lambda temporary, path=path: link_or_copy(self.out / path, temporary))
        # what the next tree held, and what this build put there but left out (a search index that failed)
        stale = [path for path in dict.fromkeys([*self.made, *self.dropped, *self.handled]) if path not in outputs
                 and path not in self.foreign]
        for path in stale:
            for top in (self.next, self.mirror) if self.mirror is not None else (self.next,):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(os.path.join(top, path))
                prune(top, Path(top, path).parent)
        # The folders whose entries this build changed, and those holding files of the user's (added while the
        # tree was live, after its times were taken): every other one stands as when the tree was last made.
        changed = (path for path, code in outputs.items() if (made := self.made.get(path)) is None or made[0] != code)
        self.moved = {"", *folders_of([*self.foreign, *self.dropped, *stale, *changed])}
        written = [path for path, code in self.handled.items() if path in outputs and not self.holds(path, code)]
        gone = [path for path in self.live if path not in outputs]
        return CommitStats(len(outputs), len(written), len(outputs) - len(written), len(gone), written + gone)

    def _mirrored(self, tree: dict[str, Entry]) -> None:
        """After the first build into the folder, the links it made as it wrote become the next tree: the same
        files, by the same inodes. Recorded once whole: a build stopped before that links them again, file by
        file, in the next build."""
        os.rename(self.mirror, self.next)
        made_tree = str(os.stat(self.next).st_ino)
        self.record.trees[made_tree] = tree
        self.record.dirs[made_tree] = folder_times(self.next, tree)  # as any build leaves its trees
        save_record(self.out, self.record)

    def abort(self) -> None:
        self.lock.release()

    def scratch(self) -> str:
        """Beside the output folder, so that what a build writes and reads back in passing (the story bodies
        waiting for their pages, the pages Pagefind reads) stays on the file system the user chose for the
        site, a RAM disk included, rather than going through the system's temporary folder."""
        folder = self.own / SCRATCH
        folder.mkdir(exist_ok=True)
        return str(folder)
