"""The built demo site held to the tools the web judges it by: the Nu HTML Checker, axe-core in Chromium
(light and dark, 375 and 1280 px, with screenshots), the Atom and JSON Feed schemas, the sitemap protocols,
a link checker over every built file, and a search typed into the search page of a real browser."""

from __future__ import annotations

import contextlib
import functools
import http.server
import json
import re
import shutil
import sqlite3
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote, unquote, urljoin, urlsplit

import feedparser
import jsonschema
import pytest
from click.testing import CliRunner
from lxml import etree, html

from generator.cli import cli
from generator.content.config import load_config

REPO = Path(__file__).resolve().parent.parent
SCHEMAS = Path(__file__).parent / "schemas"
VNU = REPO / "node_modules" / "vnu-jar" / "build" / "dist" / "vnu.jar"
AXE = REPO / "node_modules" / "axe-core" / "axe.min.js"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
ARTIFACTS = REPO / "test-artifacts" / "screenshots"
WIDTHS = (375, 1280)
ATOM = "{http://www.w3.org/2005/Atom}"
SITEMAP = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
NEWS = "{http://www.google.com/schemas/sitemap-news/0.9}"
ISO_Z = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$")
INSTALL = "run `npm ci --ignore-scripts` in the repository root (see .ci/run)"


def _need(path: Path | str, what: str) -> None:
    if not Path(path).exists():
        pytest.fail(f"{what} is missing at {path}: {INSTALL if 'node_modules' in str(path) else 'see .ci/run'}")


@pytest.fixture(scope="module")
def public(tmp_path_factory) -> Path:
    """The demo site, built once for this module by `ledgerpress build`, as a user builds it, into a temporary
    folder (--force: from scratch, whatever the repository's cache holds)."""
    out = tmp_path_factory.mktemp("demo") / "public"
    result = CliRunner().invoke(cli, ["build", "--root", str(REPO), "--out", str(out), "--force"])
    assert result.exit_code == 0, result.output
    assert "LP901" not in result.output, "Pagefind did not run"
    return out


@pytest.fixture(scope="module")
def config():
    found, findings = load_config(REPO / "content" / "site.toml")
    assert found is not None, findings
    return found


@pytest.fixture(scope="module")
def page_types(public: Path) -> dict[str, str]:
    """{page type: URL path} for every kind of HTML page the issue names, found in the built site."""
    def first(pattern: str) -> str:
        found = sorted(public.glob(pattern))
        assert found, f"the demo has no {pattern}"
        return "/" + found[0].relative_to(public).as_posix().removesuffix("index.html")

    second = first("newsrooms/*/page/2/index.html")
    pictured = sorted(path for path in public.glob("stories/*/*/index.json")
                      if json.loads(path.read_text(encoding="utf-8"))["image"])
    assert pictured, "the demo has no story with a lead image"
    types = {
        "front": "/", "editions": "/editions/", "edition": first("editions/*/index.html"),
        "newsroom": second.removesuffix("page/2/"), "newsroom-page-2": second, "beat": first("beats/*/index.html"),
        "story": first("stories/*/*/index.html"), "page": first("terms/*/index.html"),
        "story-lead-image": "/" + pictured[0].parent.relative_to(public).as_posix() + "/",
        "author": first("authors/*/index.html"), "corrections": "/corrections/",
        "series": first("series/*/index.html"), "kind-index": "/tags/",
        "search": "/search/", "404": "/404.html",
    }
    if list(public.glob("manifests/*/index.html")):
        types["manifest"] = first("manifests/*/index.html")
    return types


def _file(public: Path, path: str) -> Path:
    return public / (path.lstrip("/") + "index.html" if path.endswith("/") else path.lstrip("/"))


# 7. Nu HTML Checker -------------------------------------------------------------------------------------------

def test_every_page_type_exists(public, page_types):
    for name, path in page_types.items():
        assert _file(public, path).is_file(), name


def test_nu_html_checker_finds_no_errors(public, page_types):
    _need(VNU, "vnu.jar")
    assert shutil.which("java"), "java is missing: apt-get install default-jre"
    pages = sorted(public.rglob("*.html"))
    assert {_file(public, p) for p in page_types.values()} <= set(pages)
    run = subprocess.run(["java", "-jar", str(VNU), "--errors-only", "--format", "json", "--stdout",
                          *map(str, pages)], capture_output=True, text=True, timeout=300)
    messages = json.loads(run.stdout)["messages"]
    shown = [f"{unquote(m.get('url', '')).split(str(public))[-1]}:{m.get('lastLine')}: {m.get('message')}"
             for m in messages]
    assert shown == [], "\n".join(shown)


