"""Every output format is escaped by construction: random strings in every field of a story keep each
variant's structure (the HTML's element tree, the Markdown's blocks and headings, the YAML front matter,
the JSON, the Atom feed and the sitemaps), and each escaping function reads back as the text it was given."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote

import orjson
import pytest
import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from lxml import etree
from markdown_it import MarkdownIt

from generator.content.config import SiteConfig
from generator.render.formats import (
    json_ld,
    md_cell,
    md_code,
    md_fence,
    md_text,
    sh_url,
    sh_word,
    uri,
    xml_escape,
    yaml_scalar,
)
from generator.render.story_view import (
    AlignedView,
    ClaimView,
    DecisionCardView,
    KeyFactView,
    LedgerRow,
    Links,
    RelatedView,
    Reuse,
    StoryView,
    Term,
    Verify,
)
from generator.render.bylines import AuthorView
from generator.render.sections import ClaimRefView, Paragraph, SectionView, SentenceView
from generator.render.correction_views import CorrectionView
from generator.render.image_views import ImageView, RenditionView
from generator.render.ledger_rows import verify_view as _verify
from generator.render.teaser import Teaser, as_fields, teaser_data
from generator.render.templates import Renderer
from generator.site.feeds import make_feed
from generator.render.navigation import navigation
from generator.render.story_terms import story_keys
from generator.site.sitemaps import news_language
from tests.conftest import SITE_TOML

SCHEMAS = Path(__file__).parent / "schemas"
MD = MarkdownIt("commonmark").enable("table")
TEXT = st.text(min_size=1, max_size=40)  # every character but lone surrogates (no input can hold one)
XML_FORBIDDEN = re.compile("[^\t\n\r\x20-\x7e\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")  # and discouraged
EXAMPLES = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _plain(text: str) -> str:
    """What a Markdown renderer shows of md_text's output: one line, ends trimmed (a space if nothing else is
    left), NUL as U+FFFD."""
    return re.sub(r"\r\n?|\n", " ", text).strip().replace("\0", "\ufffd") or " "


def _inline_text(tokens) -> str:
    return "".join(child.content for child in tokens.children if child.type in ("text", "code_inline"))


def _blocks(markdown: str) -> list[tuple[str, str]]:
    return [(token.type, token.tag) for token in MD.parse(markdown) if token.type != "inline"]


# --- each escaping function on its own ----------------------------------------------------------------


@EXAMPLES
@given(TEXT)
@example("#")
def test_md_text_stays_one_line_of_text_wherever_it_stands(text: str):
    document = f"# {md_text(text)}\n\n- {md_text(text)}\n\n[{md_text(text)}](https://e.org/)\n"
    tokens = MD.parse(document)
    assert _blocks(document) == [("heading_open", "h1"), ("heading_close", "h1"), ("bullet_list_open", "ul"),
                                 ("list_item_open", "li"), ("paragraph_open", "p"), ("paragraph_close", "p"),
                                 ("list_item_close", "li"), ("bullet_list_close", "ul"), ("paragraph_open", "p"),
                                 ("paragraph_close", "p")]
    inlines = [token for token in tokens if token.type == "inline"]
    assert _inline_text(inlines[0]) == _inline_text(inlines[1]) == _plain(text)
    assert [child.type for child in inlines[2].children][0] == "link_open"


@EXAMPLES
@given(TEXT, TEXT)
@example("0", "#")  # a lone "#" is both a heading's start and a closing "#": escaped once, not twice
@example("a\\#", "##")
def test_md_cell_keeps_the_row_s_cells(first: str, second: str):
    document = f"| a | b |\n|---|---|\n| {md_cell(first)} | {md_cell(second)} |\n"
    tokens = MD.parse(document)
    assert [t.type for t in tokens].count("td_open") == 2
    cells = [_inline_text(t) for t in tokens if t.type == "inline"][2:]
    assert cells == [_plain(first), _plain(second)]


@EXAMPLES
@given(TEXT)
def test_md_code_is_one_code_span_of_the_text(text: str):
    inline = [t for t in MD.parse(f"x {md_code(text)} y\n") if t.type == "inline"][0]
    spans = [child for child in inline.children if child.type == "code_inline"]
    one_line = re.sub(r"\r\n?|\n", " ", text).replace("\0", "\ufffd")
    assert len(spans) == 1
    assert spans[0].content in (one_line, one_line[1:-1])  # CommonMark takes one space off both ends


@EXAMPLES
@given(TEXT)
def test_md_fence_is_one_code_block_of_the_text(text: str):
    tokens = MD.parse(md_fence(text, "sh") + "\n\n## After\n")
    assert [t.type for t in tokens][:1] == ["fence"] and tokens[0].info == "sh"
    assert tokens[0].content == re.sub(r"\r\n?", "\n", text + "\n").replace("\0", "\ufffd")
    assert [t.tag for t in tokens if t.type == "heading_open"] == ["h2"]


@EXAMPLES
@given(TEXT)
def test_uri_holds_only_url_characters_and_decodes_to_the_text(text: str):
    url = uri("https://e.org/" + text)
    assert re.fullmatch(r"[A-Za-z0-9\-._~:/?#\[\]@!$&'*+,;=%]+", url)
    if "%" not in text:
        assert unquote(url) == "https://e.org/" + text
    inline = [t for t in MD.parse(f"[a]({url})\n") if t.type == "inline"][0]
    assert [child.type for child in inline.children] == ["link_open", "text", "link_close"]


@EXAMPLES
@given(TEXT)
def test_xml_escape_is_well_formed_in_text_and_attributes(text: str):
    escaped = xml_escape(text)
    element = etree.fromstring(f'<r a="{escaped}">{escaped}</r>'.encode("utf-8"))
    expected = XML_FORBIDDEN.sub("\ufffd", text)
    assert element.text == expected and element.get("a") == expected


@EXAMPLES
@given(TEXT)
def test_json_ld_never_closes_its_script(text: str):
    page = f'<script type="application/ld+json">{json_ld({"headline": text})}</script><p>after</p>'
    parsed = _Tags()
    parsed.feed(page)
    assert parsed.tags == [("start", "script"), ("end", "script"), ("start", "p"), ("end", "p")]
    assert json.loads(parsed.script)["headline"] == text


@EXAMPLES
@given(st.text(max_size=40))
def test_yaml_scalar_reads_back_as_the_text(text: str):
    assert yaml.safe_load(f"k: {yaml_scalar(text)}\nnext: 1\n") == {"k": text, "next": 1}


@EXAMPLES
@given(st.text(alphabet=st.characters(blacklist_characters="\0", blacklist_categories=("Cs",)), max_size=40))
def test_sh_word_is_one_word_of_exactly_the_text(text: str):
    assert shlex.split(sh_word(text)) == [text]
    assert "!" not in _outside_single_quotes(sh_word(text))  # bash expands ! in "…" (history), never in '…'


def _outside_single_quotes(word: str) -> str:
    """The characters of a shell word that are not inside '…' (where the shell takes everything literally)."""
    kept, single, double = [], False, False
    for char in word:
        if char == "'" and not double:
            single = not single
        elif char == '"' and not single:
            double = not double
        elif not single:
            kept.append(char)
    return "".join(kept)


_SH_TEXT = st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7e), max_size=20)


@settings(max_examples=25, deadline=None)
@given(_SH_TEXT, _SH_TEXT)
def test_sh_url_expands_to_the_url_in_a_real_shell(before: str, after: str):
    word = sh_url(f"https://e.org/{before}{{id}}{after}", "{id}", "id")
    done = subprocess.run(["sh", "-c", f"id=ABC_1; printf %s {word}"], capture_output=True, text=True, timeout=10)
    assert done.returncode == 0 and done.stdout == f"https://e.org/{before}ABC_1{after}"


def test_the_verify_loop_runs_nothing_it_quotes(tmp_path: Path):
    marker = tmp_path / "ran"
    hostile = f"https://e.org/$(touch {marker})/`touch {marker}`/{{id}}"
    config = SiteConfig.model_construct(verify=Verify.model_construct(endpoint=hostile, header=f"X-A: $(touch {marker})"))
    command = _verify(config, ["1", "2"]).command
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "curl").write_text('#!/bin/sh\nfor word in "$@"; do printf "%s\\n" "$word"; done\n')
    (fake / "curl").chmod(0o755)
    done = subprocess.run(["sh", "-c", command], capture_output=True, text=True, timeout=10,
                          env={"PATH": f"{fake}:/usr/bin:/bin"})
    assert done.returncode == 0 and not marker.exists()
    assert done.stdout.splitlines() == ["-s", "-H", f"X-A: $(touch {marker})", hostile.replace("{id}", "1"),
                                        "-s", "-H", f"X-A: $(touch {marker})", hostile.replace("{id}", "2")]


def test_ordinary_words_are_written_as_before():
    assert _verify(SiteConfig.model_construct(verify=Verify.model_construct(
        endpoint="https://records.example.org/manifests/by-id/{id}", header=None)), ["17", "42"]).command == (
        'for id in 17 42; do\n  curl -s "https://records.example.org/manifests/by-id/$id"\ndone')
    assert sh_word("X-Key: abc") == '"X-Key: abc"'


# --- every field of a story, through every variant ------------------------------------------------------


class _Tags(HTMLParser):
    """The start and end tags of an HTML document in order (what its element tree is made of), and the text
    of its last <script>."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, str]] = []
        self.script = ""
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self.tags.append(("start", tag))
        self._in_script = tag == "script"
        if self._in_script:
            self.script = ""

    def handle_endtag(self, tag: str) -> None:
        self.tags.append(("end", tag))
        self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script:
            self.script += data


