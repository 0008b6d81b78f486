"""The build engine's guarantees, as a user meets them from the command line: the output folder is its own
(a foreign folder, the site root, its parent, a home folder or / is refused and nothing in it deleted),
`public/` always equals the last finished build (a file edited or deleted there is repaired; a story edited
and undone around a build, or an older .ledgerpress-cache restored, never leaves stale pages), a build
killed at any moment leaves the old site or the new one and no leftovers, and publish deletes only what an
earlier publish wrote. The command runs in this process (click's runner), as a process only where one is
killed or runs as another user."""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from typing import NamedTuple

import pytest
from click.testing import CliRunner

from generator.cli import cli
from tests.conftest import built_cold
from tests.test_publish import endpoint, live_keys, s3  # noqa: F401  (the moto_server fixtures)

REPO = Path(__file__).resolve().parent.parent
STORY = "content/stories/2026-11-21/metro-water-asks-to-raise-bills-6-8-citing-the-cost-of-lead-pipes.md"
STORY_OUT = "stories/2026-11-21/metro-water-asks-to-raise-bills-6-8-citing-the-cost-of-lead-pipes/index.md"
MANIFEST = "content/manifests/2731437468098035842.json"  # one the story cites


def ledgerpress(*args: object, timeout: float = 120, **popen) -> subprocess.CompletedProcess:
    """The command as its own process (to be killed, or run as another user)."""
    return subprocess.run([sys.executable, "-m", "generator", *map(str, args)], cwd=REPO, capture_output=True,
                          text=True, timeout=timeout, **popen)


class Done(NamedTuple):
    returncode: int
    stderr: str


def command(*args: object) -> Done:
    """The command run in this process, as a user runs it (its exit status and what it says)."""
    done = CliRunner().invoke(cli, list(map(str, args)))
    if done.exception is not None and not isinstance(done.exception, SystemExit):
        raise done.exception
    return Done(done.exit_code, done.stderr)


def build(root: Path, *args: object) -> Done:
    return command("build", "--root", root, "--no-search", *args)


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def pending(root: Path) -> list[str]:
    return sorted(p.name for p in root.glob(".*pending*"))


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    """A copy of the demo site, its images written at one width rather than three (encoding them is most of a
    cold build of it, and no guarantee here turns on their number)."""
    root = tmp_path / "site"
    shutil.copytree(REPO / "content", root / "content")
    toml = root / "content" / "site.toml"
    toml.write_text(re.sub(r"^image_widths = .*$", "image_widths = [480]", toml.read_text(), count=1, flags=re.M))
    return root


def cold(root: Path, scratch: Path) -> dict[str, bytes]:
    """The site as it is now, built from scratch (once for each content it had): what public/ must equal."""
    return built_cold(root, scratch)


def mark_story(root: Path) -> None:
    """A word added to a paragraph of the story (its page shows it)."""
    path = root / STORY
    head, body = path.read_text().split("\n---\n", 1)
    at = body.index(" [cites:")
    path.write_text(head + "\n---\n" + body[:at] + " Zzwatermark" + body[at:])


def touch_manifest(root: Path) -> None:
    """A manifest the story cites, edited: the next build must read the story again."""
    path = root / MANIFEST
    data = json.loads(path.read_text())
    data["title"] += " (revised)"
    path.write_text(json.dumps(data, indent=2))


