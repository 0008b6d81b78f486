"""The kinds table (content/kinds.py): tags (terms from the front matter, declared nowhere) and series (declared
in site.toml, read in order) get their pages, index pages, feeds and links from their rows alone; `check` and
`build` agree on the folders a kind takes; an optional or many-valued kind is like any other."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from lxml import html

from generator.cli import cli
from generator.content.kinds import GENERATED_FOLDERS, KINDS, PAGED
from tests.conftest import SITE_TOML, STORY, STORY_PATH, build_in_memory, write_tree

SERIES = '\n[series]\nbusway = "The busway"\nbudget = "The budget"\n'
LATER = "content/stories/2026-11-22/the-busway-opens.md"


def _filed(text: str, front: str) -> str:
    return text.replace("trust: confirmed\n", f"trust: confirmed\n{front}")


@pytest.fixture
def filed(site: Path) -> Path:
    """Two stories, a day apart, in the busway series, with tags spelled two ways."""
    later = STORY.replace('"Council funds the Quay Street busway"', '"The busway opens"').replace(
        "2026-11-21T10:30:00Z", "2026-11-22T09:00:00Z").replace(
        "The council approved a busway budget", "The council opened the busway after approving a budget")
    return write_tree(site, {"content/site.toml": SITE_TOML + SERIES + '[checks]\nLP040 = "off"\n',  # (a follow-up)
                             STORY_PATH: _filed(STORY, 'tags: ["Transit", "Budget"]\nseries: busway\n'),
                             LATER: _filed(later, 'tags: ["transit", "Zoning"]\nseries: busway\n')})


def _page(files: dict[str, bytes], path: str) -> html.HtmlElement:
    return html.fromstring(files[path])


def test_tags_and_a_series_get_their_pages_index_pages_feeds_and_links(filed: Path):
    built = build_in_memory(filed, search=False)
    assert built.ok, [str(f) for f in built.findings]
    files = built.files
    tags = _page(files, "tags/index.html")
    assert [a.text for a in tags.cssselect(".term-index a")] == ["Budget", "transit", "Zoning"]  # by name, any case
    assert [a.get("href") for a in _page(files, "tags/transit/index.html").cssselect(".teaser-title a")] == [
        "/stories/2026-11-22/the-busway-opens/", "/stories/2026-11-21/council-funds-the-quay-street-busway/"]
    assert "tags/transit/feed.xml" in files and "tags/transit/feed.json" in files
    parts = _page(files, "series/busway/index.html")
    assert [a.get("href") for a in parts.cssselect(".series-parts .teaser-title a")] == [
        "/stories/2026-11-21/council-funds-the-quay-street-busway/", "/stories/2026-11-22/the-busway-opens/"]
    assert [p.text for p in parts.cssselect(".part")] == ["Part 1", "Part 2"]
    assert [a.text for a in _page(files, "series/index.html").cssselect(".term-index a")] == ["The busway", "The budget"]
    assert "series/budget/index.html" in files  # declared, with no story yet: a page saying so
    story = _page(files, "stories/2026-11-22/the-busway-opens/index.html")
    assert [a.get("href") for a in story.cssselect(".filed a")] == ["/tags/transit/", "/tags/zoning/",
                                                                   "/series/busway/"]
    data = files["stories/2026-11-22/the-busway-opens/index.json"]
    assert b'"terms": {' in data and b'"name": "The busway"' in data


def test_a_story_naming_no_tag_or_series_is_built_and_its_json_is_as_before(site: Path):
    """An optional kind a story names nothing of leaves no `terms` in its view, and takes no folder."""
    built = build_in_memory(site, search=False)
    assert built.ok
    assert b'"terms"' not in built.files["stories/2026-11-21/council-funds-the-quay-street-busway/index.json"]
    assert not [path for path in built.files if path.startswith(("tags/", "series/"))]


def test_a_series_not_declared_and_a_tag_no_address_can_be_made_of_are_lp010(site: Path):
    write_tree(site, {STORY_PATH: _filed(STORY, 'tags: ["!!!"]\nseries: busway\n')})
    result = CliRunner().invoke(cli, ["check", "--root", str(site)])
    lines = [line for line in result.stdout.splitlines() if "LP010" in line]
    assert result.exit_code == 1 and len(lines) == 2
    assert "series 'busway' is not declared in site.toml: expected busway declared under [series] there" in lines[1]
    assert "tag '!!!' has no letter or digit" in lines[0]


@pytest.mark.parametrize("kind", [kind for kind in PAGED])
def test_check_and_build_agree_that_a_page_cannot_take_a_kind_s_folder(site: Path, kind):
    """LP011 for a plain page where a kind's pages go (check and build alike), from the table alone."""
    folder = kind.prefix.strip("/")
    assert folder in GENERATED_FOLDERS
    write_tree(site, {f"content/pages/{folder}/x.md": "---\ntitle: X\n---\n\nText.\n",
                      "content/site.toml": SITE_TOML + SERIES,
                      STORY_PATH: _filed(STORY, 'tags: ["Transit"]\nseries: busway\n')})
    checked = CliRunner().invoke(cli, ["check", "--root", str(site)])
    assert checked.exit_code == 1 and f"LP011 URL /{folder}/x/ is taken by the generated folder {folder}/" in checked.stdout
    built = CliRunner().invoke(cli, ["build", "--root", str(site), "--no-search"])
    assert built.exit_code == 1 and "LP011" in built.stderr


def test_every_kind_with_pages_has_an_index_page_in_its_order(site: Path):
    built = build_in_memory(site, search=False)
    newsrooms = _page(built.files, "newsrooms/index.html")
    assert [a.text for a in newsrooms.cssselect(".term-index a")] == ["City", "Science"]  # as site.toml declares
    assert {path for path in built.files if path.count("/") == 1 and path.endswith("/index.html")} >= {
        f"{KINDS[name].plural}/index.html" for name in ("edition", "newsroom", "beat")}
