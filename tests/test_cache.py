"""The build cache: an unchanged site is not rebuilt, unchanged files are not rewritten, a damaged cache
is ignored, and whatever sequence of edits comes, the output equals a cold build of the same input."""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from generator.cli import cli
from generator.content.layout import CACHE_DIR, file_digest
from generator.engine.state import STATE_FILE
from generator.output.whole_files import write_whole
from generator.site import search
from tests.conftest import MANIFEST_A, STORY, STORY_PATH


def build(root: Path, *extra: str) -> str:
    """A build as a user runs it, without search unless `--search` is among `extra`."""
    options = [option for option in extra if option != "--search"]
    if "--search" not in extra:
        options.append("--no-search")
    result = CliRunner().invoke(cli, ["build", "--root", str(root), *options])
    assert result.exit_code == 0, result.output
    return result.stderr


def listing(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def stamps(root: Path) -> dict[str, int]:
    return {p.relative_to(root).as_posix(): p.stat().st_mtime_ns for p in root.rglob("*") if p.is_file()}


def test_unchanged_site_is_not_rebuilt(site: Path):
    assert "built 1 story" in build(site)
    before = stamps(site / "public")
    assert "up to date: 1 story" in build(site)
    (site / STORY_PATH).touch()  # a new stamp, the same bytes
    assert "up to date" in build(site)
    assert stamps(site / "public") == before


def test_a_dangling_link_among_the_inputs_does_not_keep_the_site_from_being_up_to_date(site: Path):
    """An input no build reads (a link to nothing in templates/) is recorded as such, so the build after the one
    that saw it has nothing to do; the link made whole is a change."""
    (site / "templates").mkdir()
    (site / "templates" / "gone.html").symlink_to(site / "nowhere.html")
    assert "built 1 story" in build(site)
    assert "up to date" in build(site)
    (site / "nowhere.html").write_text("<p>here</p>\n")
    assert "up to date" not in build(site)


@pytest.fixture
def hashed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The input files the scan of a build reads for their digest from now on."""
    from generator.engine import state

    read: list[str] = []
    digest = state._digest
    monkeypatch.setattr(state, "_digest", lambda path, size: read.append(path) or digest(path, size))
    return read


def test_files_touched_are_read_once_not_by_every_build_after(site: Path, hashed: list[str]):
    """After a checkout or a copy gives every file a new time (the same bytes), the build that finds the site
    up to date keeps the new stamps: the next one trusts them instead of reading every file again."""
    build(site)
    hour_ago = os.stat(site / STORY_PATH).st_mtime - 3600
    for path in (site / "content").rglob("*"):
        os.utime(path, (hour_ago, hour_ago))
    hashed.clear()
    assert "up to date" in build(site)
    assert str((site / STORY_PATH).resolve()) in hashed
    hashed.clear()
    assert "up to date" in build(site)
    assert site_files(hashed, site) == []


def site_files(paths: list[str], site: Path) -> list[str]:
    """The site's own files among these: a file of the generator saved a moment before the test (by whoever
    works on it) is rightly read again by the racy rule, and says nothing about the site's."""
    return [path for path in paths if Path(path).resolve().is_relative_to(site.resolve())]


def test_a_file_touched_just_before_a_build_is_read_again_only_until_its_time_is_safely_past(
        site: Path, hashed: list[str]):
    """A file whose time is within the clock's resolution of a scan may still change unseen, so the next
    scan reads it again (git's racy rule); once a scan starts well after it, the stamp is trusted."""
    from generator.engine.state import RACY_NS

    build(site)
    os.utime(site / STORY_PATH)  # now: up to date, but too recent to trust for a while
    assert "up to date" in build(site)
    time.sleep(RACY_NS / 1e9 + 0.1)
    assert "up to date" in build(site)  # (reads the story again if the last scan was within the rule's time)
    hashed.clear()
    assert "up to date" in build(site)
    assert site_files(hashed, site) == []


def test_the_root_named_another_way_is_the_same_site(site: Path, monkeypatch: pytest.MonkeyPatch):
    """`--root .` from the site's folder and the site's full path share one cache: still up to date."""
    build(site)
    monkeypatch.chdir(site)
    assert "up to date" in build(Path("."))
    assert "up to date" in build(site.parent / site.name / ".." / site.name)


def test_an_edit_rewrites_only_the_files_it_changes(site: Path):
    build(site)
    before = stamps(site / "public")
    story = site / STORY_PATH
    story.write_text(story.read_text().replace("When construction starts.", "When the digging starts."))
    assert "(3 written, " in build(site)
    after = stamps(site / "public")
    changed = sorted(path for path in after if after[path] != before.get(path))
    assert changed == sorted(f"stories/2026-11-21/council-funds-the-quay-street-busway/index.{s}"
                             for s in ("html", "json", "md"))


