"""The memo of the last good build: an edit renders only what it changes (on disk and in memory, as the
preview server builds), the result equals a cold build, and a memo that is not ours is never unpickled."""

from __future__ import annotations

import dataclasses
import os
import pickle
import random
from pathlib import Path

import pytest
from click.testing import CliRunner

from generator import memo as memo_module
from generator.build import build_site
from generator.cache import CACHE_DIR, put_file
from generator.cli import cli
from generator.memo import HEAD, MEMO_DIR, ShardWriter, load_memo, new_memo, save_memo
from tests.conftest import STORY_PATH
from tests.test_cache import KINDS, _edit


def _grown(site: Path, count: int = 4) -> Path:
    for step in range(count):
        _edit(site, random.Random(step), 100 + step, "add")
    return site


def test_in_memory_rebuild_renders_only_what_an_edit_reaches(site: Path):
    _grown(site)
    first = build_site(site, search=False, memo=new_memo(site, "memory"))
    assert first.ok and first.rendered == len(first.files)
    path = site / STORY_PATH
    path.write_text(path.read_text().replace("Two members voted against", "Two members voted no"))
    second = build_site(site, search=False, memo=first.memo, reuse=first.files)
    cold = build_site(site, search=False)
    assert second.files == cold.files
    changed = {p for p in cold.files if cold.files[p] != first.files.get(p)}
    assert {"stories/2026-11-21/council-funds-the-quay-street-busway/index.html"} <= changed
    assert len(changed) <= second.rendered < len(cold.files) / 2


def test_nothing_changed_renders_nothing(site: Path):
    _grown(site)
    first = build_site(site, search=False, memo=new_memo(site, "memory"))
    again = build_site(site, search=False, memo=first.memo, reuse=first.files)
    assert again.rendered == 0 and again.files == first.files


def test_a_memo_from_elsewhere_is_never_unpickled(site: Path, tmp_path: Path):
    result = CliRunner().invoke(cli, ["build", "--root", str(site), "--no-search"])
    assert result.exit_code == 0, result.output
    empty = new_memo(site, "x")
    memo = build_site(site, search=False, memo=empty).memo
    save_memo(site, memo)
    assert load_memo(site, empty) is not None
    folder = site / CACHE_DIR / MEMO_DIR.format(options=empty.options)
    shard = next(iter(load_memo(site, empty).shards.values()))[0]
    for stored in (folder / HEAD, folder / shard):
        data = bytearray(stored.read_bytes())
        data[-5] ^= 1
        stored.write_bytes(bytes(data))
        assert load_memo(site, empty) is None  # damaged: the signed head, or a story shard it names
        save_memo(site, build_site(site, search=False, memo=empty).memo)  # as the build that found it so
        assert load_memo(site, empty) is not None
    os.environ["XDG_CACHE_HOME"], before = str(tmp_path / "another-user"), os.environ["XDG_CACHE_HOME"]
    try:
        assert load_memo(site, empty) is None  # signed with another user's key
    finally:
        os.environ["XDG_CACHE_HOME"] = before
    assert load_memo(site, new_memo(site, "y")) is None  # other options


def _saved(site: Path):
    """A grown site built with a memo and the memo saved: (its empty memo, the build, the memo's folder, the
    files in it besides the head)."""
    _grown(site, 8)
    empty = new_memo(site, "x")
    first = build_site(site, search=False, memo=empty)
    save_memo(site, first.memo)
    folder = site / CACHE_DIR / MEMO_DIR.format(options=empty.options)
    return empty, first, folder, set(os.listdir(folder)) - {HEAD}