# 8. axe-core in Chromium ---------------------------------------------------------------------------------------

@contextlib.contextmanager
def _serving(public: Path) -> Iterator[str]:
    """public/ over HTTP on a free loopback port, as any static server would serve it."""
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args) -> None:
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(public)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture(scope="module")
def server(public: Path):
    with _serving(public) as address:
        yield address


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    _need(CHROMIUM, "Chromium")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture(scope="module")
def search_word(public: Path) -> tuple[str, str]:
    """(a word from one demo story's title that no other title has, that story's URL path)."""
    titles = {}
    for path in sorted(public.glob("stories/*/*/index.json")):
        story = json.loads(path.read_text(encoding="utf-8"))
        titles[story["path"]] = re.findall(r"[a-z]{7,}", story["title"].lower())
    for story_path, words in titles.items():
        for word in words:
            if not any(word in other for key, other in titles.items() if key != story_path):
                return word, story_path
    pytest.fail("no demo story has a title word of its own")


def _visit(page, server: str, name: str, path: str, word: str) -> None:
    if name == "search":
        page.goto(f"{server}{path}?q={quote(word)}")
        page.wait_for_selector("#search-results li", timeout=15_000)
    else:
        page.goto(server + path)
    page.wait_for_load_state("load")


AXE_RUN = """async () => {
  const result = await axe.run(document, {resultTypes: ['violations']});
  return result.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.slice(0, 4).map(n => n.target.join(' ') + ' ' + n.failureSummary.replace(/\\s+/g, ' '))}));
}"""


@pytest.mark.parametrize("width", WIDTHS)  # (four tests rather than two long ones: the suite's workers share them)
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_no_violations_and_screenshots_are_saved(browser, server, page_types, search_word, scheme, width):
    _need(AXE, "axe-core")
    found = []
    context = browser.new_context(viewport={"width": width, "height": 900}, color_scheme=scheme)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    for name, path in page_types.items():
        _visit(page, server, name, path, search_word[0])
        page.add_script_tag(path=str(AXE))
        for violation in page.evaluate(AXE_RUN):
            found.append(f"{name} {width}px {scheme}: {violation['id']} ({violation['impact']}) "
                         f"{violation['help']}: {violation['nodes']}")
        shot = ARTIFACTS / scheme / f"{name}-{width}.png"
        shot.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(shot), full_page=True)
        assert shot.stat().st_size > 0
    context.close()
    assert errors == [], errors
    assert found == [], "\n".join(found)


LAYOUT = """() => {
  const tops = [...document.querySelectorAll('nav.sections a')].map(a => Math.round(a.getBoundingClientRect().top));
  const nav = document.querySelector('nav.sections').getBoundingClientRect();
  const body = [...document.querySelectorAll('article.story section.body')].pop().getBoundingClientRect();
  const sources = document.querySelector('#sources').getBoundingClientRect();
  const first = document.querySelector('article.story section.body p').getBoundingClientRect();
  return {rows: new Set(tops).size, navHeight: nav.height, bodyEnd: body.bottom + scrollY,
          sourcesTop: sources.top + scrollY, firstParagraph: first.top + scrollY,
          verifyOpen: !!document.querySelector('details.verify[open]'),
          overflow: document.documentElement.scrollWidth > innerWidth};
}"""


def test_on_a_phone_the_nav_is_one_line_and_the_article_comes_first(browser, server, page_types):
    context = browser.new_context(viewport={"width": 375, "height": 800})
    page = context.new_page()
    page.goto(server + page_types["story-lead-image"])
    found = page.evaluate(LAYOUT)
    context.close()
    assert found["rows"] == 1 and found["navHeight"] < 50, found  # one line that scrolls sideways
    assert not found["overflow"], found  # the page itself never scrolls sideways
    assert found["firstParagraph"] < 2000 and found["bodyEnd"] < found["sourcesTop"], found
    assert not found["verifyOpen"], found


