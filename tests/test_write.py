"""Only the writer touches the output folder, and a failed write leaves the old one exactly as it was."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from generator.write import DuplicateOutput, UnsafePath, safe_relative, write_site


def _listing(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_write_then_replace(tmp_path):
    out = tmp_path / "public"
    write_site(out, [("index.html", b"one"), ("a/b/index.html", b"two")])
    write_site(out, [("index.html", b"three")])
    assert _listing(out) == {"index.html": b"three"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["public"]


def test_failure_part_way_leaves_previous_output_untouched(tmp_path):
    out = tmp_path / "public"
    write_site(out, [("index.html", b"old"), ("stories/x/index.html", b"old story")])
    before = _listing(out)

    def files():
        yield "index.html", b"new"
        yield "stories/y/index.html", b"new story"
        raise RuntimeError("renderer crashed")

    with pytest.raises(RuntimeError):
        write_site(out, files())
    assert _listing(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["public"]


@pytest.mark.parametrize("bad", ["../escape.html", "/etc/passwd", "a/../../b", "", "a//b", "a\\..\\b"])
def test_paths_that_leave_the_output_are_refused(tmp_path, bad):
    with pytest.raises(UnsafePath):
        safe_relative(bad)
    out = tmp_path / "public"
    with pytest.raises(UnsafePath):
        write_site(out, [("ok.html", b"x"), (bad, b"y")])
    assert not out.exists() and not (tmp_path / "escape.html").exists()


def test_second_write_to_one_path_is_an_error(tmp_path):
    with pytest.raises(DuplicateOutput):
        write_site(tmp_path / "public", [("a.html", b"1"), ("a.html", b"2")])


def test_pending_writes_only_changed_files_and_commits_at_once(tmp_path):
    from generator.cache import digest
    from generator.write import Pending

    out = tmp_path / "public"
    first = {"index.html": b"one", "a/index.html": b"two", "gone/index.html": b"bye"}
    pending = Pending(out, None)
    for path, data in first.items():
        assert pending.put(path, data, digest(data))
    pending.commit({p: digest(d) for p, d in first.items()}, first)
    assert _listing(out) == first
    previous = {p: digest(d) for p, d in first.items()}
    second = {"index.html": b"one", "a/index.html": b"TWO", "new/index.html": b"new"}
    pending = Pending(out, previous)
    written = {p for p, d in second.items() if pending.put(p, d, digest(d))}
    assert written == {"a/index.html", "new/index.html"}
    assert _listing(out) == first  # nothing changes before the commit
    stats = pending.commit({p: digest(d) for p, d in second.items()}, written)
    assert _listing(out) == second and not (out / "gone").exists()
    assert (stats.files, stats.skipped, stats.deleted) == (2, 1, 1)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["public"]


def test_pending_without_a_record_compares_with_the_disk_and_abort_changes_nothing(tmp_path):
    from generator.cache import digest
    from generator.write import Pending

    out = tmp_path / "public"
    write_site(out, [("index.html", b"same"), ("old.html", b"old")])
    pending = Pending(out, None)
    assert not pending.put("index.html", b"same", digest(b"same"))
    assert pending.put("old.html", b"changed", digest(b"changed"))
    pending.abort()
    assert _listing(out) == {"index.html": b"same", "old.html": b"old"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["public"]
    with pytest.raises(UnsafePath):
        Pending(out, None).put("../x", b"", "d")


def _topdir(folder: Path) -> bool | None:
    """Whether the folder has ext4's top-of-tree mark (chattr +T); None where the file system keeps no such flags."""
    import fcntl
    import struct

    from generator.write import _FS_IOC_GETFLAGS, _FS_TOPDIR_FL

    descriptor = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        return bool(struct.unpack("i", fcntl.ioctl(descriptor, _FS_IOC_GETFLAGS, b"\0" * 4))[0] & _FS_TOPDIR_FL)
    except OSError:
        return None
    finally:
        os.close(descriptor)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="chattr flags are Linux's")
def test_pending_marks_its_folder_and_top_level_folders_to_spread(tmp_path):
    from generator.cache import digest
    from generator.write import Pending, spread

    probe = tmp_path / "probe"
    probe.mkdir()
    if not spread(probe):
        pytest.skip("this file system keeps no top-of-tree flag")
    assert _topdir(probe)
    out = tmp_path / "public"
    files = {"index.html": b"home", "stories/2026-01-02/a/index.html": b"a", "stories/2026-01-02/b/index.md": b"b",
             "manifests/m1/index.html": b"m"}
    pending = Pending(out, None)
    for path, data in files.items():
        assert pending.put(path, data, digest(data))
    pending.commit({p: digest(d) for p, d in files.items()}, files)
    assert _listing(out) == files  # a folder named like a top-level file is never made
    assert _topdir(out) and _topdir(out / "stories") and _topdir(out / "manifests")
    assert not _topdir(out / "stories" / "2026-01-02") and not _topdir(out / "stories" / "2026-01-02" / "a")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="chattr flags are Linux's")
def test_a_file_system_that_refuses_the_mark_is_written_all_the_same(tmp_path, monkeypatch):
    import fcntl

    from generator.cache import digest
    from generator.write import Pending, spread

    def refuse(*args):
        raise OSError(25, "Inappropriate ioctl for device")

    monkeypatch.setattr(fcntl, "ioctl", refuse)
    assert not spread(tmp_path)
    pending = Pending(tmp_path / "public", None)
    assert pending.put("stories/x/index.html", b"x", digest(b"x"))
    pending.commit({"stories/x/index.html": digest(b"x")}, ["stories/x/index.html"])
    assert _listing(tmp_path / "public") == {"stories/x/index.html": b"x"}