def test_only_the_memo_shards_holding_a_changed_entry_are_written_again(site: Path):
    """The memo keeps its story entries in shards named by digest: a touched file (new stat, same bytes) or an
    edited story rewrites the shard holding it, and the others are left as they are."""
    empty, first, folder, before = _saved(site)
    os.utime(site / STORY_PATH, ns=(10**18, 10**18))
    memo = load_memo(site, empty)
    shard = memo.shards[next(n for n, (_, _, entries) in memo.shards.items() if STORY_PATH in entries)][0]
    result = build_site(site, search=False, memo=memo, reuse=first.files)
    assert result.rendered == 0
    save_memo(site, result.memo)
    after = set(os.listdir(folder)) - {HEAD}
    assert before - after == {shard} and len(after - before) == 1 and len(before) > 2
    memo = load_memo(site, empty)  # the new stat is kept: the file is not read again
    assert memo.stories[STORY_PATH].prepared.stamp[0] == 10**18


def test_a_damaged_file_of_views_is_found_when_read_and_the_build_starts_afresh(site: Path):
    """The views' JSON is checked only when a page asks for it: if it was changed since, the build says so and
    builds again without the cache, and writes what a cold build writes."""
    _grown(site)
    runner = CliRunner()
    assert runner.invoke(cli, ["build", "--root", str(site), "--no-search"]).exit_code == 0
    folder = next((site / CACHE_DIR).glob("memo-*"))
    views = [path for path in folder.iterdir() if path.name != HEAD and _holds_views(path)]
    assert views
    for path in views:
        data = bytearray(path.read_bytes())
        data[-5] ^= 1
        path.write_bytes(bytes(data))
    story = site / STORY_PATH
    story.write_text(story.read_text().replace("after a year of rising ridership", "after a year of growth"))
    result = runner.invoke(cli, ["build", "--root", str(site), "--no-search"])
    assert result.exit_code == 0, result.output
    assert "building again without the cache" in result.output
    cold = build_site(site, search=False).files
    assert {path: (site / "public" / path).read_bytes() for path in cold} == cold


def _holds_views(path: Path) -> bool:
    """A file of views' JSON (story path -> bytes), not a shard of story entries."""
    try:
        value = pickle.loads(path.read_bytes())
    except Exception:
        return False
    return isinstance(value, dict) and all(isinstance(text, bytes) for text in value.values())


def test_a_new_site_toml_starts_afresh(site: Path):
    empty = new_memo(site, "x")
    save_memo(site, build_site(site, search=False, memo=empty).memo)
    toml = site / "content/site.toml"
    toml.write_text(toml.read_text() + "\n# a comment\n")
    assert load_memo(site, new_memo(site, "x")) is None


def test_force_renders_everything_again(site: Path):
    _grown(site)
    runner = CliRunner()
    assert runner.invoke(cli, ["build", "--root", str(site), "--no-search"]).exit_code == 0
    (site / "public" / "index.html").unlink()  # by hand: the cache cannot know
    result = runner.invoke(cli, ["build", "--root", str(site), "--no-search", "--force"])
    assert result.exit_code == 0, result.output
    assert (site / "public" / "index.html").is_file()


def test_unchanged_manifests_are_not_read_again_until_needed(site: Path):
    """A plain manifest the last build read is kept by id and digest; its claims are read again only when a
    story citing it is edited, and the output is still that of a cold build."""
    _grown(site)
    source = site / "content/manifests/1000000000000000002.json"
    (site / "content/manifests/1000000000000000009.json").write_text(
        source.read_text().replace("1000000000000000002", "1000000000000000009"))  # cited by no story
    empty = new_memo(site, "x")
    first = build_site(site, search=False, memo=empty)
    save_memo(site, first.memo)
    memo = load_memo(site, empty)
    kept = [found for _, (found, _) in memo.manifests.values()]
    assert kept and all(type(found).__name__ == "StoredManifest" and "loaded" not in vars(found) for found in kept)
    path = site / STORY_PATH
    path.write_text(path.read_text().replace("Two members voted against", "Two members voted no"))
    again = build_site(site, search=False, memo=memo, reuse=first.files)
    assert again.files == build_site(site, search=False).files
    loaded = {found.id for found in kept if "loaded" in vars(found)}
    assert loaded == {"1000000000000000001", "1000000000000000002"}  # the manifests the edited story cites