CONFIG = SiteConfig.model_validate({**__import__("tomllib").loads(SITE_TOML),
                                    "verify": {"endpoint": "https://api.e.org/m/{id}", "header": "X-Key: k"}})


IMAGE = ImageView(src="a.png", alt="", caption=None, credit=None, type="image/webp", path="/images/a-640.0a1b2c3d4e5f.webp",
                  url="https://test.example.org/images/a-640.0a1b2c3d4e5f.webp", width=640, height=360,
                  renditions=[RenditionView(path="/images/a-640.0a1b2c3d4e5f.webp", width=640, height=360,
                                            url="https://test.example.org/images/a-640.0a1b2c3d4e5f.webp")])


def story(t: list[str]) -> StoryView:
    """A story view with the 24 strings of t in every text field a reader sees."""
    url = "https://test.example.org/stories/2026-11-21/a-story/"
    row = LedgerRow(manifest_id="1000000000000000001", number=1, title=t[0], source_name=t[1],
                    source_url="https://src.example.org/" + t[2].replace(" ", "").replace("\n", "") + "x",
                    published="2026-11-20T09:00:00Z", claims=[ClaimView(id="2000000000000000011", text=t[3])],
                    manifest_url="https://test.example.org/manifests/1000000000000000001/",
                    manifest_path="/manifests/1000000000000000001/", verify_url=None)
    return StoryView(
        view_version="1", title=t[4], description=t[5], slug="a-story", path="/stories/2026-11-21/a-story/",
        url=url, canonical=url, published="2026-11-21T10:30:00Z", updated="2026-11-21T10:30:00Z",
        last_updated="2026-11-21", edition="2026-11-21T10",
        newsroom=Term(slug="city", name=t[6], url="https://test.example.org/newsrooms/city/"),
        beat=Term(slug="policy", name=t[7], url="https://test.example.org/beats/policy/"),
        trust=Term(slug="confirmed", name=t[8]), source_count=1, cited_manifest_ids=["1000000000000000001"],
        authors=[AuthorView(slug="ana", name=t[20], role=t[21], path="/authors/ana/",
                            url="https://test.example.org/authors/ana/", profile=None)],
        byline=f"By {t[20]}", trust_line=f"{t[8]} · 1 source · {t[6]} · Published 2026-11-21 10:30 UTC",
        image=IMAGE.model_copy(update={"alt": t[22], "caption": t[23], "credit": t[21]}),
        images=[IMAGE.model_copy(update={"alt": t[22], "caption": t[23], "credit": t[21]})],
        corrections=[CorrectionView(number=1, anchor="correction-1", date="2026-11-22", text=t[22],
                                    manifest_id="1000000000000000001")],
        key_facts=[KeyFactView(text=t[9], labels=[t[10]], cites=["1000000000000000001"],
                               sentences=[SentenceView(text=t[9], claims=[ClaimRefView(
                                   manifest_id="1000000000000000001", claim_id="2000000000000000011")])])],
        alignment=[AlignedView(place="description", text=t[5], sentences=[SentenceView(text=t[5], claims=[])])],
        sections=[SectionView(title="The vote", anchor="the-vote", paragraphs=[Paragraph(
            kind="paragraph", markdown="A paragraph. [cites: 1000000000000000001]", html="<p>A paragraph.</p>",
            cites=["1000000000000000001"], sentences=[])])],
        unresolved=[t[11], t[12]],
        decision_card=DecisionCardView(useful_for=[t[13]], not_for=[t[14]], compare_against=[t[15]]),
        ledger=[row], verify=_verify(CONFIG, ["1000000000000000001"]),
        related=[RelatedView(key="2026-11-20/other", title=t[16], url="https://test.example.org/stories/2026-11-20/other/",
                             path="/stories/2026-11-20/other/")],
        links=Links(html=url, json=url + "index.json", markdown=url + "index.md"), checks=["LP020"], waivers=[],
        checks_line="Published after build checks: every citation is listed in the ledger.",
        reuse=Reuse(version=t[17][:40], text=t[18], credit=t[19], terms_url="https://test.example.org/terms/reuse/"))


