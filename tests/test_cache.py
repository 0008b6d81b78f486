"""The build cache: an unchanged site is not rebuilt, unchanged files are not rewritten, a damaged cache
is ignored, and whatever sequence of edits comes, the output equals a cold build of the same input."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from click.testing import CliRunner

from generator.cache import CACHE_DIR, STATE_FILE
from generator.cli import cli
from tests.conftest import STORY, STORY_PATH


def build(root: Path, *extra: str) -> str:
    result = CliRunner().invoke(cli, ["build", "--root", str(root), "--no-search", *extra])
    assert result.exit_code == 0, result.output
    return result.stderr


def listing(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def stamps(root: Path) -> dict[str, int]:
    return {p.relative_to(root).as_posix(): p.stat().st_mtime_ns for p in root.rglob("*") if p.is_file()}


def test_unchanged_site_is_not_rebuilt(site: Path):
    assert "built 1 stories" in build(site)
    before = stamps(site / "public")
    assert "up to date: 1 stories" in build(site)
    (site / STORY_PATH).touch()  # a new stamp, the same bytes
    assert "up to date" in build(site)
    assert stamps(site / "public") == before


def test_an_edit_rewrites_only_the_files_it_changes(site: Path):
    build(site)
    before = stamps(site / "public")
    story = site / STORY_PATH
    story.write_text(story.read_text().replace("When construction starts.", "When the digging starts."))
    assert "3 written" in build(site) or "written" in build(site)
    after = stamps(site / "public")
    changed = sorted(path for path in after if after[path] != before.get(path))
    assert changed == sorted(f"stories/2026-11-21/council-funds-the-quay-street-busway/index.{s}"
                             for s in ("html", "json", "md"))


def test_options_are_part_of_the_key(site: Path):
    build(site)
    assert "built" in build(site, "--base-url", "https://other.example.org")
    assert "https://other.example.org/" in (site / "public/index.html").read_text()


@pytest.mark.parametrize("damage", [b"not json", b'{"format": "ledgerpress-build-state-1"}', b"[]",
                                    b'{"format": "other", "key": "x"}', b"\xff\xfe"])
def test_a_damaged_or_foreign_cache_is_ignored(site: Path, damage: bytes):
    build(site)
    expected = listing(site / "public")
    (site / CACHE_DIR / STATE_FILE).write_bytes(damage)
    (site / "public" / "index.html").write_text("tampered")
    assert "built 1 stories" in build(site)
    assert listing(site / "public") == expected


VOCABULARY = ("harbour tram council budget vote street lane shelter ridership delay crew trench survey "
              "contract traffic signal corridor shop parking design hearing plan timber bridge river").split()


def _edit(root: Path, rng: random.Random, step: int) -> None:
    """One random edit of the kinds an editor makes."""
    stories = sorted((root / "content/stories").glob("*/*.md"))
    kind = rng.choice(["reword", "add", "remove", "manifest", "template", "config", "page"])
    if kind == "reword" and stories:
        path = rng.choice(stories)
        path.write_text(path.read_text().replace("Supporters", f"Backers {step}", 1).replace("Backers", "Allies", 1))
    elif kind == "add":
        day = 21 + step % 5
        front = STORY.split("\n---\n")[0].replace("Council funds the Quay Street busway", f"Quay Street follow up {step}")
        words = " ".join(rng.choice(VOCABULARY) for _ in range(60))
        text = (front.replace("2026-11-21T10:30:00Z", f"2026-11-{day}T10:30:00Z") + "\n---\n\n## Update\n\n"
                f"{words}. [cites: 1000000000000000001, 1000000000000000002]\n")
        (root / f"content/stories/2026-11-{day}").mkdir(exist_ok=True)
        (root / f"content/stories/2026-11-{day}/quay-street-follow-up-{step}.md").write_text(text)
    elif kind == "remove" and len(stories) > 1:
        rng.choice(stories[1:]).unlink()
    elif kind == "manifest":
        path = root / "content/manifests/1000000000000000002.json"
        path.write_text(path.read_text().replace("Transit ridership report", f"Transit ridership report {step}"))
    elif kind == "template":
        templates = root / "templates"
        templates.mkdir(exist_ok=True)
        (templates / "story.md").write_text(f"edition {step}: {{{{ story.title }}}}\n")
    elif kind == "config":
        toml = root / "content/site.toml"
        toml.write_text(toml.read_text().replace("page_size = ", f"page_size = {1 + step % 3}\n# was ", 1))
    elif kind == "page":
        (root / "content/pages/about.md").write_text(f"---\ntitle: About {step}\n---\nHello {step}.\n")


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_edits_give_the_same_bytes_as_a_cold_build(site: Path, tmp_path: Path, seed: int):
    rng = random.Random(seed)
    build(site)
    for step in range(6):
        _edit(site, rng, step)
        build(site)
        cold = tmp_path / f"cold-{step}"
        result = CliRunner().invoke(cli, ["build", "--root", str(site), "--no-search", "--out", str(cold)])
        assert result.exit_code == 0, result.output
        assert listing(site / "public") == listing(cold), f"step {step}"
