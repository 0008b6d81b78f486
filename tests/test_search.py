"""The Pagefind index: built with the site in shards over stories and plain pages only, each shard indexed again
only when one of its pages changed; without Pagefind the site still builds, with a warning that says why (the
browser tests are in test_quality.py)."""

from __future__ import annotations

import gzip
import json
import os
import random
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from generator.cli import cli
from generator.engine import indexing as engine_search
from generator.engine.scratch import clear_leftovers
from generator.site import search
from generator.site.search import (
    NOTE_CODE,
    SHARDS,
    Searchable,
    Shard,
    plan_shards,
    shard_size,
)
from tests.conftest import SITE_TOML, STORY_PATH, build_in_memory, write_tree
from tests.test_cache import add_story
from tests.test_site import story_file


def _bundles(files: dict[str, bytes]) -> list[str]:
    return [bundle.strip("/") for bundle in json.loads(files[SHARDS])["bundles"]]


def _page_count(files: dict[str, bytes], bundle: str) -> int:
    return json.loads(files[f"{bundle}/pagefind-entry.json"])["languages"]["en"]["page_count"]


def test_the_build_carries_sharded_pagefind_bundles(site: Path):
    result = build_in_memory(site)
    assert result.ok and not [f for f in result.findings if f.code == NOTE_CODE]
    primary, *others = _bundles(result.files)
    assert others == ["pagefind/pages"]
    bundle = sorted(path for path in result.files if path.startswith(primary + "/"))
    assert {f"{primary}/pagefind.js", f"{primary}/pagefind-entry.json", f"{primary}/wasm.en.pagefind"} <= set(bundle)
    assert any(path.startswith(f"{primary}/index/") for path in bundle)
    assert not any(path.startswith("pagefind/pages/pagefind") and path.endswith(".js") for path in result.files)
    assert not any("-ui." in path or "highlight" in path for path in result.files)
    # one story and one page carry data-pagefind-body; list pages, search and 404 are not search results
    assert _page_count(result.files, primary) == 1 and _page_count(result.files, "pagefind/pages") == 1


def test_a_plain_page_left_out_for_lp011_is_left_out_of_search(site: Path):
    """A page whose address the front page takes is not built when LP011 is off: the plain shard must not
    take the front page in its place."""
    write_tree(site, {"content/pages/index.md": "---\ntitle: A page\n---\nText.\n",
                      "content/site.toml": SITE_TOML + '\n[checks]\nLP011 = "off"\n'})
    result = build_in_memory(site, search=False)
    assert result.ok
    plain = engine_search.search_plan(*result.searchable)[-1]
    assert plain.name == "pages" and "index.html" not in [page.path for page in plain.pages]
    assert [page.path for page in plain.pages] == ["terms/reuse/index.html"]


def test_without_pagefind_the_site_builds_and_says_why(site: Path, tmp_path: Path, monkeypatch):
    monkeypatch.setenv("PAGEFIND_BINARY_PATH", str(tmp_path / "no-such-pagefind"))
    result = build_in_memory(site)
    assert result.ok
    assert not any(path.startswith("pagefind/") for path in result.files)
    assert "search/index.html" in result.files and "index.html" in result.files
    [note] = [f for f in result.findings if f.code == NOTE_CODE]
    assert note.severity == "warning" and "search index not built" in note.message and "Pagefind" in note.message

    run = CliRunner().invoke(cli, ["build", "--root", str(site), "--out", str(tmp_path / "out")])
    assert run.exit_code == 0, run.output
    assert f"{NOTE_CODE} search index not built" in run.output and "(warning)" in run.output
    assert "Traceback" not in run.output
    assert (tmp_path / "out" / "search" / "index.html").is_file()


def test_a_failing_pagefind_is_a_warning(site: Path, tmp_path: Path, monkeypatch):
    fake = tmp_path / "pagefind"
    fake.write_text("#!/bin/sh\necho 'Error: the index could not be written' >&2\nexit 3\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PAGEFIND_BINARY_PATH", str(fake))
    result = build_in_memory(site)
    [note] = [f for f in result.findings if f.code == NOTE_CODE]
    assert result.ok and "the index could not be written" in note.message