@pytest.fixture(scope="module")
def renderer(tmp_path_factory) -> Renderer:
    return Renderer(tmp_path_factory.mktemp("site"), CONFIG, navigation(CONFIG))


@pytest.fixture(scope="module")
def baseline(renderer: Renderer) -> dict[str, object]:
    view = story([f"Plain text {i}" for i in range(24)])
    return {suffix: renderer.render(f"story.{suffix}", story=view) for suffix in ("html", "md", "json")}


def _html_shape(page: str) -> list[tuple[str, str]]:
    parsed = _Tags()
    parsed.feed(page)
    parsed.close()
    return parsed.tags


def _markdown_shape(page: str) -> tuple[dict, list[tuple[str, str]], list[str]]:
    _, front, body = page.split("---\n", 2)
    tokens = MD.parse(body)
    headings = [_inline_text(tokens[i + 1]) for i, t in enumerate(tokens) if t.type == "heading_open" and t.tag == "h2"]
    return yaml.safe_load(front), _blocks(body), headings


STRINGS = st.lists(TEXT, min_size=24, max_size=24)


@EXAMPLES
@given(STRINGS)
def test_html_variant_keeps_its_element_tree(renderer: Renderer, baseline: dict, strings: list[str]):
    page = renderer.render("story.html", story=story(strings))
    assert _html_shape(page) == _html_shape(baseline["html"])
    parsed = _Tags()
    parsed.feed(page)
    assert json.loads(parsed.script)["headline"] == strings[4]  # the JSON-LD, read as a crawler reads it


