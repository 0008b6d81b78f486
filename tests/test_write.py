"""Only the writer touches the output folder, and a failed write leaves the old one exactly as it was."""

from __future__ import annotations

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
