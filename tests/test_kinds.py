"""The kinds table (content/kinds.py): every kind's pages, its index page, the folder `check` and `build` agree
it takes, from its row alone."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from lxml import html

from generator.cli import cli
from generator.content.kinds import GENERATED_FOLDERS, KINDS, PAGED
from tests.conftest import build_in_memory, write_tree


def _page(files: dict[str, bytes], path: str) -> html.HtmlElement:
    return html.fromstring(files[path])


@pytest.mark.parametrize("kind", [kind for kind in PAGED])
def test_check_and_build_agree_that_a_page_cannot_take_a_kind_s_folder(site: Path, kind):
    """LP011 for a plain page where a kind's pages go (check and build alike), from the table alone."""
    folder = kind.prefix.strip("/")
    assert folder in GENERATED_FOLDERS
    write_tree(site, {f"content/pages/{folder}/x.md": "---\ntitle: X\n---\n\nText.\n"})
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
