"""LP060: links we refuse to render are reported where they are written; the ones we render pass."""

from __future__ import annotations

from pathlib import Path

from generator.checks.links import raw_html, refused_links
from generator.engine import Options
from generator.engine.site_check import check_site
from generator.engine.inputs import Run
from tests.conftest import STORY, STORY_PATH, base_files, write_tree


def test_every_form_of_refused_link_is_found_at_its_place():
    text = ("[a](javascript:alert(1)) and ![b](data:image/png;base64,xx)\n"
            "| k | v |\n|---|---|\n| x | <vbscript:run> |\n\n"
            "> - quoted [c][ref] item\n\n"
            "[ref]: file:///etc/passwd\n")
    assert refused_links(text, 10) == [("javascript:alert(1)", 11, 1), ("data:image/png;base64,xx", 11, 30),
                                       ("vbscript:run", 14, 7), ("file:///etc/passwd", 18, 1)]


def test_links_we_render_are_not_reported():
    text = ("[a](https://x.org) [b](http://x.org) [c](mailto:a@b.org) <mailto:a@b.org> <https://x.org>\n"
            "[d](/rel/) [e](../up/) [f](#anchor) [g](page.html) ![h](/img.png) [i][j] Note: 10:30. [cites: m1]\n\n"
            "[j]: https://x.org/ref\n")
    assert refused_links(text) == []


def test_an_encoded_scheme_is_still_found():
    assert refused_links("[a](&#106;avascript:alert(1)) [cites: m1]\n") == [("javascript:alert(1)", 1, 1)]


def test_a_link_on_a_later_line_of_a_paragraph():
    assert refused_links("First line,\n  then [x](javascript:y) here.\n", 4) == [("javascript:y", 6, 8)]


def test_relative_and_mailto_links_pass_the_check(tmp_path: Path):
    story = STORY.replace("on a 9 to 2 vote.", "on a 9 to 2 vote ([minutes](/pages/minutes/), "
                                                  "[ask us](mailto:desk@test.example.org)).")
    root = write_tree(tmp_path, {**base_files(), STORY_PATH: story})
    assert [str(f) for f in check_site(Run(root, Options(drafts=True))).findings] == []


def test_pages_are_checked_too(tmp_path: Path):
    files = {**base_files(), "content/pages/about.md": '---\ntitle: "About"\n---\n\nWrite to [us](javascript:x).\n'}
    found = check_site(Run(write_tree(tmp_path, files), Options(drafts=True))).findings
    assert [str(f) for f in found if f.code == "LP060"] == [
        "content/pages/about.md:5:10: LP060 link to 'javascript:x' is not rendered: expected http, https, mailto, "
        "or a relative link, e.g. [the minutes](https://council.example.org/minutes)"]


def test_each_piece_of_raw_html_is_found_at_its_own_place_after_the_one_before():
    """The same tag on two lines of one paragraph is two places (LP061 reports one finding a line), and a
    paragraph of thousands of tags is read once, not once for every tag."""
    text = "A <b>bold</b> start\nand <b>again</b> here [cites: a]\n"
    assert raw_html(text, 10) == [("<b>", 11, 3), ("</b>", 11, 10), ("<b>", 12, 5), ("</b>", 12, 13)]
    many = "Start\n" + "\n".join(f"word <x{n}> more" for n in range(3000)) + " [cites: a]\n"
    assert [line for _, line, _ in raw_html(many)] == list(range(2, 3002))