def test_a_story_edited_while_the_build_runs_is_built_again(site: Path, monkeypatch: pytest.MonkeyPatch):
    """The state records each input as it was before the build read it: an edit saved during a build is
    not taken for built."""
    import generator.engine.pipeline

    story = site / STORY_PATH
    real = generator.engine.pipeline.build_site

    def edited_midway(*args, **kwargs):
        result = real(*args, **kwargs)
        story.write_text(story.read_text().replace("When construction starts.", "When the digging starts."))
        return result

    monkeypatch.setattr(generator.engine.pipeline, "build_site", edited_midway)
    build(site)
    monkeypatch.undo()
    assert "up to date" not in build(site)
    assert "When the digging starts." in (site / "public/stories/2026-11-21/council-funds-the-quay-street-busway/index.md").read_text()


def test_a_build_records_each_input_as_a_scan_finds_it(site: Path):
    """The state a build records is what a scan of every input finds (drafts included)."""
    from generator.engine.state import load_state, scan

    draft = site / "content/stories/2026-11-22/a-draft.md"
    draft.parent.mkdir(parents=True)
    draft.write_text(STORY.replace("trust: confirmed", "trust: confirmed\ndraft: true"))
    build(site)
    recorded = load_state(site).inputs
    assert {path: stamp[3] for path, stamp in recorded.items()} == {
        path: stamp[3] for path, stamp in scan(site.resolve(), None)[1].items()}
    assert str(draft.resolve()) in recorded and str((site / STORY_PATH).resolve()) in recorded


def test_a_rescan_of_the_files_a_watcher_reported_finds_what_a_whole_scan_finds(site: Path):
    """rescan() reads again only the files named, and agrees with scan(); a file it cannot place (a new one)
    leaves the work to a whole scan."""
    from generator.engine.state import State, rescan, scan

    root = site.resolve()
    before = State("", *scan(root, None))
    story, manifest = root / STORY_PATH, next((root / "content/manifests").iterdir())
    story.write_text(story.read_text().replace("Quay Street", "Quay Road"))
    manifest.unlink()
    found = rescan(before, {str(story), str(manifest)})
    assert found is not None
    assert {path: stamp[3] for path, stamp in found[1].items()} == {
        path: stamp[3] for path, stamp in scan(root, None)[1].items()}
    assert str(manifest) not in found[1] and found[1][str(story)] != before.inputs[str(story)]
    added = root / "content/stories/2026-11-21/another.md"
    added.write_text(story.read_text())
    assert rescan(before, {str(added)}) is None
    story.unlink()
    story.mkdir()
    assert rescan(before, {str(story)}) is None