DAMAGE = {  # what a full disk leaves of Pagefind's output while Pagefind exits 0
    "entry empty": "(out / 'pagefind-entry.json').write_bytes(b'')",
    "fragment cut": "fragment = sorted(out.glob('fragment/*'))[0]; fragment.write_bytes(fragment.read_bytes()[:9])",
    "meta empty": "[meta.write_bytes(b'') for meta in out.glob('*.pf_meta')]",
    "index missing": "[index.unlink() for index in out.glob('index/*')]; (out / 'pagefind.js').unlink()",
}


@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_pagefind_output_cut_short_is_a_warning_and_no_index(site: Path, tmp_path: Path, monkeypatch, damage: str):
    from pagefind.service import get_executable

    fake = tmp_path / "pagefind"
    fake.write_text(f"#!{sys.executable}\nimport pathlib, subprocess, sys\n"
                    f"subprocess.call([{str(get_executable())!r}, *sys.argv[1:]])\n"
                    "out = pathlib.Path(sys.argv[sys.argv.index('--output-path') + 1])\n"
                    f"{DAMAGE[damage]}\nsys.exit(0)\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PAGEFIND_BINARY_PATH", str(fake))
    runner = CliRunner()
    built = runner.invoke(cli, ["build", "--root", str(site)])
    assert built.exit_code == 0 and f"{NOTE_CODE} search index not built" in built.output, built.output
    assert "not whole" in built.output or "is empty" in built.output or "is damaged" in built.output
    assert not (site / "public" / "pagefind").exists()
    monkeypatch.delenv("PAGEFIND_BINARY_PATH")
    again = runner.invoke(cli, ["build", "--root", str(site)])
    assert "up to date" not in again.output and NOTE_CODE not in again.output, again.output
    assert json.loads((site / "public" / SHARDS).read_text())["bundles"]


def _stories(count: int, seed: int = 0) -> list[Searchable]:
    rng = random.Random(seed)
    return [Searchable(f"stories/s{n}/index.html", f"d{n}", f"2026-{1 + n % 12:02d}-{1 + rng.randrange(28):02d}T10:00:00Z",
                       f"s{n}") for n in range(count)]