def built_twice_beside(demo: Path, tmp_path: Path) -> Path:
    """The demo built twice (the tree beside public/ then holds links to most of its files), and a folder
    outside the site holding a file of the user's."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "mine.txt").write_text("mine\n")
    assert build(demo).returncode == 0
    mark_story(demo)
    assert build(demo).returncode == 0
    return elsewhere


def foreign_folder(folder: Path) -> dict[str, bytes]:
    files = {".ssh/id_rsa": b"-----BEGIN KEY-----\n", "Documents/notes.txt": b"mine\n", "robots.txt": b""}
    for relative, data in files.items():
        (folder / relative).parent.mkdir(parents=True, exist_ok=True)
        (folder / relative).write_bytes(data)
    return tree(folder)


# --- 1. the output folder is the build's own -------------------------------------------------------------


def test_build_into_a_foreign_folder_is_refused_and_deletes_nothing(demo: Path, tmp_path: Path):
    out = tmp_path / "home-like"
    before = foreign_folder(out)
    done = build(demo, "--out", out)
    assert tree(out) == before
    assert done.returncode != 0 and "Traceback" not in done.stderr


def _dangerous(kind: str, demo: Path, tmp_path: Path) -> tuple[Path, dict[str, str]]:
    env = dict(os.environ)
    if kind == "site root":
        return demo, env
    if kind == "its parent":
        return demo.parent, env
    home = tmp_path / "home"
    foreign_folder(home)
    env["HOME"] = str(home)
    return home, env


@pytest.mark.parametrize("kind", ["site root", "its parent", "home folder"])
def test_build_into_the_site_its_parent_or_a_home_folder_is_refused(demo: Path, tmp_path: Path, kind: str,
                                                                   monkeypatch: pytest.MonkeyPatch):
    out, env = _dangerous(kind, demo, tmp_path)
    monkeypatch.setenv("HOME", env["HOME"])
    (demo / ".git").mkdir()
    (demo / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    before = tree(out)
    done = build(demo, "--out", out)
    assert done.returncode != 0 and tree(out) == before
    assert not pending(out.parent)


def test_build_into_the_file_system_root_is_refused(demo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Run only once a home folder is refused (the engine today would delete /); as root, it runs as nobody,
    who can change nothing in /, so even a regression cannot."""
    home, env = _dangerous("home folder", demo, tmp_path)
    with monkeypatch.context() as patch:
        patch.setenv("HOME", env["HOME"])
        if build(demo, "--out", home).returncode == 0:
            pytest.fail("a home folder is not refused yet: the / case is not run")
    site = Path(tempfile.mkdtemp(prefix="ledgerpress-root-case-"))
    try:
        shutil.copytree(demo / "content", site / "content")
        for path in [site, *site.rglob("*")]:
            path.chmod(0o777 if path.is_dir() else 0o666)
        env["XDG_CACHE_HOME"] = str(site / "cache-home")
        nobody = {"preexec_fn": lambda: (os.setgid(65534), os.setuid(65534))} if os.getuid() == 0 else {}
        try:
            subprocess.run([sys.executable, "-c", "pass"], check=True, **nobody)
        except (PermissionError, subprocess.CalledProcessError):
            pytest.skip(f"nobody cannot run {sys.executable} here (an interpreter under root's home)")
        before = sorted(os.listdir("/"))
        done = ledgerpress("build", "--root", site, "--no-search", "--out", "/", env=env, **nobody)
        assert done.returncode != 0 and sorted(os.listdir("/")) == before
    finally:
        shutil.rmtree(site, ignore_errors=True)


def test_an_output_path_or_its_record_folder_that_is_not_a_folder_is_refused(demo: Path, tmp_path: Path):
    out = demo / "public"
    out.write_text("mine\n")
    done = build(demo)
    assert done.returncode != 0 and "is a file, not a folder" in done.stderr and "Traceback" not in done.stderr
    assert out.read_text() == "mine\n"
    out.unlink()
    assert build(demo).returncode == 0
    own = demo / ".public.ledgerpress"
    shutil.move(own, tmp_path / "own")
    for stand_in in ("file", "link"):
        if stand_in == "file":
            own.write_text("mine\n")
        else:
            own.unlink()
            own.symlink_to(tmp_path / "own", target_is_directory=True)
        mark_story(demo)
        before = tree(demo / "public")
        done = build(demo)
        assert done.returncode != 0 and "is in the way" in done.stderr and "Traceback" not in done.stderr
        assert tree(demo / "public") == before


def test_an_output_folder_that_is_a_mount_point_is_refused_before_anything_is_built(demo: Path,
                                                                                     monkeypatch: pytest.MonkeyPatch):
    """A mount point can neither be exchanged with the tree beside it nor hold links to it: refused at once, with
    what to do instead, rather than after the whole build."""
    from generator.output import folder

    out = (demo / "public").resolve()
    out.mkdir()
    real = os.path.ismount
    monkeypatch.setattr(folder.os.path, "ismount", lambda path: Path(path).resolve() == out or real(path))
    with pytest.raises(folder.OutputRefused, match="is a mount point.*--out .*/public/public"):
        folder.check_target(out, demo)
    monkeypatch.setattr(folder.os.path, "ismount", real)
    folder.check_target(out, demo)


def test_a_disk_that_refuses_a_write_leaves_public_as_it_was(demo: Path, monkeypatch: pytest.MonkeyPatch):
    from generator.output import folder

    assert build(demo).returncode == 0
    before = tree(demo / "public")
    mark_story(demo)

    def full(path: str, data: bytes) -> None:
        raise OSError(28, "No space left on device", path)

    monkeypatch.setattr(folder, "write_file", full)
    done = CliRunner().invoke(cli, ["build", "--root", str(demo), "--no-search"])
    assert done.exit_code == 1 and "No space left on device; public/ left as it was" in done.output, done.output
    assert tree(demo / "public") == before