READING = """() => {
  const view = document.documentElement.clientWidth;
  const nav = document.querySelector('nav.sections .wrap');
  const unreachable = [];
  for (const link of document.querySelectorAll('nav.sections a')) {
    link.scrollIntoView({block: 'nearest', inline: 'nearest'});
    const box = link.getBoundingClientRect();
    if (box.left < -0.5 || box.right > view + 0.5) unreachable.push(link.textContent);
  }
  nav.scrollLeft = 0;
  const scrolls = nav.scrollWidth > nav.clientWidth;
  const showsMore = scrolls ? getComputedStyle(nav).scrollbarWidth !== 'none'
                              && getComputedStyle(nav).maskImage.includes('gradient') : true;
  const alone = [];
  for (const mark of document.querySelectorAll('sup.cites')) {
    const before = mark.previousSibling;
    if (!before) continue;
    const range = document.createRange();
    range.selectNodeContents(before);
    const rects = [...range.getClientRects()].filter(r => r.width > 0);
    if (!rects.length) continue;
    const last = rects[rects.length - 1], own = mark.getBoundingClientRect();
    if (own.top > last.bottom - 2) alone.push(mark.textContent);
  }
  const broken = [...document.querySelectorAll('.meta .when')]
    .filter(w => new Set([...w.getClientRects()].map(r => Math.round(r.top))).size > 1)
    .map(w => w.textContent);
  return {unreachable, scrolls, showsMore, alone, broken, marks: document.querySelectorAll('sup.cites').length};
}"""


@pytest.mark.parametrize("width", [390, 1280])
def test_every_section_is_reachable_and_no_marker_or_date_is_left_alone_on_a_line(browser, server, page_types,
                                                                                  width):
    """At 390 px the sections were cut off mid-word with no sign that they scroll, a "[1]" marker could wrap
    onto a line of its own, and the byline broke between "Updated" and its date."""
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    found = []
    for name in ("story", "story-lead-image", "front"):
        page.goto(server + page_types[name])
        for narrow in (width, 330):  # (and narrower still, where more lines break)
            page.set_viewport_size({"width": narrow, "height": 900})
            read = page.evaluate(READING)
            found.append((name, narrow, read))
            assert not read["unreachable"] and read["showsMore"], (name, narrow, read)
            assert not read["alone"] and not read["broken"], (name, narrow, read)
    context.close()
    assert any(read["marks"] for _, _, read in found)
    assert any(read["scrolls"] for _, narrow, read in found if narrow < 400) or width > 400


# 11. Search in the browser ----------------------------------------------------------------------------------

SHIFTS = """() => new Promise(resolve => {
  let total = 0;
  new PerformanceObserver(list => { for (const shift of list.getEntries()) if (!shift.hadRecentInput) total += shift.value; })
    .observe({type: 'layout-shift', buffered: true});
  setTimeout(() => resolve(total), 300);
})"""


@pytest.mark.parametrize("width", [390, 1280])
def test_the_search_page_does_not_shift_while_its_results_load(browser, server, search_word, width):
    """Its layout shifted by 0.2 (Lighthouse's CLS) as the results came in below the form."""
    context = browser.new_context(viewport={"width": width, "height": 800})
    page = context.new_page()
    page.goto(f"{server}/search/?q={quote(search_word[0])}")
    page.wait_for_selector("#search-results li", timeout=15_000)
    shifted = page.evaluate(SHIFTS)
    context.close()
    assert shifted < 0.01, shifted


def test_search_page_finds_a_story_by_a_word_from_it(browser, server, search_word):
    word, story_path = search_word
    context = browser.new_context()
    page = context.new_page()
    page.goto(f"{server}/search/")
    page.fill("#search-input", word)
    page.press("#search-input", "Enter")
    page.wait_for_selector(f'#search-results a[href="{story_path}"]', timeout=15_000)
    assert word in page.url
    # typing and Enter may both start a search: wait for the last one to say how many it found
    page.wait_for_function("document.getElementById('search-status').textContent.includes('result')",
                           timeout=15_000)
    assert f'href="{story_path}"' in page.inner_html("#search-results")
    context.close()