@pytest.mark.parametrize("seed", [5, 6, 7])
def test_random_edits_in_memory_give_the_bytes_of_a_cold_build(site: Path, seed: int):
    """The preview's path: each rebuild from the last good one's memo and files equals a build from scratch."""
    rng = random.Random(seed)
    _grown(site, 3)
    last = build_site(site, search=False, memo=new_memo(site, "serve"))
    kinds = []
    for step in range(8):
        kinds.append(rng.choice(KINDS))
        _edit(site, rng, step, kinds[-1])
        empty = new_memo(site, "serve")
        result = build_site(site, search=False, memo=last.memo if last.memo.key == empty.key else empty,
                            reuse=last.files)
        assert result.files == build_site(site, search=False).files, f"after {kinds}"
        last = result


def _remade(before: dict[str, bytes], after: dict[str, bytes]) -> set[str]:
    """The outputs a rebuild made again (an output taken from the last build is the very same bytes object)."""
    return {path for path, data in after.items() if before.get(path) is not data}


def test_a_manifest_change_renders_exactly_the_stories_that_cite_it(site: Path):
    _grown(site)
    other = site / "content/stories/2026-11-22/only-the-first-manifest.md"
    other.parent.mkdir(exist_ok=True)
    story = (site / STORY_PATH).read_text()
    front, _ = story.split("\n---\n", 1)
    front = (front.replace("Council funds the Quay Street busway", "Only the first manifest")
             .replace("2026-11-21T10:30:00Z", "2026-11-22T10:30:00Z")
             .replace('  - manifest: "1000000000000000002"\n    claims: ["2000000000000000021"]\n', ""))
    other.write_text(front + "\n---\n\nThe council approved the budget on a 9 to 2 vote. [cites: 1000000000000000001]\n")
    first = build_site(site, search=False, memo=new_memo(site, "serve"))
    assert first.ok, first.findings
    manifest = site / "content/manifests/1000000000000000002.json"
    manifest.write_text(manifest.read_text().replace("Transit ridership report", "Transit ridership review"))
    second = build_site(site, search=False, memo=first.memo, reuse=first.files)
    remade = {path.rsplit("/", 1)[0] for path in _remade(first.files, second.files) if path.startswith("stories/")}
    citing = {f"stories/{key}" for key in ("2026-11-21/council-funds-the-quay-street-busway",)}
    citing |= {f"stories/{p.parent.name}/{p.stem}" for p in (site / "content/stories").glob("*/quay-street-*.md")}
    assert remade == citing  # not the story that cites only the other manifest
    assert "stories/2026-11-22/only-the-first-manifest" not in remade
    assert "manifests/1000000000000000002/index.html" in _remade(first.files, second.files)
    assert second.files == build_site(site, search=False).files


def test_a_template_change_renders_what_uses_that_template(site: Path):
    _grown(site)
    first = build_site(site, search=False, memo=new_memo(site, "serve"))
    (site / "templates").mkdir(exist_ok=True)
    (site / "templates/list.html").write_text("<p>{{ listing.title }}</p>\n")
    second = build_site(site, search=False, memo=first.memo, reuse=first.files)
    remade = _remade(first.files, second.files)
    assert remade and all(path.startswith(("newsrooms/", "beats/", "editions/")) for path in remade)
    assert "editions/index.html" not in remade and "index.html" not in remade  # other templates
    assert not any(path.startswith("stories/") for path in remade)
    assert second.files == build_site(site, search=False).files


def test_a_saved_entry_reads_back_as_it_was(site: Path):
    """Views and similarity features come back from the memo packed, and read as they were when unpacked."""
    _grown(site)
    empty = new_memo(site, "x")
    first = build_site(site, search=False, memo=empty)
    save_memo(site, first.memo)
    memo = load_memo(site, empty)
    assert memo.stories.keys() == first.memo.stories.keys()
    for path, entry in memo.stories.items():
        was = first.memo.stories[path]
        assert type(entry.prepared.features).__name__ == "PackedFeatures"
        for name in ("empty", "words", "numbers"):
            assert getattr(entry.prepared.features, name) == getattr(was.prepared.features, name)
        assert entry.prepared.features.sketch.tolist() == was.prepared.features.sketch.tolist()
        assert "title" not in vars(entry.view) and entry.view.text == was.view.text  # unpacked when read
        for name in ("path", "mark", *type(entry.view).KEPT):
            assert getattr(entry.view, name) == getattr(was.view, name)
        assert entry.view.view == was.view.view