def test_a_file_of_the_user_s_is_carried_build_after_build_and_nothing_else_appears(demo: Path, tmp_path: Path):
    """Carrying it links it again into the second tree, which from the third build on holds a link to the very
    same file: a rename between two links to one file leaves both names, and the temporary one went live."""
    assert build(demo).returncode == 0
    (demo / "public" / "CNAME").write_text("news.example.org\n")
    for _ in range(4):
        mark_story(demo)
        assert build(demo).returncode == 0
    assert tree(demo / "public") == {**cold(demo, tmp_path), "CNAME": b"news.example.org\n"}


def test_a_file_of_the_user_s_in_a_folder_no_build_changes_is_carried_build_after_build(demo: Path, tmp_path: Path):
    """A build records the times of the second tree's folders that it left alone as they were when that tree
    was last made: a file put into one of them while it was live is still found, by every later build."""
    for _ in range(3):
        mark_story(demo)
        assert build(demo).returncode == 0
    notes = demo / "public" / "about" / "notes.txt"
    notes.write_text("mine\n")
    for _ in range(4):
        mark_story(demo)
        assert build(demo).returncode == 0
        assert notes.read_text() == "mine\n"
    notes.unlink()
    assert tree(demo / "public") == cold(demo, tmp_path)


def test_a_folder_of_the_user_s_with_a_link_in_it_is_carried_link_and_all(demo: Path, tmp_path: Path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "mine.txt").write_text("mine\n")
    assert build(demo).returncode == 0
    (demo / "public" / "extra").mkdir()
    (demo / "public" / "extra" / "photos").symlink_to(elsewhere, target_is_directory=True)
    for _ in range(2):
        mark_story(demo)
        assert build(demo).returncode == 0
        assert os.readlink(demo / "public" / "extra" / "photos") == str(elsewhere)
    assert tree(elsewhere) == {"mine.txt": b"mine\n"}


def test_a_link_of_the_user_s_carried_before_a_page_needs_its_place_takes_no_output_outside(demo: Path,
                                                                                               tmp_path: Path):
    """A link to a folder elsewhere, carried by a build while no output lay under it, is in the tree the next
    build writes into: a page added later at that address is refused, and nothing is written through it."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert build(demo).returncode == 0
    (demo / "public" / "zzz").symlink_to(elsewhere, target_is_directory=True)
    mark_story(demo)
    assert build(demo).returncode == 0  # carried
    (demo / "content" / "pages" / "zzz").mkdir(parents=True, exist_ok=True)
    (demo / "content" / "pages" / "zzz" / "hello.md").write_text("---\ntitle: Hello\ndescription: Hi.\n---\n\nHi.\n")
    for _ in range(2):
        done = build(demo)
        assert done.returncode != 0 and "public/zzz was not written by ledgerpress" in done.stderr, done.stderr
        assert list(elsewhere.iterdir()) == []
    assert os.readlink(demo / "public" / "zzz") == str(elsewhere)


def test_a_file_of_the_user_s_whose_name_is_not_utf8_is_refused_not_a_traceback(demo: Path):
    assert build(demo).returncode == 0
    name = os.fsencode(demo / "public") + b"/caf\xe9.txt"
    with open(name, "wb") as file:
        file.write(b"mine")
    mark_story(demo)
    done = build(demo)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "caf\\xe9.txt was not written by ledgerpress and its name is not UTF-8" in done.stderr
    os.unlink(name)
    assert build(demo).returncode == 0


@pytest.mark.parametrize("added", ["a file", "a file in a folder of the site", "a link in place of a folder"])
def test_what_is_put_into_public_while_a_build_runs_is_carried_or_refused(demo: Path, tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch, added: str):
    """Put there after the build looked at public/ and before it switched: a file is carried into the new tree
    like any other of the user's, a link in place of a folder of the site is refused (it would otherwise be in
    the tree the next build writes into)."""
    from generator.output import folder

    elsewhere = built_twice_beside(demo, tmp_path)
    public, commit = demo / "public", folder.FolderStore.commit
    story_folder = public / STORY_OUT.rpartition("/")[0]

    def meanwhile(store, outputs):
        if added == "a file":
            (public / "extra.txt").write_text("mine\n")
        elif added == "a file in a folder of the site":
            (story_folder / "notes.txt").write_text("mine\n")
        else:
            shutil.rmtree(public / "images")
            (public / "images").symlink_to(elsewhere, target_is_directory=True)
        return commit(store, outputs)

    monkeypatch.setattr(folder.FolderStore, "commit", meanwhile)
    touch_manifest(demo)
    done = CliRunner().invoke(cli, ["build", "--root", str(demo), "--no-search"])
    monkeypatch.undo()
    if added == "a link in place of a folder":
        assert done.exit_code == 1 and "was not written by ledgerpress" in done.output
        assert (public / "images").is_symlink() and tree(elsewhere) == {"mine.txt": b"mine\n"}
        again = build(demo)
        assert again.returncode == 1 and "was not written by ledgerpress" in again.stderr
        assert tree(elsewhere) == {"mine.txt": b"mine\n"}
        return
    assert done.exit_code == 0, done.output
    kept = public / "extra.txt" if added == "a file" else story_folder / "notes.txt"
    assert kept.read_text() == "mine\n"
    mark_story(demo)
    assert build(demo).returncode == 0 and kept.read_text() == "mine\n"
    assert {k: v for k, v in tree(public).items() if k != kept.relative_to(public).as_posix()} == cold(demo, tmp_path)


# --- 2. public/ is never stale ------------------------------------------------------------------------------


def test_a_file_edited_or_deleted_in_public_is_repaired(demo: Path, tmp_path: Path):
    assert build(demo).returncode == 0
    public = demo / "public"
    (public / "index.html").write_text("defaced")
    (public / STORY_OUT).unlink()
    assert build(demo).returncode == 0
    assert tree(public) == cold(demo, tmp_path)


def _stand_in(public: Path, shape: str, elsewhere: Path) -> None:
    """Something of the user's put where the build puts its own files, in one of three shapes."""
    if shape == "a link to a folder elsewhere in place of a folder":
        shutil.rmtree(public / "images")
        (public / "images").symlink_to(elsewhere, target_is_directory=True)
    elif shape == "a file in place of a folder":
        shutil.rmtree(public / "about")
        (public / "about").write_text("mine\n")
    else:  # a folder in place of a file
        (public / "robots.txt").unlink()
        (public / "robots.txt").mkdir()
        (public / "robots.txt" / "notes.txt").write_text("mine\n")