def test_search_finds_an_edited_storys_new_words_after_an_incremental_build(browser, tmp_path):
    """The edited story's shard is indexed again; the others, kept from the first build, still answer."""
    site = tmp_path / "site"
    shutil.copytree(REPO / "content", site / "content")
    runner = CliRunner()
    every = ["--now", "2030-01-01T00:00:00Z"]  # the demo's scheduled story too: the newest story is built
    assert runner.invoke(cli, ["build", "--root", str(site), *every]).exit_code == 0
    stories = sorted((site / "content" / "stories").glob("*/*.md"))
    oldest, newest = stories[0], stories[-1]
    text = newest.read_text(encoding="utf-8")
    heading = text.index("\n## ", text.index("\n---", 4))
    paragraph = text.index("\n\n", heading + 1) + 2  # the first paragraph under the first heading
    newest.write_text(text[:paragraph] + "Quixotrable: " + text[paragraph:], encoding="utf-8")
    rebuilt = runner.invoke(cli, ["build", "--root", str(site), *every])
    assert rebuilt.exit_code == 0, rebuilt.output
    public = site / "public"
    context = browser.new_context()
    page = context.new_page()
    with _serving(public) as address:
        for word, story in (("quixotrable", newest), (_own_word(public, oldest), oldest)):
            page.goto(f"{address}/search/?q={quote(word)}")
            page.wait_for_selector(f'#search-results a[href="/stories/{story.parent.name}/{story.stem}/"]',
                                   timeout=15_000)
    context.close()


def _own_word(public: Path, story: Path) -> str:
    """A word of this story's title that no other story's title has."""
    titles = {path.parent.name: json.loads(path.read_text())["title"].lower()
              for path in public.glob("stories/*/*/index.json")}
    for word in re.findall(r"[a-z]{6,}", titles[story.stem]):
        if not any(word in title for slug, title in titles.items() if slug != story.stem):
            return word
    pytest.fail(f"{story.name} has no title word of its own")


def test_search_index_was_built_into_public(public):
    bundles = json.loads((public / "pagefind" / "shards.json").read_text())["bundles"]
    assert len(bundles) >= 2 and (public / bundles[0].strip("/") / "pagefind.js").is_file()
    for bundle in bundles:
        assert list((public / bundle.strip("/")).glob("index/*.pf_index"))
        assert list((public / bundle.strip("/")).glob("fragment/*.pf_fragment"))


# 9. Feeds and sitemaps ------------------------------------------------------------------------------------

def _feeds(public: Path, name: str) -> list[Path]:
    return [public / name, *sorted(public.glob(f"newsrooms/*/{name}")), *sorted(public.glob(f"authors/*/{name}"))]


