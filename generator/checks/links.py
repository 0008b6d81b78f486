"""LP060: every link is http, https, mailto or relative; markdown-it refuses the rest, so the source is searched."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from markdown_it import MarkdownIt, rules_inline
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token

from ..content.body import SAFE_SCHEMES, commonmark, link_is_safe, place_in_file
from ..content.findings import Finding
from ..content.models import Page, Story, StoryFile
from . import SiteIndex, rule

_SCHEME_NAME = re.compile(r"^[a-z][a-z0-9+.-]*$")
_ENTITY = re.compile(r"&#?\w+;")  # `&#106;avascript:` is javascript: to markdown-it
_LINKS = ("link_open", "image")


def _located(inner: Callable[[StateInline, bool], bool]) -> Callable[[StateInline, bool], bool]:
    """Wrap an inline link rule so the token it pushes remembers where in the source it began."""

    def run(state: StateInline, silent: bool) -> bool:
        start, count = state.pos, len(state.tokens)
        if not inner(state, silent):
            return False
        if not silent:
            token = next((t for t in state.tokens[count:] if t.type in _LINKS and "at" not in t.meta), None)
            if token is not None:
                token.meta.update(at=start, inline=state.src[state.pos - 1] in ")>")
        return True

    return run


def _scanner() -> MarkdownIt:
    """The body parser's twin that accepts every link, so the refused ones can be seen."""
    md = commonmark()
    for name in ("link", "image", "autolink"):
        md.inline.ruler.at(name, _located(getattr(rules_inline, name)))
    md.validateLink = lambda url: True  # type: ignore[method-assign]
    return md


SCANNER = _scanner()


def refused_links(text: str, line_offset: int = 0) -> list[tuple[str, int, int]]:
    """(url, file line, column) of each link, image, autolink or reference definition we would not render."""
    schemes = {word for word in _before_colons(text) if _SCHEME_NAME.fullmatch(word)} - {"cites", *SAFE_SCHEMES}
    if not schemes and not _ENTITY.search(text):
        return []  # nothing could be refused: skip the second parse
    env: dict = {}
    tokens = SCANNER.parse(text, env)
    lines = text.split("\n")
    found = []
    for token in (t for t in tokens if t.type == "inline"):
        for child in token.children or []:
            url = _url(child)
            if url is not None:
                row0 = token.map[0] if token.map else 0
                found.append((url, *place_in_file(token.content, child.meta["at"], row0, lines, line_offset)))
    for label in (*env.get("references", {}).values(), *env.get("duplicate_refs", [])):
        if not link_is_safe(label["href"]):
            found.append((label["href"], *_definition(label["map"][0], lines, line_offset)))
    return sorted(found, key=lambda item: (item[1], item[2]))


def _before_colons(text: str) -> set[str]:
    """The lower-cased run of scheme characters before each ':' (colons are few, so this is quick)."""
    found = set()
    at = text.find(":")
    while at != -1:
        start = at
        while start > 0 and (text[start - 1].isalnum() or text[start - 1] in "+.-"):
            start -= 1
        found.add(text[start:at].lower())
        at = text.find(":", at + 1)
    return found


def _url(child: Token) -> str | None:
    """The refused target of a link written in place (reference links are reported at their definition)."""
    if child.type not in _LINKS or not child.meta.get("inline"):
        return None
    url = str(child.attrs.get("href" if child.type == "link_open" else "src", ""))
    return None if link_is_safe(url) else url


def _definition(row: int, lines: list[str], offset: int) -> tuple[int, int]:
    """A reference definition is reported where its `[label]:` starts."""
    text = lines[row] if row < len(lines) else ""
    return offset + row + 1, text.find("[") + 1


@rule("LP060", "text", "a link with a scheme other than http, https, mailto, or a relative one")
def link_schemes(source: Story | StoryFile | Page, site: SiteIndex) -> Iterator[Finding]:
    allowed = ", ".join(SAFE_SCHEMES)
    for url, line, col in refused_links(source.body, source.body_line):
        shown = url if len(url) <= 40 else url[:39] + "…"
        yield Finding(source.path, line, col, "LP060", f"link to '{shown}' is not rendered: expected {allowed}, or a "
                      "relative link, e.g. [the minutes](https://council.example.org/minutes)")


_TAG_LIKE = re.compile(r"<[A-Za-z/!?]")  # what raw HTML starts with: bodies without one are not parsed again
_WITH_HTML = commonmark().enable(["html_block", "html_inline"])
_WITH_HTML.options["html"] = True


def raw_html(text: str, line_offset: int = 0) -> list[tuple[str, int, int]]:
    """(the HTML, file line, column) of each piece of raw HTML in a Markdown text, as CommonMark reads it."""
    if not _TAG_LIKE.search(text):
        return []
    lines = text.split("\n")
    found = []
    for token in _WITH_HTML.parse(text, {}):
        start, end = token.map if token.map else (0, len(lines))
        pieces = [token.content] if token.type == "html_block" else [
            child.content for child in token.children or [] if child.type == "html_inline"]
        row, col = start, 0  # each piece is looked for after the one before it: the same tag twice is two places
        for piece in pieces:
            first = piece.strip().split("\n")[0]
            where = _after(lines, first, row, col, end)
            if where is not None:
                row, col = where[0], where[1] + len(first)
            line, column = where or (start, 0)
            found.append((first, line_offset + line + 1, column + 1))
    return found


def _after(lines: list[str], text: str, row: int, col: int, end: int) -> tuple[int, int] | None:
    """The first (row, column) of `text` at or after (row, col), before row `end`."""
    for r in range(row, min(end, len(lines))):
        at = lines[r].find(text, col if r == row else 0)
        if at >= 0:
            return r, at
    return None


@rule("LP061", "text", "raw HTML in a body: not rendered in the HTML variant, and live in the Markdown variant")
def no_raw_html(source: Story | StoryFile | Page, site: SiteIndex) -> Iterator[Finding]:
    reported = set()
    for piece, line, col in raw_html(source.body, source.body_line):
        if line in reported:  # one finding a line: <b>…</b> is one mistake
            continue
        reported.add(line)
        shown = piece if len(piece) <= 40 else piece[:39] + "…"
        yield Finding(source.path, line, col, "LP061", f"raw HTML '{shown}' is not rendered (and index.md would "
                      "carry it live to a Markdown renderer with HTML on): expected Markdown, e.g. **bold**, or the "
                      "'<' escaped as '\\<'")