def test_the_early_look_at_public_counts_only_for_the_record_and_tree_the_build_finds(demo: Path):
    """A build compares the live files with the record in a forked process while its engine loads, before it
    holds the output's lock: what that look found counts only for the very record file and live tree the
    build then reads; for any other, the build looks again itself."""
    from generator.output.look import LiveLook
    from generator.output.record import load_record, save_record

    assert build(demo).returncode == 0
    public = demo / "public"
    (public / "index.html").write_text("defaced")
    tree_now = os.stat(public).st_ino
    with LiveLook(public) as look:
        assert look.changed(load_record(public), tree_now) == {"index.html"}
    before = load_record(public)
    save_record(public, before)  # the same content, another file: a build wrote it meanwhile
    with LiveLook(public) as look:
        assert look.changed(before, tree_now) is None
    with LiveLook(public) as look:
        assert look.changed(load_record(public), tree_now + 1) is None
    with LiveLook(public) as look:
        assert look.changed(load_record(public), tree_now) == {"index.html"}
    assert build(demo).returncode == 0 and (public / "index.html").read_text() != "defaced"


@pytest.mark.parametrize("shape", ["a link to a folder elsewhere in place of a folder", "a file in place of a folder",
                                   "a folder in place of a file"])
def test_a_file_or_link_of_the_user_where_the_build_writes_is_refused_not_replaced(demo: Path, tmp_path: Path,
                                                                                  shape: str):
    """The build would have to replace it (or write through the link, outside the output folder): it stops and
    says so, whichever tree the stand-in is in, and leaves it and the folder a link points to as they were."""
    elsewhere = built_twice_beside(demo, tmp_path)
    public = demo / "public"
    _stand_in(public, shape, elsewhere)
    before, outside = tree(public), tree(elsewhere)
    for _ in range(2):
        done = build(demo)
        assert done.returncode != 0 and "Traceback" not in done.stderr, done.stderr
        assert "was not written by ledgerpress" in done.stderr
        assert tree(public) == before and tree(elsewhere) == outside