def test_atom_feeds_validate_against_rfc_4287(public):
    assert shutil.which("jing"), "jing is missing: apt-get install jing"
    feeds = [*_feeds(public, "feed.xml"), public / "corrections" / "feed.xml"]
    run = subprocess.run(["jing", "-c", str(SCHEMAS / "atom.rnc"), *map(str, feeds)], capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr


def test_atom_feeds_parse_and_name_an_author(public):
    for path in _feeds(public, "feed.xml"):
        parsed = feedparser.parse(path.read_bytes())
        assert not parsed.bozo, (path, parsed.get("bozo_exception"))
        tree = etree.parse(str(path))
        feed_author = tree.find(f"{ATOM}author/{ATOM}name") is not None
        entries = tree.findall(f"{ATOM}entry")
        assert feed_author or all(e.find(f"{ATOM}author/{ATOM}name") is not None for e in entries), path
        for entry, parsed_entry in zip(entries, parsed.entries):
            assert parsed_entry.id == entry.findtext(f"{ATOM}id") and parsed_entry.summary
            assert len(entry.findall(f"{ATOM}category")) == 2


def test_feedparser_reads_the_story_whole_and_opens_the_html_page(public, config):
    for path in _feeds(public, "feed.xml") + sorted(public.glob("authors/*/feed.xml")):
        parsed = feedparser.parse(path.read_bytes())
        assert parsed.feed.link.endswith("/") and not parsed.feed.link.endswith("feed.json"), path
        for entry in parsed.entries:
            assert entry.link == entry.id and entry.link.endswith("/"), (path, entry.link)
            body = entry.content[0]
            assert body.type == "text/html" and "<h2>" in body.value and "#manifest-" in body.value, (path, entry.link)
            assert entry.authors, (path, entry.link)


def _newsboat_urls(server: str, feed: str, tmp_path: Path) -> tuple[list[str], list[str]]:
    """Debian's newsboat reads one feed into a cache of its own: (each item's URL, the feed's home URL)."""
    assert shutil.which("newsboat"), "newsboat is missing: apt-get install newsboat (see .ci/run)"
    folder = tmp_path / feed.strip("/").replace("/", "-")
    folder.mkdir()
    (folder / "urls").write_text(f"{server}/{feed}\n")
    run = subprocess.run(["newsboat", "-u", str(folder / "urls"), "-c", str(folder / "cache.db"), "-x", "reload"],
                         capture_output=True, text=True, timeout=120, env={"HOME": str(folder), "PATH": "/usr/bin:/bin"})
    assert run.returncode == 0, run.stdout + run.stderr
    with sqlite3.connect(folder / "cache.db") as cache:
        items = [row[0] for row in cache.execute("SELECT url FROM rss_item ORDER BY id")]
        homes = [row[0] for row in cache.execute("SELECT url FROM rss_feed")]
    return items, homes


def test_newsboat_opens_the_html_page_of_every_entry(public, server, config, tmp_path):
    author = sorted(public.glob("authors/*/feed.xml"))[0].relative_to(public).as_posix()
    for feed in ("feed.xml", "newsrooms/city-desk/feed.xml", author):
        items, homes = _newsboat_urls(server, feed, tmp_path)
        assert items and all(url.startswith(config.url("/stories/")) and url.endswith("/") for url in items), items
        assert homes == [config.url("/" + feed.removesuffix("feed.xml"))]
    items, homes = _newsboat_urls(server, "corrections/feed.xml", tmp_path)
    assert items and all(re.search(r"/#correction-\d+$", url) for url in items), items
    assert homes == [config.url("/corrections/")]


def test_json_feeds_validate_against_json_feed_1_1(public):
    schema = json.loads((SCHEMAS / "jsonfeed-1.1.schema.json").read_text(encoding="utf-8"))
    validator = jsonschema.Draft202012Validator(schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
    for path in _feeds(public, "feed.json"):
        document = json.loads(path.read_text(encoding="utf-8"))
        assert [e.message for e in validator.iter_errors(document)] == [], path
        assert document["items"], path


def _sitemap_urls(path: Path) -> list[etree._Element]:
    tree = etree.parse(str(path))
    assert tree.getroot().tag == f"{SITEMAP}urlset"
    return tree.getroot().findall(f"{SITEMAP}url")


def test_sitemap_lists_every_page_with_a_lastmod(public, config):
    urls = _sitemap_urls(public / "sitemap.xml")
    locs = [url.findtext(f"{SITEMAP}loc") for url in urls]
    assert len(locs) == len(set(locs)) <= 50_000
    for url in urls:
        assert ISO_Z.match(url.findtext(f"{SITEMAP}lastmod")), etree.tostring(url)
        assert [child.tag for child in url] == [f"{SITEMAP}loc", f"{SITEMAP}lastmod"]
    pages = {config.url("/" + p.relative_to(public).as_posix().removesuffix("index.html"))
             for p in public.rglob("*.html")}
    assert set(locs) == pages - {config.url("/404.html"), config.url("/search/")}


def test_news_sitemap_holds_the_last_48_hours(public, config):
    urls = _sitemap_urls(public / "news-sitemap.xml")
    stories = json.loads((public / "stories.json").read_text(encoding="utf-8"))["stories"]
    assert urls and len(urls) <= 1000
    newest = max(story["published"] for story in stories)
    for url in urls:
        news = url.find(f"{NEWS}news")
        publication = news.find(f"{NEWS}publication")
        assert publication.findtext(f"{NEWS}name") == config.title
        assert re.fullmatch(r"[a-z]{2,3}|zh-cn|zh-tw", publication.findtext(f"{NEWS}language"))
        assert ISO_Z.match(news.findtext(f"{NEWS}publication_date")) and news.findtext(f"{NEWS}title")
        assert url.findtext(f"{SITEMAP}loc").startswith(config.url("/stories/"))
    assert urls[0].findtext(f"{SITEMAP}loc") == max(stories, key=lambda s: (s["published"], s["url"]))["url"]
    assert newest == urls[0].find(f"{NEWS}news").findtext(f"{NEWS}publication_date")


# 10. Links ------------------------------------------------------------------------------------------------

LINK_ATTRIBUTES = {"a": "href", "link": "href", "script": "src", "img": "src", "source": "src", "iframe": "src",
                   "form": "action"}


def broken_links(public: Path, base_url: str) -> list[str]:
    """Every href/src in every built HTML file that points into the site at a missing file or #fragment."""
    base = urlsplit(base_url.rstrip("/") + "/")
    ids: dict[Path, set[str]] = {}
    broken = []
    for page in sorted(public.rglob("*.html")):
        address = base_url.rstrip("/") + "/" + page.relative_to(public).as_posix().removesuffix("index.html")
        for element in html.parse(str(page)).getroot().iter(*LINK_ATTRIBUTES):
            target = element.get(LINK_ATTRIBUTES[element.tag])
            if target is None or target.startswith(("mailto:", "data:", "javascript:")):
                continue
            url = urlsplit(urljoin(address, target))
            if (url.scheme, url.netloc) != (base.scheme, base.netloc):
                continue
            found = _target_file(public, unquote(url.path), base.path)
            where = f"{page.relative_to(public)}: {target}"
            if found is None:
                broken.append(f"{where} (no such file)")
            elif url.fragment and found.suffix == ".html" and url.fragment not in _ids(found, ids):
                broken.append(f"{where} (no id {url.fragment!r})")
    return broken


def _target_file(public: Path, path: str, base_path: str) -> Path | None:
    if not path.startswith(base_path):
        return None
    relative = path[len(base_path):]
    candidate = public / relative / "index.html" if relative.endswith("/") or not relative else public / relative
    return candidate if candidate.is_file() else None


def _ids(page: Path, cache: dict[Path, set[str]]) -> set[str]:
    if page not in cache:
        root = html.parse(str(page)).getroot()
        cache[page] = {e.get("id") for e in root.iter() if e.get("id")} | {e.get("name") for e in root.iter("a")
                                                                           if e.get("name")}
    return cache[page]


def test_no_broken_internal_links_or_fragments(public, config):
    assert broken_links(public, config.base_url) == []


def test_a_site_under_a_path_links_within_that_path(tmp_path):
    """A site served below a path of its host (a project's GitHub Pages, a newsroom's /edition/): every link
    starts with that path, and every one of them resolves."""
    base_url = "https://news.example.org/edition/"
    out = tmp_path / "public"
    result = CliRunner().invoke(cli, ["build", "--root", str(REPO), "--out", str(out), "--force",
                                      "--base-url", base_url])
    assert result.exit_code == 0, result.output
    assert broken_links(out, base_url) == []
    front = html.parse(str(out / "index.html")).getroot()
    assert {link.get("href")[:9] for link in front.iter("a") if link.get("href", "").startswith("/")} == {"/edition/"}


def test_link_checker_catches_a_broken_link_and_fragment(tmp_path, config):
    (tmp_path / "a").mkdir()
    (tmp_path / "index.html").write_text('<p id="here"><a href="/a/">ok</a> <a href="#here">ok</a> '
                                         '<a href="/missing/">bad</a> <a href="/a/#nowhere">bad</a> '
                                         f'<a href="{config.url("/a/")}">ok</a> '
                                         '<a href="https://elsewhere.example/">ok</a>')
    (tmp_path / "a" / "index.html").write_text("<p>a</p>")
    assert broken_links(tmp_path, config.base_url) == ["index.html: /missing/ (no such file)",
                                                       "index.html: /a/#nowhere (no id 'nowhere')"]


def test_every_teaser_of_a_pictured_story_shows_a_thumbnail(public):
    """List pages and the front page showed no image but the lead's, although six stories have one."""
    from lxml import html as lxml_html

    pictured = {json.loads(path.read_text(encoding="utf-8"))["path"] for path in public.glob("stories/*/*/index.json")
                if json.loads(path.read_text(encoding="utf-8"))["image"]}
    assert len(pictured) >= 2
    for listing in ["index.html", *(p.relative_to(public).as_posix() for p in public.glob("newsrooms/*/index.html"))]:
        page = lxml_html.parse(str(public / listing)).getroot()
        for teaser in page.cssselect("article.teaser"):
            path = teaser.cssselect(".teaser-title a")[0].get("href")
            images = teaser.cssselect("img")
            assert bool(images) == (path in pictured), (listing, path)
            for image in images:
                assert image.get("width") and image.get("height") and image.get("srcset") and image.get("sizes")
                assert image.get("alt")