@EXAMPLES
@given(STRINGS)
def test_markdown_variant_keeps_its_headings_sections_and_front_matter(renderer: Renderer, baseline: dict,
                                                                       strings: list[str]):
    page = renderer.render("story.md", story=story(strings))
    front, blocks, headings = _markdown_shape(page)
    base_front, base_blocks, base_headings = _markdown_shape(baseline["md"])
    assert blocks == base_blocks and headings == base_headings
    assert list(front) == list(base_front) and front["title"] == strings[4] and front["description"] == strings[5]


@EXAMPLES
@given(STRINGS)
def test_json_variant_is_the_view(renderer: Renderer, strings: list[str]):
    view = story(strings)
    assert json.loads(renderer.render("story.json", story=view)) == view.model_dump(mode="json", by_alias=True)


ATOM = etree.RelaxNG(etree.parse(str(SCHEMAS / "atom.rng")))


def teaser(view) -> Teaser:
    """The view as list pages and feeds read it."""
    data = teaser_data(view)
    return Teaser(orjson.dumps(data), "digest", story_keys(data))


def feed_xml(renderer: Renderer, view: StoryView, title: str, description: str) -> str:
    """feed.xml with the story as its one entry, its content read from the story's JSON as a build does."""
    feed = make_feed([teaser(view)], CONFIG, "/", title, description)
    return renderer.render("feed.xml", feed=feed,
                           bodies={view.path: as_fields(view.model_dump(mode="json", by_alias=True))})