def test_the_first_build_leaves_a_second_tree_of_links_which_the_next_build_brings_up_to_date(demo: Path,
                                                                                               tmp_path: Path):
    """The first build into a folder also makes the tree beside it, of links to every file it published, so
    the edit after it writes only what changed; that edit's output is a cold build's."""
    assert build(demo).returncode == 0
    public, second = demo / "public", demo / ".public.ledgerpress" / "next"
    files = [path.relative_to(public) for path in public.rglob("*") if path.is_file()]
    assert files and sorted(files) == sorted(path.relative_to(second) for path in second.rglob("*") if path.is_file())
    assert all((public / path).stat().st_ino == (second / path).stat().st_ino for path in files)
    mark_story(demo)
    assert build(demo).returncode == 0
    assert tree(public) == cold(demo, tmp_path) and not pending(demo)


def test_a_file_edited_in_place_is_repaired_in_the_tree_linked_to_it_too(demo: Path, tmp_path: Path):
    """After a second build, the tree beside public/ holds hard links to most of its files: writing into one
    of them in place changes both, and the next build must not take the other tree's copy as intact."""
    assert build(demo).returncode == 0
    mark_story(demo)
    assert build(demo).returncode == 0
    public = demo / "public"
    with open(public / "index.html", "a") as page:  # in place: the same inode
        page.write("defaced")
    assert build(demo).returncode == 0
    assert tree(public) == cold(demo, tmp_path)


def test_a_page_edited_in_place_then_no_longer_made_is_deleted_from_both_trees(demo: Path, tmp_path: Path):
    """The edit in place changes the other tree's file too; when the site stops making that page, the next
    builds leave it out of public/, as a cold build does (it was neither kept as the user's nor left behind)."""
    assert build(demo).returncode == 0
    mark_story(demo)
    assert build(demo).returncode == 0
    public = demo / "public"
    with open(public / "about" / "index.html", "a") as page:  # in place: the same inode
        page.write("defaced")
    (demo / "content" / "pages" / "about.md").unlink()
    for _ in range(3):
        assert build(demo).returncode == 0
        assert tree(public) == cold(demo, tmp_path)
        mark_story(demo)


def test_a_story_edited_and_undone_around_a_build_never_leaves_stale_pages(demo: Path, tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch):
    """The story changes after the build has looked at the site (its scan) and before it reads the story, and
    changes back after: the next build must not take the old look for what it rendered."""
    import generator.engine.destinations

    original = (demo / STORY).read_text()
    assert build(demo).returncode == 0
    touch_manifest(demo)  # so that this build reads the story again
    looked = generator.engine.destinations.scan

    def then_edited(*args):
        found = looked(*args)
        mark_story(demo)
        return found

    with monkeypatch.context() as patch:
        patch.setattr(generator.engine.destinations, "scan", then_edited)
        assert build(demo).returncode == 0
    (demo / STORY).write_text(original)
    assert build(demo).returncode == 0
    assert tree(demo / "public") == cold(demo, tmp_path)


def test_a_story_edited_then_undone_half_a_second_into_a_build_leaves_no_stale_page(demo: Path, tmp_path: Path):
    """The red team's own sequence: edit, start a build, undo 0.5 s later (wherever the build is by then),
    build again (and again)."""
    original = (demo / STORY).read_text()
    assert build(demo).returncode == 0
    touch_manifest(demo)
    mark_story(demo)
    undo = threading.Timer(0.5, (demo / STORY).write_text, args=(original,))
    undo.start()
    build(demo)
    undo.join()
    for _ in range(2):
        assert build(demo).returncode == 0
    assert tree(demo / "public") == cold(demo, tmp_path)


def test_an_older_build_cache_restored_does_not_give_stale_output(demo: Path, tmp_path: Path):
    original = (demo / STORY).read_text()
    assert build(demo).returncode == 0
    shutil.copytree(demo / ".ledgerpress-cache", tmp_path / "older-cache")
    mark_story(demo)
    assert build(demo).returncode == 0 and b"Zzwatermark" in (demo / "public" / STORY_OUT).read_bytes()
    (demo / STORY).write_text(original)  # the story as it was, and the cache of when it was so
    shutil.rmtree(demo / ".ledgerpress-cache")
    shutil.copytree(tmp_path / "older-cache", demo / ".ledgerpress-cache")
    assert build(demo).returncode == 0
    assert tree(demo / "public") == cold(demo, tmp_path)


# --- 3. a killed build leaves the old site or the new one ------------------------------------------------


def _retitle(root: Path, title: str) -> None:
    toml = root / "content/site.toml"
    lines = toml.read_text().splitlines()
    toml.write_text("\n".join(f'title = "{title}"' if line.startswith("title = ") else line for line in lines) + "\n")


