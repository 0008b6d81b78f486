"""The one MarkdownIt instance, and a story body split into sections, blocks and citing units."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.common.utils import escapeHtml
from markdown_it.token import Token

from .cites import cites_plugin
from .slugs import slugify

SAFE_SCHEMES = ("http", "https", "mailto")
_SCHEME = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.-]*):")
# What a link or a tag points at, in a block's Markdown: `](url "title")` (a pair of brackets in the URL
# allowed), `<https://…>`, `<b>`. None of it is wording, nor a figure the text states.
LINK_TARGETS = re.compile(r"""\]\([^()\s]*(?:\([^()\s]*\)[^()\s]*)*(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)|<[^>\s]*>""")


def link_is_safe(url: str) -> bool:
    """http, https, mailto or relative: the only links we render (and LP060 reports the rest)."""
    found = _SCHEME.match(url.strip())
    return found is None or found[1].lower() in SAFE_SCHEMES


def commonmark() -> MarkdownIt:
    """CommonMark with tables and `[cites: …]`, raw HTML off, tuned for speed without changing a token: the
    HTML rules (which return at once when HTML is off) are left out, and newlines are normalized by
    str.replace, which finds nothing to do in most files, instead of a regex substitution at every newline."""
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.enable("table").use(cites_plugin)
    md.disable(["html_block", "html_inline"])
    md.core.ruler.at("normalize", _normalize)
    md.core.ruler.push("row_headers", _row_headers)
    return md


def _row_headers(state: StateCore) -> None:
    """A table whose first header cell is empty labels its rows by their first cells, as newsrooms write a
    table of figures: those cells become row headers (th scope="row"), and the empty corner an ordinary cell,
    so that every cell of figures has a header a screen reader can read out with it."""
    tokens = state.tokens
    for start, token in enumerate(tokens):
        if token.type != "thead_open" or tokens[start + 3].type != "inline" or tokens[start + 3].content.strip():
            continue  # (thead_open, tr_open, th_open, inline: the first header cell's text)
        tokens[start + 2].tag = tokens[start + 4].tag = "td"
        in_body, first = False, False
        for at in range(start + 5, len(tokens)):
            kind = tokens[at].type
            if kind == "table_close":
                break
            in_body = in_body or kind == "tbody_open"
            if kind == "tr_open":
                first = in_body
            elif in_body and first and kind == "td_open":
                tokens[at].tag = "th"
                tokens[at].attrSet("scope", "row")
            elif in_body and first and kind == "td_close":
                tokens[at].tag, first = "th", False


def _normalize(state: StateCore) -> None:
    """markdown-it's own normalize rule: CR LF and lone CR become LF, NUL becomes U+FFFD."""
    text = state.src
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if "\0" in text:
        text = text.replace("\0", "\ufffd")
    state.src = text


def _markdown() -> MarkdownIt:
    md = commonmark()
    md.validateLink = link_is_safe  # type: ignore[method-assign]
    md.add_render_rule("image", _image)
    md.add_render_rule("text", _text)
    return md


def _text(self, tokens: list[Token], idx: int, options, env: dict) -> str:
    """Text as markdown-it writes it, but the space before a citation marker unbreakable: a line never
    starts with a lone "[1]"."""
    content = tokens[idx].content
    if content.endswith(" ") and idx + 1 < len(tokens) and tokens[idx + 1].type == "cite":
        return escapeHtml(content[:-1]) + "&nbsp;"
    return escapeHtml(content)


def _image(self, tokens: list[Token], idx: int, options, env: dict) -> str:
    """An image of content/images/ at the sizes the build writes it in (`env["images"]`, by src: the attributes
    of its <img>); any other is left as its alt text (LP070 reports it)."""
    token = tokens[idx]
    alt = escapeHtml(alt_text(token))
    found = env.get("images", {}).get(token.attrs.get("src"))
    if found is None:
        return f'<span class="image-missing">{alt}</span>'
    shown = "".join(f' {name}="{escapeHtml(str(value))}"' for name, value in found.items())
    return f'<img{shown} alt="{alt}" loading="lazy" decoding="async">'


MD = _markdown()


@dataclass(frozen=True)
class Cite:
    """One `[cites: …]` marker and where it stands in the file."""

    ids: tuple[str, ...]
    line: int
    col: int


_UNIT_NAMES = {"paragraph": "paragraph", "item": "list item", "row": "table row"}


@dataclass
class Unit:
    """A paragraph, list item or table row (below the header): the thing that must cite its sources."""

    kind: Literal["paragraph", "item", "row"]
    line: int
    col: int
    text: str = ""
    cites: list[Cite] = field(default_factory=list)
    source: list[tuple[int, int, str]] = field(default_factory=list)  # (file line, column, text) of its inline lines

    @property
    def what(self) -> str:
        """What a message calls it: "paragraph", "list item" or "table row"."""
        return _UNIT_NAMES[self.kind]

    @property
    def cited_ids(self) -> list[str]:
        return list(dict.fromkeys(i for cite in self.cites for i in cite.ids))

    @property
    def last_cite(self) -> Cite | None:
        return max(self.cites, key=lambda cite: (cite.line, cite.col), default=None)

    def after_last_cite(self) -> str:
        """The text that follows its last [cites: …] (empty when that ends it): what no citation covers."""
        last = self.last_cite
        if last is None:
            return ""
        after = []
        for line, col, text in self.source:
            if line == last.line:
                after.append(text[text.find("]", last.col - col) + 1:])
            elif line > last.line:
                after.append(text)
        return " ".join(after).strip()


@dataclass
class Block:
    """A top-level block, rendered whole; its citing units inside."""

    kind: str
    line: int
    markdown: str
    tokens: list[Token]
    units: list[Unit] = field(default_factory=list)

    @property
    def cited_ids(self) -> list[str]:
        return list(dict.fromkeys(i for unit in self.units for i in unit.cited_ids))


@dataclass
class Section:
    title: str | None
    anchor: str | None
    line: int
    blocks: list[Block] = field(default_factory=list)


@dataclass
class Body:
    sections: list[Section]
    cites: list[Cite]
    images: list[tuple[str, str, int, int]] = field(default_factory=list)  # (src, alt text, line, column)

    @property
    def units(self) -> list[Unit]:
        return [unit for section in self.sections for block in section.blocks for unit in block.units]


_BLOCK_KINDS = {"paragraph_open": "paragraph", "bullet_list_open": "list", "ordered_list_open": "list",
                "table_open": "table", "blockquote_open": "quote", "heading_open": "heading",
                "fence": "code", "code_block": "code", "hr": "rule"}


def parse_body(text: str, line_offset: int = 0) -> Body:
    """Sections open at `## ` (or `# `); line numbers are file lines (line_offset = lines before the body)."""
    lines = text.split("\n")
    tokens = MD.parse(text, {})
    sections = [Section(None, None, line_offset + 1)]
    body = Body(sections, [])
    anchors: dict[str, int] = {}
    for block in _blocks(tokens, lines, line_offset, body):
        first = block.tokens[0]
        if first.type == "heading_open" and first.tag in ("h1", "h2"):
            title = block.tokens[1].content
            sections.append(Section(title, _unique(slugify(title) or "section", anchors), block.line))
        else:
            sections[-1].blocks.append(block)
    if sections[0].blocks == [] and len(sections) > 1:
        sections.pop(0)
    return body


def _unique(anchor: str, taken: dict[str, int]) -> str:
    """anchor, else the first of anchor-2, anchor-3, … not taken; `taken` holds, for each anchor given, the number
    its search stopped at, where the next one starts (from 2 each time, 6,000 alike headings took seconds)."""
    candidate, number = anchor, taken.get(anchor, 2)
    while candidate in taken:
        candidate, number = f"{anchor}-{number}", number + 1
    taken[anchor] = number
    taken.setdefault(candidate, 2)
    return candidate


def _blocks(tokens: list[Token], lines: list[str], offset: int, body: Body):
    """Group tokens into top-level blocks, collecting units, cites and images on the way."""
    start = 0
    while start < len(tokens):
        end = start
        if tokens[start].nesting == 1:
            depth = 0
            for end in range(start, len(tokens)):
                depth += tokens[end].nesting
                if depth == 0:
                    break
        chunk = tokens[start: end + 1]
        span = chunk[0].map or [0, 0]
        block = Block(_BLOCK_KINDS.get(chunk[0].type, chunk[0].type), offset + span[0] + 1,
                      "\n".join(lines[span[0]: span[1]]).rstrip(), chunk)
        _collect(block, lines, offset, body)
        yield block
        start = end + 1


_UNIT_KINDS = {"list_item_open": "item", "paragraph_open": "paragraph", "tr_open": "row"}


def _collect(block: Block, lines: list[str], offset: int, body: Body) -> None:
    """Units are list items, paragraphs outside list items and table body rows (a row cites in any of its
    cells); inline text goes to the innermost."""
    stack: list[Unit | None] = []
    head = False  # inside a table's header: its row is no unit
    placed: dict[int, int] = {}  # per body line, where the text placed on it so far ends
    for token in block.tokens:
        kind = _UNIT_KINDS.get(token.type)
        if kind is not None and not (kind == "paragraph" and _in_item(stack)) and not (kind == "row" and head):
            unit = Unit(kind, *_place(token.map, lines, offset))
            block.units.append(unit)
            stack.append(unit)
        elif token.nesting == 1:
            stack.append(None)
            head = head or token.type == "thead_open"
        elif token.nesting == -1:
            stack.pop()
            head = head and token.type != "thead_close"
        elif token.type == "inline":
            _inline(token, _innermost(stack), lines, offset, body, placed)


def _in_item(stack: list[Unit | None]) -> bool:
    return any(unit is not None and unit.kind == "item" for unit in stack)


def _innermost(stack: list[Unit | None]) -> Unit | None:
    return next((unit for unit in reversed(stack) if unit is not None), None)


def _place(span: list[int] | None, lines: list[str], offset: int) -> tuple[int, int]:
    """File line and column of the first character of a block starting at span[0]."""
    row = span[0] if span else 0
    text = lines[row] if row < len(lines) else ""
    return offset + row + 1, len(text) - len(text.lstrip()) + 1


def _inline(token: Token, unit: Unit | None, lines: list[str], offset: int, body: Body,
            placed: dict[int, int]) -> None:
    row0 = token.map[0] if token.map else 0
    words: list[str] = []
    seen = 0  # where the last image's `![` stood in the inline content
    for child in token.children or []:
        if child.type == "cite":
            cite = _cite(child, token.content, row0, lines, offset)
            body.cites.append(cite)
            if unit is not None:
                unit.cites.append(cite)
        elif child.type in ("text", "code_inline"):
            words.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            words.append(" ")
        elif child.type == "image":
            seen = token.content.find("![", seen) + 1 or seen
            line, col = place_in_file(token.content, max(seen - 1, 0), row0, lines, offset)
            body.images.append((str(child.attrs.get("src", "")), alt_text(child), line, col))
    if unit is not None:
        joint = "; " if unit.kind == "row" and unit.text else " "  # a row's cells read apart, each on its own
        unit.text = (unit.text + joint + "".join(words).strip()).strip() if unit.kind == "row" else (
            unit.text + " " + "".join(words)).strip()
        unit.source.extend(_source_lines(token.content, row0, lines, offset, placed))


def _source_lines(content: str, row0: int, lines: list[str], offset: int,
                  placed: dict[int, int]) -> list[tuple[int, int, str]]:
    """Each line of inline content, its file line, and the column it starts at (after list or quote markers),
    looked for after the text placed on that line before it (a table row's cells: one search each from the
    start made 20,000 cells quadratic); a cell's '|' was written '\\|'."""
    found = []
    for index, text in enumerate(content.split("\n")):
        row = row0 + index
        source = lines[row] if row < len(lines) else ""
        start = placed.get(row, 0)
        needle = text
        at = source.find(needle, start)
        if at < 0 and "|" in text:
            needle = text.replace("|", "\\|")
            at = source.find(needle, start)
        if at >= 0:
            placed[row] = at + len(needle)
        found.append((offset + row + 1, max(at, start) + 1, text))
    return found


def _cite(child: Token, content: str, row0: int, lines: list[str], offset: int) -> Cite:
    """Place a cite: its content line from the offset, its column by finding that line in the source."""
    return Cite(tuple(child.meta["ids"]), *place_in_file(content, child.meta["offset"], row0, lines, offset))


def place_in_file(content: str, at: int, row0: int, lines: list[str], offset: int) -> tuple[int, int]:
    """The file line and column of an offset into an inline token's content (which has no map of its own):
    `row0`, the token's first line in the body; `lines`, the body's; `offset`, the body's first line in the file."""
    row = row0 + content.count("\n", 0, at)
    line_start = content.rfind("\n", 0, at) + 1
    content_line = content[line_start: content.find("\n", at) if "\n" in content[at:] else len(content)]
    source = lines[row] if row < len(lines) else ""
    shift = max(source.find(content_line), 0)
    return offset + row + 1, shift + at - line_start + 1


def alt_text(image: Token) -> str:
    """An image's alt text as plain text (its Markdown emphasis and code dropped)."""
    return "".join(child.content for child in image.children or () if child.type in ("text", "code_inline")).strip()


def render_block(block: Block, env: dict) -> str:
    return MD.renderer.render(block.tokens, MD.options, env)


def render_markdown(text: str) -> str:
    """Plain Markdown (pages, titles) through the same instance."""
    return MD.render(text, {})

