"""The body: sections at ## headings, citing units, cite positions, safe rendering."""

from __future__ import annotations

from generator.content.body import link_is_safe, parse_body, render_block

BODY = """\
Lead paragraph. [cites: a]

## First

Two lines
of text. [cites: a, b]

- one [cites: a]
- two
  more [cites: b]

| k | v |
|---|---|
| x | 1 [cites: c] |
| y | 2 |
"""


def test_sections_blocks_and_units():
    body = parse_body(BODY, 10)
    assert [s.title for s in body.sections] == [None, "First"]
    assert [b.kind for b in body.sections[1].blocks] == ["paragraph", "list", "table"]
    units = body.units
    assert [(u.kind, u.line, u.cited_ids) for u in units] == [
        ("paragraph", 11, ["a"]), ("paragraph", 15, ["a", "b"]), ("item", 18, ["a"]), ("item", 19, ["b"]),
        ("row", 24, ["c"]), ("row", 25, [])]
    assert units[1].text == "Two lines of text."
    assert units[4].text == "x; 1" and units[4].col == 1  # the header row is not a unit; a row cites in any cell (read apart)


def test_cite_positions_are_file_lines_and_columns():
    body = parse_body(BODY, 10)
    assert [(c.ids, c.line, c.col) for c in body.cites] == [
        (("a",), 11, 17), (("a", "b"), 16, 10), (("a",), 18, 7), (("b",), 20, 8), (("c",), 24, 9)]


def test_block_markdown_is_the_source():
    body = parse_body(BODY)
    assert body.sections[1].blocks[1].markdown == "- one [cites: a]\n- two\n  more [cites: b]"


def test_cite_renders_as_link_to_ledger_row():
    block = parse_body("Text. [cites: m1, m2]\n").sections[0].blocks[0]
    html = render_block(block, {"sources": {"m1": (1, "First <source>"), "m2": (2, "Second")}})
    assert '<a class="cite" href="#manifest-m1" title="First &lt;source&gt;">1</a>' in html
    assert 'href="#manifest-m2"' in html


def test_raw_html_is_escaped_and_bad_links_are_not_rendered():
    block = parse_body('<script>alert(1)</script> [x](javascript:alert(1)) [y](https://ok.example) [cites: a]\n')
    html = render_block(block.sections[0].blocks[0], {})
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert 'href="javascript' not in html and 'href="https://ok.example"' in html


def test_link_schemes():
    assert link_is_safe("https://x.org") and link_is_safe("mailto:a@b.c") and link_is_safe("/rel/") and link_is_safe("#x")
    assert not link_is_safe("javascript:alert(1)") and not link_is_safe("data:text/html,x")
    assert not link_is_safe(" JavaScript:x")


def test_not_a_cite():
    body = parse_body("A [cites:a link](https://x.org) and [cite: b]. [cites: c]\n")
    assert [c.ids for c in body.cites] == [("a link",), ("c",)] or [c.ids for c in body.cites][-1] == ("c",)


def test_heading_anchors_are_unique():
    body = parse_body("## Same\n\nx [cites: a]\n\n## Same\n\ny [cites: a]\n")
    assert [s.anchor for s in body.sections] == ["same", "same-2"]


def test_tuned_parser_gives_markdown_its_own_tokens():
    """commonmark() leaves out rules and swaps the newline normalizer for speed: on text with CR LF, lone CR,
    NUL, raw HTML and every block kind it must give the tokens and HTML of the plain configuration."""
    from markdown_it import MarkdownIt

    from generator.content.body import commonmark
    from generator.content.cites import cites_plugin

    plain = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    plain.enable("table").use(cites_plugin)
    texts = [
        BODY,
        BODY.replace("\n", "\r\n"),
        BODY.replace("\n", "\r"),
        "a\r\r\nb\n\rc\0d <b>bold</b> <!-- c -->\r\n\r\n<div>\nblock\n</div>\n\n<?php x ?>\n\n<![CDATA[x]]>\n",
        "```\nfence\0\r\n```\n\n    code\n\n> quote <i>x</i> [cites: q]\n\n***\n\nSetext\n---\n\n[r]: http://x\n",
    ]
    tuned = commonmark()
    for text in texts:
        want, got = plain.parse(text, {}), tuned.parse(text, {})
        assert [t.as_dict() for t in got] == [t.as_dict() for t in want]
        assert tuned.render(text) == plain.render(text)