def _killed(root: Path, sign: int, delay: float | None) -> None:
    """Start a build and kill its process group: after `delay` seconds, or (None) the moment public/ starts
    to change (the commit: every page changes, and 404.html is the first in path order)."""
    watched = root / "public" / "404.html"
    before = watched.stat().st_ino
    running = subprocess.Popen([sys.executable, "-m", "generator", "build", "--root", str(root), "--no-search"],
                               cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + (delay if delay is not None else 60)
    while time.monotonic() < deadline and running.poll() is None:
        if delay is None:
            try:
                if watched.stat().st_ino != before:
                    break
            except OSError:
                break
        else:
            time.sleep(0.005)
    try:
        os.killpg(running.pid, sign)
    except ProcessLookupError:
        pass
    running.wait(60)


def test_a_build_killed_at_any_moment_leaves_the_old_site_or_the_new_one(demo: Path, tmp_path: Path):
    titles = ["The Calder Ledger", "The Calder Ledger, Evening Edition"]
    sites = {}
    for title in titles:
        _retitle(demo, title)
        sites[title] = cold(demo, tmp_path)
    _retitle(demo, titles[0])
    assert build(demo).returncode == 0
    shown = titles[0]
    moments = [(signal.SIGKILL, None), (signal.SIGTERM, None),
               *((signal.SIGKILL, random.Random(seed).uniform(0.2, 1.5)) for seed in range(3))]
    for sign, delay in moments:
        other = titles[1] if shown == titles[0] else titles[0]
        _retitle(demo, other)
        _killed(demo, sign, delay)
        public = tree(demo / "public")
        assert public in (sites[shown], sites[other]), f"a mixed site after {sign!r} at {delay}"
        assert build(demo).returncode == 0  # the next build finishes the job, and leaves nothing behind
        assert tree(demo / "public") == sites[other] and not pending(demo), pending(demo)
        shown = other


def test_what_a_stopped_build_wrote_into_the_second_tree_is_not_taken_for_what_the_record_holds(demo: Path):
    """A build stopped after it put a file into the second tree (its lock gone with its process) leaves the
    next build nothing to trust there: that build writes every page as it should be."""
    from generator.output.folder import FolderStore

    assert build(demo).returncode == 0
    public = (demo / "public").resolve()
    good = tree(public)
    store = FolderStore(public, demo.resolve())
    store.put("index.html", b"<p>half a build</p>")
    store.abort()
    assert build(demo, "--force").returncode == 0
    assert tree(public) == good


def test_the_record_keeps_the_second_tree_as_its_differences_and_reads_back_both_trees(tmp_path: Path):
    """The record holds the first tree whole and the other as what differs from it (files changed, added and
    gone): it reads back as the very trees it was given."""
    from generator.output.record import RECORD, Record, load_record, own_folder, save_record

    public = tmp_path / "public"
    own_folder(public).mkdir()
    first = {f"page-{n}.html": [f"{n:032x}", n, n * 10, n + 100] for n in range(50)}
    second = {**{path: list(entry) for path, entry in first.items() if path != "page-7.html"},
              "page-3.html": ["f" * 32, 3, 31, 999], "new.html": ["e" * 32, 1, 2, 3]}
    save_record(public, Record("build-key", {"11": first, "22": second}, {"11": {"": 5}, "22": {"": 6}}))
    saved = json.loads((own_folder(public) / RECORD).read_text())
    assert saved["trees"]["11"] == first
    assert saved["trees"]["22"] == ["11", {"page-3.html": ["f" * 32, 3, 31, 999], "new.html": ["e" * 32, 1, 2, 3]},
                                    ["page-7.html"]]
    record = load_record(public)
    assert record.build == "build-key" and record.trees == {"11": first, "22": second}
    assert record.dirs == {"11": {"": 5}, "22": {"": 6}}


def test_a_record_written_with_every_tree_whole_is_read_by_the_next_build(demo: Path, tmp_path: Path):
    """An output folder whose record an earlier version wrote (every tree whole, format 1) is the build's
    own still: the next build reads it, refuses nothing and brings public/ up to date."""
    from generator.output.record import RECORD, load_record, own_folder

    assert build(demo).returncode == 0
    public = demo / "public"
    record = load_record(public)
    (own_folder(public) / RECORD).write_text(json.dumps({"format": "ledgerpress-output-1", "build": record.build,
                                                         "trees": record.trees, "dirs": record.dirs}))
    (public / "mine.txt").write_text("mine\n")
    mark_story(demo)
    done = build(demo)
    assert done.returncode == 0, done.stderr
    assert (public / "mine.txt").read_text() == "mine\n"
    assert {path: data for path, data in tree(public).items() if path != "mine.txt"} == cold(demo, tmp_path)


def test_where_two_folders_cannot_be_exchanged_build_and_publish_switch_them_by_renames(
        demo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Without renameat2's exchange (another system, another file system), a build and a publish put the new
    tree in place by renames through a folder aside, and leave nothing behind."""
    from generator.output import switch
    from generator.publish import MANIFEST as MANIFEST_FILE

    monkeypatch.setattr(switch, "exchange", lambda first, second: False)
    dest = tmp_path / "www"
    for _ in range(2):  # the first build and publish rename their new folder into place; the second switch
        mark_story(demo)
        for args in (["build", "--root", demo, "--no-search"], ["publish", dest, "--root", demo]):
            done = CliRunner().invoke(cli, list(map(str, args)))
            assert done.exit_code == 0, done.output
        assert tree(demo / "public") == cold(demo, tmp_path)
        published = tree(dest)
        assert published.pop(MANIFEST_FILE) and published == tree(demo / "public")
    beside = [*tmp_path.iterdir(), *demo.iterdir(), *(demo / ".public.ledgerpress").iterdir()]
    assert not [path.name for path in beside if "previous" in path.name or "publish-" in path.name]


def test_a_switch_by_renames_stopped_between_them_loses_neither_the_site_nor_the_user_s_files(demo: Path,
                                                                                                tmp_path: Path):
    """Killed after it set the live tree aside and before it put the new one in its place, a switch by renames
    leaves no public/: the next build puts the old tree back first, so that the user's files in it are not
    deleted with the folder aside, and then builds as after any other stop."""
    assert build(demo).returncode == 0
    (demo / "public" / "mine.txt").write_text("mine\n")
    mark_story(demo)
    assert build(demo).returncode == 0
    os.rename(demo / "public", demo / ".public.ledgerpress" / "previous")  # where the kill left it
    mark_story(demo)
    assert build(demo).returncode == 0
    assert tree(demo / "public") == {**cold(demo, tmp_path), "mine.txt": b"mine\n"}
    mark_story(demo)
    assert build(demo).returncode == 0 and (demo / "public" / "mine.txt").read_text() == "mine\n"


# --- publish deletes only what an earlier publish wrote ---------------------------------------------------


def test_publish_to_a_folder_holding_foreign_files_deletes_none_of_them(demo: Path, tmp_path: Path):
    assert build(demo).returncode == 0
    dest = tmp_path / "www"
    before = foreign_folder(dest)  # robots.txt: one name in common with the site
    command("publish", dest, "--root", demo)
    after = tree(dest)
    assert {path: data for path, data in after.items() if path in before and path != "robots.txt"} == \
        {path: data for path, data in before.items() if path != "robots.txt"}


@pytest.mark.parametrize("prefix", ["news", ""])
def test_publish_to_s3_deletes_no_key_it_did_not_write(demo: Path, s3, endpoint: str, prefix: str):  # noqa: F811
    assert build(demo).returncode == 0
    under = f"{prefix}/" if prefix else ""
    foreign = [f"{under}foreign.txt", f"{under}backups/2025.tar", f"{under}robots.txt"]
    for key in [*foreign, "elsewhere/keep.txt"]:
        s3.put_object(Bucket=s3.bucket, Key=key, Body=b"not the site's")
    env = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_DEFAULT_REGION": "us-east-1"}
    with pytest.MonkeyPatch.context() as patch:
        for name, value in env.items():
            patch.setenv(name, value)
        command("publish", f"s3://{s3.bucket}/{prefix}", "--root", demo, "--endpoint-url", endpoint)
    keys = live_keys(s3)
    assert {f"{under}foreign.txt", f"{under}backups/2025.tar", "elsewhere/keep.txt"} <= keys


def test_on_a_file_system_without_hard_links_a_link_of_the_user_s_is_carried_as_a_link(tmp_path: Path, monkeypatch):
    """Where os.link fails (EPERM: no hard links), the copy made instead keeps a link as a link: it never
    copies into public/ what the link points to outside it."""
    import errno

    from generator.output.whole_files import link_or_copy

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "secret.txt").write_text("not for the site\n")
    (tmp_path / "folder-link").symlink_to(elsewhere, target_is_directory=True)
    (tmp_path / "file-link").symlink_to(elsewhere / "secret.txt")

    def no_hard_links(*args, **kwargs):
        raise OSError(errno.EPERM, "hard links not supported")

    monkeypatch.setattr(os, "link", no_hard_links)
    for name in ("folder-link", "file-link"):
        link_or_copy(tmp_path / name, tmp_path / f"{name}-carried")
        assert os.readlink(tmp_path / f"{name}-carried") == os.readlink(tmp_path / name)


def test_link_or_copy_puts_the_link_in_place_of_a_file_there(tmp_path: Path):
    """A file at the path is replaced by the link, not written through: its other names keep their bytes."""
    from generator.output.whole_files import link_or_copy

    (tmp_path / "source").write_text("new\n")
    (tmp_path / "old").write_text("old\n")
    os.link(tmp_path / "old", tmp_path / "path")
    link_or_copy(tmp_path / "source", tmp_path / "path")
    assert os.stat(tmp_path / "path").st_ino == os.stat(tmp_path / "source").st_ino
    assert (tmp_path / "old").read_text() == "old\n"
    link_or_copy(tmp_path / "source", tmp_path / "new")
    assert (tmp_path / "new").read_text() == "new\n"


def test_a_page_is_written_new_only_where_nothing_is_and_never_through_a_link(tmp_path: Path):
    """The second tree holds hard links to the live site's files: a page made again at such a path is put in
    its place by a rename, never written into the file the live site shares (nor through a symbolic link)."""
    from generator.output.whole_files import write_new

    live = tmp_path / "live.html"
    live.write_bytes(b"live page")
    os.link(live, tmp_path / "linked.html")
    (tmp_path / "symlinked.html").symlink_to(live)
    for name in ("linked.html", "symlinked.html"):
        assert not write_new(str(tmp_path / name), b"new page")
    assert live.read_bytes() == b"live page"
    assert write_new(str(tmp_path / "new.html"), b"new page")
    assert (tmp_path / "new.html").read_bytes() == b"new page"


def test_a_page_made_again_in_the_second_tree_leaves_the_live_file_it_was_linked_to_as_it_was(demo: Path):
    """Through the store: a build leaves the tree beside public/ linked to public/'s files; the next build,
    making one of them again, must not change the live file while it runs."""
    from generator.output.folder import FolderStore

    assert build(demo).returncode == 0
    public = demo / "public"
    before = (public / "index.html").read_bytes()
    store = FolderStore(public, demo.resolve())
    try:
        assert os.path.samefile(public / "index.html", store.next / "index.html")  # linked, as the test needs
        store.put("index.html", b"made again")
        assert (public / "index.html").read_bytes() == before
        assert (store.next / "index.html").read_bytes() == b"made again"
    finally:
        store.abort()


def _linked_trees(public: Path) -> bool:
    """The second tree holds each file of public/ by the same inode, and nothing else."""
    second = public.parent / f".{public.name}.ledgerpress" / "next"
    files = sorted(p.relative_to(public) for p in public.rglob("*") if p.is_file())
    return files == sorted(p.relative_to(second) for p in second.rglob("*") if p.is_file()) and all(
        os.path.samefile(public / name, second / name) for name in files)


def test_a_first_build_leaves_a_second_tree_of_links_to_every_file_and_no_mirror(demo: Path):
    assert build(demo).returncode == 0
    own = demo / ".public.ledgerpress"
    assert _linked_trees(demo / "public")
    assert not (own / "mirror").exists()


def test_a_first_build_stopped_halfway_leaves_the_next_one_to_link_the_whole_tree(demo: Path):
    """A first build's links into the folder that becomes the second tree, left by a build stopped before its
    commit, are not taken for that tree: the next build, again a first one, makes it whole."""
    from generator.output.folder import FolderStore

    public = (demo / "public").resolve()
    store = FolderStore(public, demo.resolve())
    store.put("index.html", b"<p>half a build</p>")
    store.abort()
    assert (demo / ".public.ledgerpress" / "mirror" / "index.html").exists()
    assert build(demo).returncode == 0
    assert b"half a build" not in (public / "index.html").read_bytes()
    assert _linked_trees(public) and not (demo / ".public.ledgerpress" / "mirror").exists()


def test_a_build_refused_while_the_folder_is_locked_says_whether_a_build_or_a_publish_holds_it(demo: Path):
    from generator.output.lock import OutputLock

    assert build(demo).returncode == 0
    for exclusive, said in ((True, "is being written by another build"), (False, "is being published")):
        lock = OutputLock(demo / ".public.ledgerpress" / "lock")
        lock.take(exclusive=exclusive, wait=False, what="held by the test")
        try:
            mark_story(demo)
            done = build(demo)
            assert done.returncode == 1 and said in done.stderr and "Traceback" not in done.stderr, done.stderr
        finally:
            lock.release()
    assert build(demo).returncode == 0