def test_a_body_edit_writes_one_shard_again_and_not_its_views(site: Path):
    """The edited story's entry is new, but its view without the body reads the same: the file of views stays."""
    empty, first, folder, before = _saved(site)
    path = site / STORY_PATH
    path.write_text(path.read_text().replace("Two members voted against", "Two members voted no"))
    memo = load_memo(site, empty)
    number = next(n for n, (_, _, entries) in memo.shards.items() if STORY_PATH in entries)
    shard, views, _ = memo.shards[number]
    result = build_site(site, search=False, memo=memo, reuse=first.files)
    assert result.rendered == 3
    save_memo(site, result.memo)
    after = set(os.listdir(folder)) - {HEAD}
    assert before - after == {shard} and len(after - before) == 1 and views.path.name in after
    assert load_memo(site, empty).stories[STORY_PATH].view.text == result.memo.stories[STORY_PATH].view.text


def test_shards_written_ahead_by_a_forked_process_are_those_save_memo_writes(site: Path, monkeypatch):
    """A first build's story shards are written by a forked process while the site pages are planned: the
    same files save_memo writes itself, read back as a memo that renders nothing again."""
    monkeypatch.setattr(ShardWriter, "MIN_STORIES", 1)
    _grown(site, 8)
    written, here = {}, []
    for options, ahead in (("here", None), ("ahead", ShardWriter(site, new_memo(site, "ahead").options))):
        empty = new_memo(site, options)
        result = build_site(site, search=False, memo=empty, ahead=ahead, jobs=2)
        assert ahead is None or ahead.pending  # forked as the stories were done (two jobs: two processes)
        here.clear()  # the files this process writes (the child has put_file as it was)
        monkeypatch.setattr(memo_module, "put_file",
                            lambda path, parts: here.append(path.name) or put_file(path, parts))
        save_memo(site, result.memo, ahead)
        monkeypatch.setattr(memo_module, "put_file", put_file)
        assert here == [HEAD] if ahead else len(here) > 2  # the child wrote the shards: here, the head alone
        folder = site / CACHE_DIR / MEMO_DIR.format(options=empty.options)
        written[options] = set(os.listdir(folder)) - {HEAD}
        memo = load_memo(site, empty)
        assert memo is not None and memo.stories.keys() == result.memo.stories.keys()
        again = build_site(site, search=False, memo=memo, reuse=result.files)
        assert again.rendered == 0 and again.files == result.files
    assert written["ahead"] == written["here"] and len(written["here"]) > 2


def test_shards_written_ahead_are_not_taken_if_an_entry_changed_since(site: Path, monkeypatch):
    monkeypatch.setattr(ShardWriter, "MIN_STORIES", 1)
    _grown(site, 8)
    empty = new_memo(site, "x")
    ahead = ShardWriter(site, empty.options)
    result = build_site(site, search=False, memo=empty, ahead=ahead, jobs=2)
    assert ahead.pending
    entry = result.memo.stories[STORY_PATH]
    result.memo.stories[STORY_PATH] = changed = dataclasses.replace(entry, render="another digest")
    save_memo(site, result.memo, ahead)  # written here instead, the changed entry among them
    assert not ahead.pending and load_memo(site, empty).stories[STORY_PATH].render == changed.render


def test_one_job_writes_the_shards_in_its_own_process(site: Path, monkeypatch):
    """--jobs 1 asks for one process: the shards are not written aside."""
    monkeypatch.setattr(ShardWriter, "MIN_STORIES", 1)
    empty = new_memo(site, "x")
    ahead = ShardWriter(site, empty.options)
    result = build_site(site, search=False, memo=empty, ahead=ahead, jobs=1)
    assert result.ok and not ahead.pending