@pytest.mark.parametrize("count", [0, 1, 7, 300, 4000, 50_000])
def test_shards_are_runs_of_about_the_square_root_newest_first(count: int):
    stories = _stories(count)
    shards = plan_shards(stories, [Searchable("about/index.html", "p")])
    size = shard_size(count)
    assert shards[-1].name == "pages" and [page.path for page in shards[-1].pages] == ["about/index.html"]
    runs = [shard.pages for shard in shards[:-1]]
    assert sorted(story.key for run in runs for story in run) == sorted(story.key for story in stories)
    order = [(story.published, story.key) for run in reversed(runs) for story in run]
    assert order == sorted(order)
    assert all(len(run) <= 3 * size // 2 for run in runs)
    assert all(len(run) >= size // 2 for run in runs[1:])  # only the oldest run may be short
    assert len({shard.name for shard in shards}) == len(shards)
    if count >= 4000:
        assert 16 <= len(runs) <= 4 * count / size


def test_an_added_or_removed_story_changes_only_the_shards_near_it():
    stories = _stories(4000)
    before = {(shard.name, shard.made_from) for shard in plan_shards(stories, [])}
    rng = random.Random(1)
    changed = []
    for step in range(60):
        after = list(stories)
        if step % 2:
            after.pop(rng.randrange(len(after)))
        else:
            after.append(Searchable("stories/new/index.html", "n", f"2026-{rng.randrange(1, 13):02d}-15T11:00:00Z", "new"))
        changed.append(len({(shard.name, shard.made_from) for shard in plan_shards(after, [])} - before))
    assert max(changed) <= 6 and sum(changed) / len(changed) < 2


def test_an_edit_indexes_again_only_its_own_shard(site: Path, monkeypatch):
    monkeypatch.setattr(search, "SMALLEST", 2)  # shards of one to four stories on a small site
    for step in range(12):
        add_story(site, random.Random(step), 100 + step)
    indexed: list[list[str]] = []
    real = engine_search.index_shards

    def counting(shards, read, jobs, nice=False, scratch=None):
        indexed.append(sorted(shard.name for shard in shards))
        return real(shards, read, jobs, nice, scratch)

    monkeypatch.setattr(engine_search, "index_shards", counting)
    runner = CliRunner()
    assert runner.invoke(cli, ["build", "--root", str(site)]).exit_code == 0
    shards = json.loads((site / "public" / SHARDS).read_text())["bundles"]
    assert len(indexed[0]) == len(shards) >= 4
    story = sorted((site / "content/stories").glob("*/quay-street-follow-up-*.md"))[5]
    story.write_text(story.read_text().replace("## Update\n\n", "## Update\n\nZebracrossings ", 1))
    assert runner.invoke(cli, ["build", "--root", str(site)]).exit_code == 0
    assert len(indexed[1]) == 1
    [shard] = indexed[1]
    texts = [gzip.decompress(path.read_bytes()) for path in (site / "public/pagefind" / shard).rglob("*.pf_fragment")]
    url = f"/stories/{story.parent.name}/{story.stem}/".encode()
    assert any(b"Zebracrossings" in text and url in text for text in texts)
    assert runner.invoke(cli, ["build", "--root", str(site), "--no-search"]).exit_code == 0
    assert (site / "public" / SHARDS).is_file()  # --no-search keeps the index as it was
    assert len(indexed) == 2


def _indexed_text(public: Path) -> bytes:
    """Every page the published index holds, as Pagefind keeps them (gzip): what a reader's search can find."""
    return b"".join(gzip.decompress(path.read_bytes()) for path in public.glob("pagefind/*/fragment/*.pf_fragment"))


@pytest.mark.parametrize("leave", ["scheduled", "draft", "deleted"])
def test_a_build_without_search_drops_an_index_holding_a_story_it_leaves_out(site: Path, leave: str):
    """A build with a later --now (or before the story became a draft again, or was deleted) indexed it; a build
    --no-search that leaves it out must not publish that index."""
    later, text = story_file(1, 28, 6)
    write_tree(site, {later: text})
    runner = CliRunner()
    assert runner.invoke(cli, ["build", "--root", str(site), "--now", "2026-12-01T00:00:00Z"]).exit_code == 0
    assert b"birch report" in _indexed_text(site / "public")
    now = ["--now", "2026-11-27T00:00:00Z"] if leave == "scheduled" else ["--now", "2026-12-01T00:00:00Z"]
    if leave == "draft":
        write_tree(site, {later: text.replace("trust: reported\n", "trust: reported\ndraft: true\n")})
    elif leave == "deleted":
        (site / later).unlink()
    built = runner.invoke(cli, ["build", "--root", str(site), "--no-search", *now])
    assert built.exit_code == 0, built.output
    public = site / "public"
    assert not (public / "stories/2026-11-28").exists()
    assert b"birch" not in _indexed_text(public).lower() and not (public / SHARDS).exists()
    assert not any(b"birch" in path.read_bytes().lower() for path in public.rglob("*") if path.is_file())


def test_a_build_without_search_keeps_an_index_made_from_its_own_pages(site: Path):
    runner = CliRunner()
    assert runner.invoke(cli, ["build", "--root", str(site)]).exit_code == 0
    before = {path: path.read_bytes() for path in (site / "public/pagefind").rglob("*") if path.is_file()}
    page = (Path(__file__).resolve().parent.parent / "templates/404.html").read_text()
    write_tree(site, {"templates/404.html": page.replace("<h1>Page not found</h1>", "<h1>Nothing here</h1>", 1)})
    built = runner.invoke(cli, ["build", "--root", str(site), "--no-search"])
    assert built.exit_code == 0 and "1 written" in built.output, built.output
    assert {path: path.read_bytes() for path in (site / "public/pagefind").rglob("*") if path.is_file()} == before


def _fragments(files: dict[str, bytes], bundle: str) -> list[dict]:
    """The pages a bundle indexed, as Pagefind keeps them: gzip, a signature, then JSON."""
    found = []
    for path, data in files.items():
        if path.startswith(bundle + "/fragment/"):
            text = gzip.decompress(data)
            found.append(json.loads(text[text.index(b"{"):]))
    return found


def test_the_index_holds_the_article_not_the_markers_and_times_around_it(site: Path):
    story = site / STORY_PATH
    story.write_text(story.read_text().replace("trust: confirmed", 'trust: confirmed\nauthors: ["ana-lima"]'))
    write_tree(site, {"content/authors/ana-lima.md": '---\nname: "Ana Lima"\nrole: "City reporter"\n---\n\nCity hall.\n'})
    result = build_in_memory(site)
    assert result.ok, result.findings
    [page] = [page for page in _fragments(result.files, _bundles(result.files)[0])
              if page["url"] == "/stories/2026-11-21/council-funds-the-quay-street-busway/"]
    text = page["content"]
    assert "The council approved a busway budget of 12,500,000 dollars on a 9 to 2 vote." in text
    assert "By Ana Lima" in text  # a reader may search for the author
    # what repeats on every story would match every search: the citation markers, the sources, trust and time
    assert "[1]" not in text and "sources" not in text and "Published" not in text and "Confirmed" not in text
    assert page["meta"] == {"title": "Council funds the Quay Street busway", "byline": "By Ana Lima",
                            "trust": "Confirmed", "published": "2026-11-21 10:30 UTC"}


def test_the_search_page_reads_the_shard_list(site: Path):
    result = build_in_memory(site)
    page = result.files["search/index.html"].decode()
    assert re.search(r'fetch\(base \+ "/pagefind/shards\.json"\)', page) and "mergeIndex" in page


def test_a_lang_that_is_not_a_language_tag_never_reaches_pagefind(tmp_path: Path, monkeypatch):
    """Pagefind names files after <html lang>: `../../x` wrote them outside its scratch folder."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    page = b'<!DOCTYPE html><html lang="../../../../escaped"><body data-pagefind-body><p>Words here.</p></body></html>'
    shard = Shard("s", (Searchable("index.html", "d"),))
    with pytest.raises(engine_search.SearchUnavailable, match="not a language tag"):
        list(engine_search.index_shards([shard], {"index.html": page}.__getitem__, 1))
    assert not [path for path in tmp_path.rglob("*escaped*")]


@pytest.mark.parametrize("html, refused", [
    (b'<html lang=en dir=ltr>', False), (b"<html lang='en-GB'>", False), (b'<html dir="ltr" lang="fr">', False),
    (b'<html lang=../x dir=ltr>', True), (b"<html lang='a/b'>", True),
])
def test_lang_is_read_quoted_or_not_as_html_reads_it(html: bytes, refused: bool):
    """An unquoted lang ends at a space (lang=en dir=ltr is English): only a value that is not a language tag
    stops search."""
    page = html + b"<body data-pagefind-body><p>Words here.</p></body></html>"
    if refused:
        with pytest.raises(engine_search.SearchUnavailable, match="not a language tag"):
            engine_search._language("index.html", page)
    else:
        engine_search._language("index.html", page)


def test_a_pagefind_failing_after_other_shards_leaves_no_search_file_in_the_output(site: Path, tmp_path: Path,
                                                                                   monkeypatch):
    """Bundles go into the output as Pagefind makes them: when a later shard fails, the build goes on without
    search, and the output holds none of the bundles put before (nor does its record)."""
    monkeypatch.setattr(search, "SMALLEST", 2)
    for step in range(12):
        add_story(site, random.Random(step), 100 + step)
    real = engine_search._index
    calls: list[str] = []

    def failing_third(shard, *rest):
        calls.append(shard.name)
        if len(calls) == 3:
            raise engine_search.SearchUnavailable("Pagefind stopped: test")
        return real(shard, *rest)

    monkeypatch.setattr(engine_search, "_index", failing_third)
    run = CliRunner().invoke(cli, ["build", "--root", str(site), "--jobs", "1"])
    assert run.exit_code == 0 and "Pagefind stopped: test" in run.output, run.output
    assert len(calls) >= 3 and not (site / "public" / "pagefind").exists()
    monkeypatch.setattr(engine_search, "_index", real)  # nothing else changed: the next build tries again
    run = CliRunner().invoke(cli, ["build", "--root", str(site)])
    assert run.exit_code == 0 and "search index not built" not in run.output, run.output
    assert (site / "public" / SHARDS).is_file()


def test_a_hung_pagefind_is_a_warning(site: Path, tmp_path: Path, monkeypatch):
    fake = tmp_path / "pagefind"
    fake.write_text("#!/bin/sh\nsleep 30\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PAGEFIND_BINARY_PATH", str(fake))
    monkeypatch.setattr(engine_search, "TIMEOUT_S", 0.5)
    result = build_in_memory(site)
    notes = [f for f in result.findings if f.code == NOTE_CODE]
    assert result.ok and [f.severity for f in notes] == ["warning"]
    assert "took more than" in notes[0].message


def test_scratch_folders_of_runs_that_are_gone_are_removed(site: Path, tmp_path: Path, monkeypatch):
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True,
                          check=True)
    scratch = tmp_path / "tmp"
    dead = scratch / f"{engine_search.SCRATCH_PREFIX}{gone.stdout.strip()}-abc"
    mine = scratch / f"{engine_search.SCRATCH_PREFIX}{os.getpid()}-def"
    legacy_old, legacy_new = scratch / f"{engine_search.SCRATCH_PREFIX}k3j4h5g6", scratch / f"{engine_search.SCRATCH_PREFIX}a1b2c3d4"
    other = scratch / "unrelated-folder"
    for folder in (dead, mine, legacy_old, legacy_new, other):
        (folder / "site").mkdir(parents=True)
    os.utime(legacy_old, (0, 0))
    clear_leftovers(str(scratch), engine_search.SCRATCH_PREFIX)
    assert sorted(p.name for p in scratch.iterdir()) == sorted([mine.name, legacy_new.name, other.name])

    (dead / "site").mkdir(parents=True)
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    assert build_in_memory(site).ok  # every run clears what killed runs left
    assert not dead.exists() and mine.exists()


def test_a_build_keeps_its_scratch_beside_the_output_and_leaves_none_there(site: Path, monkeypatch):
    scratch = site / ".public.ledgerpress" / "scratch"
    killed = scratch / f"{engine_search.SCRATCH_PREFIX}1-left"  # as a killed build leaves it
    (killed / "site").mkdir(parents=True)
    tops: list[str] = []
    real = engine_search._index

    def spying(shard, read, binary, nice, top):
        tops.append(top)
        return real(shard, read, binary, nice, top)

    monkeypatch.setattr(engine_search, "_index", spying)
    monkeypatch.setattr(tempfile, "tempdir", str(site / "not-a-folder"))  # the system's is never used
    assert CliRunner().invoke(cli, ["build", "--root", str(site)]).exit_code == 0
    assert tops and set(tops) == {str(scratch)}
    assert list(scratch.iterdir()) == []  # the story bodies' spill and Pagefind's folders removed, the killed one too
    assert (site / "public" / SHARDS).exists()


def test_a_story_is_indexed_by_its_text_not_the_pages_furniture():
    """Search excerpts picked up the page's furniture ("The Calder Ledger illustration Key …"): within the
    indexed body, the credit, the section labels (Key facts, Decision card, …), key facts' labels, citation
    numbers and the evidence boxes are left out; the title, the dek, captions and the text stay."""
    from lxml import html

    from tests.conftest import built_cold

    REPO = Path(__file__).resolve().parent.parent

    files = built_cold(REPO)
    pictured = next(path for path in sorted(files) if path.startswith("stories/") and path.endswith("index.json")
                    and json.loads(files[path])["image"] and json.loads(files[path])["key_facts"])
    story = json.loads(files[pictured])
    page = html.fromstring(files[pictured.replace("index.json", "index.html")])
    body = page.cssselect("[data-pagefind-body]")[0]
    for ignored in body.cssselect(", ".join(["[data-pagefind-ignore]", *search.EXCLUDE])):  # (what Pagefind leaves out)
        ignored.drop_tree()
    indexed = " ".join(body.text_content().split())
    assert story["title"] in indexed and story["description"] in indexed
    for furniture in ("Key facts", "Evidence", "matched to a claim", story["image"]["credit"]):
        assert furniture not in indexed, furniture
    if story["image"].get("caption"):
        assert " ".join(story["image"]["caption"].split()) in indexed
    assert not re.search(r"\[\d+(, \d+)*\]", indexed), re.search(r".{40}\[\d+(, \d+)*\].{10}", indexed)