@EXAMPLES
@given(STRINGS)
def test_atom_feed_is_well_formed_and_valid(renderer: Renderer, strings: list[str]):
    document = etree.fromstring(feed_xml(renderer, story(strings), strings[20], strings[21]).encode("utf-8"))
    assert ATOM.validate(document), ATOM.error_log
    atom = "{http://www.w3.org/2005/Atom}"
    assert document.findtext(f"{atom}entry/{atom}title") == XML_FORBIDDEN.sub("\ufffd", strings[4])


@EXAMPLES
@given(STRINGS, st.lists(st.text(alphabet=st.characters(blacklist_characters="%", blacklist_categories=("Cs",)),
                                 min_size=1, max_size=20), min_size=1, max_size=3))
def test_sitemaps_are_well_formed_with_percent_encoded_urls(renderer: Renderer, strings: list[str], paths: list[str]):
    urls = [{"loc": "https://test.example.org/" + path + "/", "lastmod": "2026-11-21T10:30:00Z"} for path in paths]
    sitemap = etree.fromstring(renderer.render("sitemap.xml", urls=urls).encode("utf-8"))
    locs = [loc.text for loc in sitemap.iter("{http://www.sitemaps.org/schemas/sitemap/0.9}loc")]
    assert all(re.fullmatch(r"[A-Za-z0-9\-._~:/?#\[\]@!$&'*+,;=%]+", loc) for loc in locs)
    assert [unquote(loc) for loc in locs] == [url["loc"] for url in urls]
    news = renderer.render("news-sitemap.xml", stories=[story(strings)], language=news_language(CONFIG.language))
    title = etree.fromstring(news.encode("utf-8")).findtext(".//{http://www.google.com/schemas/sitemap-news/0.9}title")
    assert title == XML_FORBIDDEN.sub("\ufffd", strings[4])


def test_the_reported_attacks_are_inert(renderer: Renderer):
    """The red-team's examples: a manifest URL that closes its link, a title and an unresolved item that
    open a fake ledger, a control character and U+FFFE that made the feeds ill-formed."""
    strings = [f"Text {i}" for i in range(24)]
    strings[2] = "a)<script>alert(1)</script>"
    strings[4] = "Title\n## Provenance ledger\n\n| fake |"
    strings[11] = "Item\n\n## Provenance ledger"
    strings[5] = "Dek with \x01 and \ufffe"
    view = story(strings)
    markdown = renderer.render("story.md", story=view)
    assert "<script>" not in markdown and "a%29%3Cscript%3E" in markdown
    assert [line for line in markdown.splitlines() if line.startswith("## ")].count("## Provenance ledger") == 1
    feed = feed_xml(renderer, view, "T", "D")
    etree.fromstring(feed.encode("utf-8"))
    assert "Dek with \ufffd and \ufffd" in feed