def test_a_story_deleted_during_a_first_build_is_not_recorded_as_built(site: Path, monkeypatch: pytest.MonkeyPatch):
    """A story the scan saw but the first build never read (deleted meanwhile) is left out of the state: put
    back, even with the same stat, it is built."""
    import generator.engine.pipeline

    story = site / STORY_PATH
    text, stat = story.read_text(), story.stat()
    real = generator.engine.pipeline.build_site

    def deleted_first(*args, **kwargs):
        story.unlink()
        return real(*args, **kwargs)

    monkeypatch.setattr(generator.engine.pipeline, "build_site", deleted_first)
    assert "built 0 stories" in build(site)
    monkeypatch.undo()
    story.write_text(text)
    os.utime(story, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert "built 1 story" in build(site)


def test_the_libraries_the_generator_runs_on_are_part_of_the_key(site: Path, monkeypatch: pytest.MonkeyPatch):
    """Jinja, markdown-it-py, pydantic, Pillow... shape the output: each required library's version is in the
    key (read from its installed metadata), so a build after an upgrade makes everything again."""
    import generator.engine.state as state

    found = state.libraries()
    assert "jinja2==" in found and "markdown_it_py==" in found and "pydantic==" in found and "pillow==" in found
    build(site)
    assert "up to date" in build(site)
    monkeypatch.setattr(state, "libraries", lambda: found.replace("jinja2==", "jinja2==0.0.0+"))
    assert "built 1 story" in build(site) and "(0 written, " in build(site, "--force")


def test_options_are_part_of_the_key(site: Path):
    build(site)
    assert "built" in build(site, "--base-url", "https://other.example.org")
    assert "https://other.example.org/" in (site / "public/index.html").read_text()


@pytest.mark.parametrize("damage", [b"not json", b'{"format": "ledgerpress-build-state-3"}', b"[]",
                                    b'{"format": "other", "key": "x"}', b"\xff\xfe"])
def test_a_damaged_or_foreign_cache_is_ignored(site: Path, damage: bytes):
    build(site)
    expected = listing(site / "public")
    (site / CACHE_DIR / STATE_FILE).write_bytes(damage)
    (site / "public" / "index.html").write_text("tampered")
    assert "built 1 story" in build(site)
    assert listing(site / "public") == expected


def test_a_cache_that_cannot_be_saved_is_a_warning_and_the_site_is_built(site: Path):
    """A file in the way of .ledgerpress-cache/ (or a full disk): the site is built and committed all the same,
    and each build reads everything again until the cache can be saved."""
    build(site)
    shutil.rmtree(site / CACHE_DIR)
    (site / CACHE_DIR).write_text("mine\n")
    _edit(site, random.Random(0), 1, "describe")
    said = build(site)
    assert "warning: the build cache could not be saved" in said and "built 1 story" in said
    cold = listing(site / "public")
    assert "Step b:" in cold["stories.json"].decode()
    assert "warning: the build cache could not be saved" in build(site)
    (site / CACHE_DIR).unlink()
    build(site)
    assert "up to date" in build(site) and listing(site / "public") == cold


def test_a_manifest_a_rule_faults_is_reported_by_every_check_and_so_is_a_second_file_with_its_id(site: Path):
    """LP101 and LP102 are rules, not reading: a check that finds the file's bytes unchanged must run them again
    (the memo keeps it as read, not as passed), and a file whose id another file has is checked too."""
    manifests = site / "content" / "manifests"
    repeated = MANIFEST_A.replace("1000000000000000001", "other-id").replace("2000000000000000012",
                                                                             "2000000000000000011")
    (manifests / "zz-repeated.json").write_text(repeated, encoding="utf-8")
    (manifests / "zz-copy.json").write_text(MANIFEST_A, encoding="utf-8")
    for _ in range(2):
        result = CliRunner().invoke(cli, ["check", "--root", str(site)])
        assert result.exit_code == 1, result.output
        codes = sorted(re.findall(r"^content/manifests/([\w-]+)\.json:\d+:\d+: (LP10\d)", result.stdout, re.M))
        assert codes == [("zz-copy", "LP101"), ("zz-repeated", "LP101"), ("zz-repeated", "LP102")]


def test_a_file_written_whole_leaves_neither_half_a_file_nor_its_temporary_one(tmp_path: Path):
    (tmp_path / "state.json").write_bytes(b"old")
    write_whole(tmp_path / "state.json", b"new")
    (tmp_path / "memo").mkdir()  # a rename onto a folder fails after the temporary file is written
    with pytest.raises(IsADirectoryError):
        write_whole(tmp_path / "memo", b"new")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["memo", "state.json"]
    assert (tmp_path / "state.json").read_bytes() == b"new"


VOCABULARY = ("harbour tram council budget vote street lane shelter ridership delay crew trench survey "
              "contract traffic signal corridor shop parking design hearing plan timber bridge river").split()


KINDS = ["reword", "words", "describe", "updated", "retime", "touch", "draft", "add", "add", "remove", "manifest",
         "claim", "template", "list-template", "entry-template", "config", "page"]


def _tag(step: int) -> str:
    """A step in letters: a number in a title, description or paragraph is a figure its claims must state."""
    return "".join(chr(ord("a") + int(digit)) for digit in str(step))


# Random words are no reporting: what the checks of a sentence's meaning say of them (warnings here) is no
# concern of these tests, which hold an edit's output to a cold build's.
LENIENT = "\n[checks]\n" + "".join(f'{code} = "warning"\n' for code in ("LP032", "LP033", "LP034", "LP035", "LP036"))


def _edit(root: Path, rng: random.Random, step: int, kind: str | None = None) -> None:
    """One random edit of the kinds an editor makes."""
    toml = root / "content/site.toml"
    if "[checks]" not in toml.read_text():
        toml.write_text(toml.read_text() + LENIENT)
    stories = sorted((root / "content/stories").glob("*/*.md"))
    kind = kind or rng.choice(KINDS)
    path = rng.choice(stories)
    text = path.read_text()
    if kind == "reword":
        path.write_text(text.replace("Supporters", f"Backers {_tag(step)}", 1).replace("Backers", "Allies", 1))
    elif kind == "words":  # moves its distinctive words, and so maybe other stories' related lists
        words = " ".join(rng.choice(VOCABULARY) for _ in range(30))
        path.write_text(text.rstrip("\n") + f"\n\nRidership on Quay Street buses rose: more on the {words}. "
                        "[cites: 1000000000000000002]\n")
    elif kind == "describe":  # shown on list pages, feeds and stories.json
        path.write_text(text.replace('description: "', f'description: "Step {_tag(step)}: ', 1))
    elif kind == "updated":
        path.write_text(text.replace("published:", f"updated: 2026-11-{26 + step % 3}T08:00:00Z\npublished:", 1)
                        if "updated:" not in text else text.replace("updated: 2026-11-2", "updated: 2026-11-1", 1))
    elif kind == "retime":  # another time the same day: the same story, now elsewhere in the order of time
        path.write_text(re.sub(r"(published: \d{4}-\d\d-\d\dT)\d\d:\d\d", lambda m: f"{m[1]}{step % 10:02d}:{step % 60:02d}",
                               text, count=1))
    elif kind == "touch":
        path.write_text(text)
    elif kind == "draft" and path != stories[0]:  # in and out of the built site, as drafts are
        path.write_text(text.replace("draft: true\n", "") if "draft: true" in text
                        else text.replace("published:", "draft: true\npublished:", 1))
    elif kind == "add":
        add_story(root, rng, step)
    elif kind == "remove" and len(stories) > 1:
        rng.choice(stories[1:]).unlink()
    elif kind == "manifest":
        path = root / "content/manifests/1000000000000000002.json"
        path.write_text(path.read_text().replace("Transit ridership report", f"Transit ridership report {step}"))
    elif kind == "claim":  # the evidence under a cited passage and the manifest page change
        path = root / "content/manifests/1000000000000000001.json"
        data = json.loads(path.read_text())
        data["claims"][0]["text"] += f" Restated {step}."
        path.write_text(json.dumps(data))
    elif kind == "template":
        templates = root / "templates"
        templates.mkdir(exist_ok=True)
        (templates / "story.md").write_text(f"edition {step}: {{{{ story.title }}}}\n")
    elif kind == "list-template":
        templates = root / "templates"
        templates.mkdir(exist_ok=True)
        (templates / "list.html").write_text(f"<p>list {step}: {{{{ listing.title }}}}</p>\n")
    elif kind == "entry-template":  # every feed entry's content: the feeds import it
        templates = root / "templates"
        templates.mkdir(exist_ok=True)
        (templates / "_entry.html").write_text(f"{{% macro entry_content(full) %}}<p>{{{{ full.title }}}}, take "
                                               f"{_tag(step)}</p>{{% endmacro %}}\n")
    elif kind == "config":
        toml = root / "content/site.toml"
        toml.write_text(toml.read_text().replace("page_size = ", f"page_size = {1 + step % 3}\n# was ", 1))
    elif kind == "page":
        (root / "content/pages/about.md").write_text(f"---\ntitle: About {step}\n---\nHello {step}.\n")
    elif kind == "deface":
        deface(root / "public", rng)


def deface(public: Path, rng: random.Random) -> None:
    """A file the build wrote, changed by hand: written into in place (the same inode, which the tree beside
    public/ may share with it), replaced by another file, or deleted. The next build must put it back."""
    path = rng.choice(sorted(p for p in public.rglob("*") if p.is_file()))
    how = rng.choice(["in place", "replaced", "deleted"])
    if how == "in place":
        with open(path, "ab") as file:
            file.write(b"defaced")
    elif how == "replaced":
        path.with_name(path.name + ".new").write_bytes(b"defaced")
        path.with_name(path.name + ".new").replace(path)
    else:
        path.unlink()


def add_story(root: Path, rng: random.Random, step: int) -> None:
    """A follow-up story of its own words, on one of five days."""
    day = 21 + step % 5
    front = STORY.split("\n---\n")[0].replace("Council funds the Quay Street busway", f"Quay Street follow up {_tag(step)}")
    words = " ".join(rng.choice(VOCABULARY) for _ in range(60))
    text = (front.replace("2026-11-21T10:30:00Z", f"2026-11-{day}T10:30:00Z") + "\n---\n\n## Update\n\n"
            f"{words}. [cites: 1000000000000000001, 1000000000000000002]\n")
    (root / f"content/stories/2026-11-{day}").mkdir(exist_ok=True)
    (root / f"content/stories/2026-11-{day}/quay-street-follow-up-{_tag(step)}.md").write_text(text)


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_random_edits_give_the_same_bytes_as_a_cold_build(site: Path, tmp_path: Path, seed: int):
    rng = random.Random(seed)
    for step in range(3):
        _edit(site, rng, 100 + step, "add")
    build(site)
    kinds = []
    for step in range(8):
        kinds.append(rng.choice([*KINDS, "deface", "deface"]))
        _edit(site, rng, step, kinds[-1])
        build(site)
        cold = tmp_path / f"cold-{step}"
        for part in ("content", "templates"):
            if (site / part).is_dir():
                shutil.copytree(site / part, cold / part)
        build(cold)
        assert listing(site / "public") == listing(cold / "public"), f"after {kinds}"


@pytest.mark.parametrize("seed", [5, 6])
def test_random_edits_give_the_same_search_index_as_a_cold_build(site: Path, tmp_path: Path, seed: int,
                                                                 monkeypatch: pytest.MonkeyPatch):
    """With search, in shards of one to four stories, so that edits move stories between shards."""
    monkeypatch.setattr(search, "SMALLEST", 2)
    rng = random.Random(seed)
    for step in range(8):
        _edit(site, rng, 100 + step, "add")
    build(site, "--search")
    for step in range(6):
        kind = rng.choice(["reword", "words", "retime", "draft", "add", "remove", "page", "claim"])
        _edit(site, rng, step, kind)
        build(site, "--search")
        cold = tmp_path / f"cold-{step}"
        shutil.copytree(site / "content", cold / "content")
        build(cold, "--search")
        index, fresh = listing(site / "public" / "pagefind"), listing(cold / "public" / "pagefind")
        assert len(json.loads(index["shards.json"])["bundles"]) >= 3
        assert index == fresh, f"after {kind}"


def test_an_edit_is_built_from_the_memo(site: Path):
    """The memo is used: a reworded story renders its own pages again, not every story's, and the feeds that
    carry its body (the site's and its newsroom's, Atom and JSON)."""
    for step in range(4):
        _edit(site, random.Random(step), 100 + step, "add")
    build(site)
    path = site / STORY_PATH
    path.write_text(path.read_text().replace("Two members voted against", "Two members voted no"))
    assert "(7 written, " in build(site)


def test_a_story_text_edit_plans_only_the_site_outputs_that_read_it(site: Path, monkeypatch: pytest.MonkeyPatch):
    """The feeds carry a story's text; no other site output does, and none of them is even planned again."""
    from generator.engine import pipeline as engine

    build(site)
    planned: list[str] = []
    fingerprint = engine.output_fingerprint
    monkeypatch.setattr(engine, "output_fingerprint", lambda output, *rest: planned.append(output.path) or
                        fingerprint(output, *rest))
    path = site / STORY_PATH
    path.write_text(path.read_text().replace("Two members voted against", "Two members voted no"))
    assert "(7 written, " in build(site)
    assert sorted(planned) == ["feed.json", "feed.xml", "newsrooms/city/feed.json", "newsrooms/city/feed.xml"]
    path.write_text(path.read_text().replace("description: \"", "description: \"Now ", 1))  # its teaser: all planned
    planned.clear()
    build(site)
    assert len(planned) > 20


def test_an_edit_writes_one_file_of_the_memo_and_a_damaged_one_is_not_read(site: Path, tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch):
    from generator.engine import site_check as check

    for step in range(12):
        _edit(site, random.Random(step), 200 + step, "add")
    build(site)
    shards = {path.name: path.stat().st_mtime_ns for path in (site / CACHE_DIR).glob("memo-*-*")}
    assert len(shards) > 4
    read: list[str] = []
    read_story = check.read_story
    monkeypatch.setattr(check, "read_story", lambda reading, shown: read.append(shown) or read_story(reading, shown))
    path = site / STORY_PATH
    path.write_text(path.read_text().replace("Two members voted against", "Two members voted no"))
    build(site)
    after = {path.name: path.stat().st_mtime_ns for path in (site / CACHE_DIR).glob("memo-*-*")}
    assert read == [STORY_PATH]
    assert len(after) == len(shards) and len(set(after) - set(shards)) == 1  # the edited story's, named anew
    assert all(after[name] == when for name, when in shards.items() if name in after)
    shard = sorted((site / CACHE_DIR).glob("memo-*-*"))[0]
    shard.write_bytes(shard.read_bytes()[:-1] + b"x")  # not what the head names: no record of the memo is used
    path.write_text(path.read_text().replace("voted no", "voted against it"))
    read.clear()
    build(site)
    assert len(read) == 13
    fresh = tmp_path / "fresh"
    shutil.copytree(site / "content", fresh / "content")
    build(fresh)
    assert listing(site / "public") == listing(fresh / "public")


def test_the_teasers_the_memo_keeps_are_read_only_for_the_pages_that_list_a_story_anew(
        site: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A reworded story is made again with the feeds that carry its text, and they read from the memo the
    teasers of the other stories they list, each once; a new description is listed again on every page that
    lists the story. Either way the output is a cold build's."""
    from generator.engine.memo import Memo

    for step in range(6):
        _edit(site, random.Random(step), 300 + step, "add")
    build(site)
    read: list[str] = []
    teaser = Memo.teaser
    monkeypatch.setattr(Memo, "teaser", lambda self, story: read.append(story) or teaser(self, story))
    path = site / STORY_PATH
    path.write_text(path.read_text().replace("Two members voted against", "Two members voted no"))
    assert "(7 written, " in build(site)
    assert len(read) == len(set(read)) == 6 and STORY_PATH not in read
    read.clear()
    path.write_text(path.read_text().replace('description: "', 'description: "Now ', 1))
    assert "(7 written, " not in build(site)
    assert len(read) == len(set(read)) == 6 and STORY_PATH not in read
    fresh = tmp_path / "fresh"
    shutil.copytree(site / "content", fresh / "content")
    build(fresh)
    assert listing(site / "public") == listing(fresh / "public")


def test_a_damaged_teasers_file_is_not_read(site: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Changed where the memo's head can see it (its size or time), the memo is not used: the next build reads
    every story again. Changed with its size and time put back, it is found when first read: that build
    refuses with a line, publishes nothing and removes it, and the next build reads every story again."""
    from generator.engine import site_check as check

    read: list[str] = []
    read_story = check.read_story
    monkeypatch.setattr(check, "read_story", lambda reading, shown: read.append(shown) or read_story(reading, shown))
    for step in range(6):
        _edit(site, random.Random(step), 400 + step, "add")
    build(site)
    path = site / STORY_PATH
    for kept_stamp, note in ((False, "describe"), (True, "Later")):
        files = sorted((site / CACHE_DIR).glob("memo-*-teasers-*"), key=lambda file: -file.stat().st_size)
        file, before = files[0], files[0].stat()
        data = bytearray(file.read_bytes())
        data[len(data) // 2] ^= 1
        file.write_bytes(bytes(data))
        if kept_stamp:
            os.utime(file, ns=(before.st_atime_ns, before.st_mtime_ns))
        path.write_text(path.read_text().replace('description: "', f'description: "{note} ', 1))
        shown = listing(site / "public")
        read.clear()
        result = CliRunner().invoke(cli, ["build", "--root", str(site), "--no-search"])
        if kept_stamp:
            assert result.exit_code == 1 and f"{file} is damaged (it was removed): build again" in result.output
            assert listing(site / "public") == shown and not file.exists()
            read.clear()
            build(site)
        else:
            assert result.exit_code == 0, result.output
        assert len(read) == 7
        fresh = tmp_path / f"fresh-{kept_stamp}"
        shutil.copytree(site / "content", fresh / "content")
        build(fresh)
        assert listing(site / "public") == listing(fresh / "public")


@pytest.mark.parametrize("relative", [False, True])
def test_the_scan_names_content_files_as_the_build_shows_them(site: Path, relative: bool, monkeypatch):
    from generator.engine.state import content_digests, scan

    if relative:
        monkeypatch.chdir(site)
        site = Path(".")
    digests = content_digests(site, scan(site, None)[1])
    assert STORY_PATH in digests and "content/site.toml" in digests
    assert not any(path.startswith(("templates", "generator")) for path in digests)


def _built(site: Path, memory=None):
    """A build into memory through the one call, as `serve` makes one (`memory`: the last build's, kept)."""
    from generator.engine import Memory, Options, build

    memory = memory if memory is not None else Memory()
    report = build(site, memory, Options(search=False))
    assert report.ok, report.findings
    return memory, memory.files


def _late_memory():
    """Memory in which `then`, if set, edits the inputs once, just after the next build's scan found them."""
    from generator.engine import Memory

    class Late(Memory):
        then = None

        def scan(self, root, last, key):
            found = super().scan(root, last, key)
            if self.then is not None:
                self.then, edit = None, self.then
                edit()
            return found

    return Late()


def _story_template_changed(site: Path) -> None:
    """The site's own story.md, one line longer than ours: every story's pages are made again."""
    template = Path(__file__).resolve().parent.parent / "templates" / "story.md"
    (site / "templates").mkdir(exist_ok=True)
    (site / "templates" / "story.md").write_text(template.read_text() + "\n")


@pytest.mark.parametrize("seed", [7, 8])
def test_random_edits_built_as_the_preview_builds_give_a_cold_build_s_files(site: Path, seed: int):
    """The preview keeps its store and its memo in memory between builds, with what each story's variants were
    last made from (which a memo read from disk does not hold): after each edit, the files are a cold build's."""
    from generator.engine import Memory

    rng = random.Random(seed)
    memory = Memory()
    for step in range(10):
        kind = rng.choice(KINDS) if step else "reword"
        if step:
            _edit(site, rng, step, kind)
        _built(site, memory)
        assert step == 0 or memory.learned.made, "the next build has what each story was made from"
        assert memory.files == _built(site)[1], f"after {kind}"


def test_a_story_edited_after_the_scan_is_not_built_from_unchecked_text_then_built_again(site: Path):
    """A story the memo holds by the scan's digest, but which changed after the scan, is not made from its new,
    unchecked text when its pages must be made again (a template changed): the build stops (LP001, build
    again); the next build, whose scan sees it, reads it again: then the output is a cold build's."""
    from generator.engine import Options, build

    path = site / STORY_PATH
    memory, before = _built(site, _late_memory())
    _story_template_changed(site)
    memory.then = lambda: path.write_text(path.read_text().replace("Two members voted against", "Two members voted no"))
    during = build(site, memory, Options(search=False))
    assert [(f.path, f.code) for f in during.findings] == [(STORY_PATH, "LP001")] and memory.files == before
    _, files = _built(site, memory)
    assert files == _built(site)[1] and b"voted no" in files["stories/2026-11-21/council-funds-the-quay-street-busway/index.md"]


def test_the_reading_progress_counts_the_stories_read_not_those_the_memo_holds(site: Path):
    """A build after an edit reads one story: its progress says one, not every story of the site."""
    from generator.engine import Memory, Options, build

    for step in range(3):
        _edit(site, random.Random(step), 500 + step, "add")
    shown: list[tuple[str, int, int]] = []
    memory = Memory()
    build(site, memory, Options(search=False), progress=lambda *at: shown.append(at))
    assert [at for at in shown if at[0] == "read"] == [("read", n, 4) for n in range(1, 5)]
    path = site / STORY_PATH
    path.write_text(path.read_text().replace("Two members voted against", "Two members voted no"))
    shown.clear()
    build(site, memory, Options(search=False), progress=lambda *at: shown.append(at))
    assert [at for at in shown if at[0] == "read"] == [("read", 1, 1)]


def test_a_manifest_edited_after_the_scan_fails_that_build_and_is_read_by_the_next(site: Path):
    """The build knows the manifest by the digest its scan found: its stories were checked against those bytes,
    so a page made again (a template changed) is never made from others (it says to build again), and the next
    scan reads the edit."""
    from generator.engine import Options, build

    manifest = site / "content/manifests/1000000000000000002.json"
    memory, before = _built(site, _late_memory())
    _story_template_changed(site)
    memory.then = lambda: manifest.write_text(manifest.read_text().replace("Transit ridership report",
                                                                           "Transit ridership review"))
    during = build(site, memory, Options(search=False))
    assert [(f.path, f.code) for f in during.findings] == [("content/manifests/1000000000000000002.json", "LP001")]
    assert "changed while the site was being built" in during.findings[0].message and memory.files == before
    _, files = _built(site, memory)
    assert files == _built(site)[1]
    assert b"Transit ridership review" in b"".join(files.values())


def test_a_new_view_field_shown_by_one_list_template_remakes_that_list(site: Path, tmp_path: Path, monkeypatch):
    """A field added to the view and shown by a list template reaches that list page when it changes, with no
    other change to the code: a list page is made from its stories' whole views, by fingerprint."""
    import generator.engine.stories
    from generator.render.story_view import StoryView, story_view

    class WithNote(StoryView):
        note: str

    def noted(story, *args, **kwargs):
        view = story_view(story, *args, **kwargs)
        return WithNote(**dict(view), note=(story.meta.unresolved or ["none"])[0].upper())

    monkeypatch.setattr(generator.engine.stories, "story_view", noted)
    (site / "templates").mkdir()
    (site / "templates/list.html").write_text("{% for story in listing.stories %}<p>{{ story.note }}</p>{% endfor %}\n")
    build(site)
    beat = site / "public/beats/policy/index.html"
    assert beat.read_text() == "<p>WHEN CONSTRUCTION STARTS.</p>"
    path = site / STORY_PATH
    path.write_text(path.read_text().replace("When construction starts.", "When the digging starts."))
    assert "up to date" not in build(site)
    assert beat.read_text() == "<p>WHEN THE DIGGING STARTS.</p>"
    cold = tmp_path / "cold"
    shutil.copytree(site / "content", cold / "content")
    shutil.copytree(site / "templates", cold / "templates")
    build(cold)
    assert listing(site / "public") == listing(cold / "public")


def test_a_field_added_to_the_site_remakes_what_reads_it_with_no_other_change(site: Path, monkeypatch):
    """Inputs by value: a field added to Site (all that producers read) and changed between two builds remakes
    the output made from it, and nothing else: the engine takes the fingerprint of the Site whole, so no list of
    its fields is kept to forget the new one in."""
    import dataclasses

    import generator.engine.site_outputs as pages
    import generator.engine.pipeline as pipeline
    from generator.engine import Memory, Options, build
    from generator.site import Output, Site
    from generator.site.outputs import SITE_TOML

    @dataclasses.dataclass(frozen=True)
    class WithMotto(Site):
        motto: str = ""

    said = ["Every paragraph cited."]

    def motto_text(config, motto: str) -> str:
        return motto

    def motto(site: WithMotto):
        yield Output("motto.txt", SITE_TOML, None, {"motto": site.motto}, make=motto_text)

    monkeypatch.setattr(pipeline, "Site", lambda *args, **kwargs: WithMotto(*args, **kwargs, motto=said[0]))
    monkeypatch.setattr(pages, "PRODUCERS", [*pages.PRODUCERS, motto])
    memory = Memory()
    assert build(site, memory, Options(search=False)).ok and memory.files["motto.txt"] == b"Every paragraph cited."
    said[0] = "Every claim sourced."
    again = build(site, memory, Options(search=False))
    assert again.changed == ["motto.txt"] and memory.files["motto.txt"] == b"Every claim sourced."
    assert build(site, memory, Options(search=False)).changed == []


def test_a_field_added_to_a_story_s_job_remakes_that_story_s_pages_with_no_other_change(site: Path, monkeypatch):
    """Inputs by value: a field added to StoryJob, which the story's view reads, and changed for one story
    between two builds remakes that story's pages (its index.json, which writes the whole view, changes), not
    another story's: the view is made from the job alone, and the engine takes the job's fingerprint whole."""
    from typing import NamedTuple

    import generator.engine.stories as stories
    from generator.engine import Memory, Options, build
    from generator.render.story_job import StoryJob
    from generator.render.story_view import StoryView, story_view

    NotedJob = NamedTuple("NotedJob", [*((name, StoryJob.__annotations__[name]) for name in StoryJob._fields),
                                       ("note", str)])
    NotedJob.manifests_by_id, NotedJob.images_by_src = StoryJob.manifests_by_id, StoryJob.images_by_src
    notes = {STORY_PATH: "first"}

    class WithNote(StoryView):
        note: str

    def noted(story, sections, job, config):
        return WithNote(**dict(story_view(story, sections, job, config)), note=job.note)

    monkeypatch.setattr(stories, "StoryJob", lambda *fields: NotedJob(*fields, notes.get(fields[0], "")))
    monkeypatch.setattr(stories, "story_view", noted)
    _edit(site, random.Random(1), 1, "add")
    memory = Memory()
    assert build(site, memory, Options(search=False)).ok
    data = "stories/2026-11-21/council-funds-the-quay-street-busway/index.json"
    assert b'"note": "first"' in memory.files[data]
    notes[STORY_PATH] = "second"
    changed = build(site, memory, Options(search=False)).changed
    assert [path for path in changed if path.startswith("stories/")] == [data]
    assert b'"note": "second"' in memory.files[data]


def test_a_fingerprint_tells_values_apart_by_type_and_shape():
    """Equal values give one fingerprint; a named tuple differs from another type's with the same values and
    from a plain tuple, a tuple from a list, and any value from one with a part changed."""
    from typing import NamedTuple

    from generator.engine.fingerprint import fingerprint

    class Job(NamedTuple):
        path: str
        parts: tuple

    class Other(NamedTuple):
        path: str
        parts: tuple

    job = Job("a.md", (("m1", "d1"),))
    assert fingerprint(job, "t") == fingerprint(Job("a.md", (("m1", "d1"),)), "t")
    found = {fingerprint(value, "t") for value in (job, Other(*job), tuple(job), ["a.md", [["m1", "d1"]]],
                                                   Job("a.md", (("m1", "d2"),)))}
    assert len(found) == 5


def test_an_empty_or_short_signing_key_is_replaced_by_a_whole_one_only_its_user_reads(tmp_path: Path, monkeypatch):
    """A key file left empty (a run killed as it made it) would sign memos anyone could forge: it is made again."""
    from generator.engine import memo

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    key = tmp_path / "ledgerpress" / memo.KEY_NAME
    key.parent.mkdir()
    key.write_bytes(b"")
    made = memo._secret()
    assert len(made) == memo.KEY_BYTES and key.read_bytes() == made and key.stat().st_mode & 0o777 == 0o600
    assert memo._secret() == made
    key.write_bytes(b"short")
    assert len(memo._secret()) == memo.KEY_BYTES
    assert sorted(p.name for p in key.parent.iterdir()) == [memo.KEY_NAME]


def test_an_input_that_cannot_be_read_counts_and_is_read_again_once_it_can(site: Path, monkeypatch):
    """A story the scan cannot open (permission denied) is an input all the same, so a build after it appeared
    is not `up to date`; made readable (a chmod moves no time), the next scan reads it rather than trusting the
    stamp that said it could not."""
    import generator.engine.state as state

    path = str((site / STORY_PATH).resolve())
    real_open = os.open

    def refused(name, *args, **kwargs):
        if str(name) == path:
            raise PermissionError(13, "Permission denied", name)
        return real_open(name, *args, **kwargs)

    monkeypatch.setattr(state.os, "open", refused)
    before = state.State("k", *state.scan(site.resolve(), None))
    assert before.inputs[path][3] == "unread"
    monkeypatch.setattr(state.os, "open", real_open)
    time.sleep(0.01)
    before.started_ns = time.time_ns() + state.RACY_NS  # its stat is old enough to be trusted, were it read
    _, now = state.scan(site.resolve(), before)
    assert now[path][3] == file_digest((site / STORY_PATH).read_bytes())
