"""Text made safe for each output format, and the formatting filters templates use. One escaping function
per format, each used by the templates of that format: HTML (Jinja's autoescape), XML (xml_escape, bound as
the autoescape of .xml templates), Markdown (md_text, md_cell, md_code, md_fence, and uri for link targets),
JSON in a <script> (json_ld), YAML scalars (yaml_scalar, yaml_ids), shell words (sh_word, sh_url). Each keeps
the structure of its document whatever the text: tests/test_formats.py throws random strings at every field."""

from __future__ import annotations

import datetime as dt
import functools
import json
import re
import shlex
from typing import Any
from urllib.parse import quote

import orjson
import yaml
from markupsafe import Markup, escape
from pydantic import BaseModel

from ..content.source import RAW


_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>])")


_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


# What JSON may hold but a YAML reader refuses or alters: C0 and C1 controls but tab and line feed, the line and
# paragraph separators, lone surrogates, U+FFFE and U+FFFF. (Listed, not given as the complement of what is
# allowed: a negated class over most of Unicode is slow to compile, and every start would compile it.)
_UNPRINTABLE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufffe\uffff]")


# Text that YAML can only read back as itself when written plain: a letter first, then letters, digits and
# punctuation that means nothing here (no ": ", no " #", no quote or bracket first), not a YAML 1.1 word.
_PLAIN = re.compile(r"[A-Za-z](?:[A-Za-z0-9 .,;()'/_+%&?=-]|:(?! ))*[A-Za-z0-9.,;()'/_+%&?=-]|[A-Za-z]")


_WORDS = frozenset("y n yes no on off true false null".split())


@functools.lru_cache(maxsize=4096)
def yaml_scalar(value: str) -> str:
    """A YAML scalar that reads back as exactly this string: plain when safe, else double-quoted."""
    text = str(value)
    if _PLAIN.fullmatch(text) and text.lower() not in _WORDS:  # most titles and URLs: no need to ask the parser
        return text
    if text and text.isprintable() and text == text.strip():
        try:
            if yaml.load(f"k: {text}", Loader=_YAML_LOADER) == {"k": text}:
                return text
        except yaml.YAMLError:
            pass
    return _UNPRINTABLE.sub(lambda m: f"\\u{ord(m[0]):04x}", json.dumps(text, ensure_ascii=False))


def yaml_ids(ids: list[str]) -> str:
    """A flow list of single-quoted ids, as the reference story writes them: ['1', '2']."""
    return "[" + ", ".join("'" + i.replace("'", "''") + "'" for i in ids) + "]"


_LINE_BREAK = re.compile(r"\r\n?|\n")  # what ends a line in CommonMark
_MD_ENTITY = re.compile(r"&(?=#?[A-Za-z0-9]+;)")  # `&lt;` would read as `<`; a lone & is text
_MD_BLOCK_START = re.compile(r"[#>+=~-]|\d+(?=[.)])")  # what opens a heading, quote, list or fence at a line's start


def md_text(value: str) -> str:
    """Plain text made safe inside one line of Markdown: no accidental emphasis, links, HTML or entities, and
    (wherever on a line it stands) no line break, heading, quote, list, fence or closing `#` of its own."""
    text = _MD_SPECIAL.sub(r"\\\1", str(value))
    if "&" in text:
        text = _MD_ENTITY.sub(r"\\&", text)
    if "\n" in text or "\r" in text:
        text = _LINE_BREAK.sub(" ", text)
    if text[:1].isspace() or text[-1:].isspace():
        text = text.strip()  # a list item's content indented 4 more is code; an emphasis is no longer one
        if not text:
            return "&#32;"  # (a space: an empty heading or list item would not be one)
    start = _MD_BLOCK_START.match(text)
    if start:
        at = start.end() if start[0][0].isdigit() else 0
        text = f"{text[:at]}\\{text[at:]}"
    body = text[:-1]
    if text.endswith("#") and (len(body) - len(body.rstrip("\\"))) % 2 == 0:  # not escaped already (a lone "#")
        text = body + "\\#"
    return text


def md_cell(value: str) -> str:
    """Plain text made safe inside a Markdown table cell."""
    return md_text(value).replace("|", "\\|")


def md_code(value: str) -> str:
    """Text as an inline code span: fenced by one backtick more than its longest run of them."""
    text = _LINE_BREAK.sub(" ", str(value))
    fence = "`" * (max(map(len, re.findall("`+", text)), default=0) + 1)
    pad = " " if text[:1] == "`" or text[-1:] == "`" or (text[:1] == " " and text[-1:] == " " and text.strip()) else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def md_fence(value: str, info: str = "") -> str:
    """Text as a fenced code block: a fence longer than any run of backticks in it."""
    text = str(value)
    fence = "`" * max(3, max(map(len, re.findall("`+", text)), default=0) + 1)
    return f"{fence}{info}\n{text}\n{fence}"


_URL_SAFE = "-._~:/?#[]@!$&'*+,;=%"  # RFC 3986 reserved and unreserved characters, and % (kept escapes), not ( )


def uri(value: str) -> str:
    """A URL with every character a URL may not hold percent-encoded (spaces, quotes, brackets <>, control
    characters, non-ASCII as UTF-8), and the parentheses that would end a Markdown link target: what a
    Markdown link and a sitemap's <loc> are given."""
    return quote(str(value), safe=_URL_SAFE, errors="replace")


# The characters XML 1.0 forbids (C0 controls but tab and line breaks, lone surrogates, U+FFFE, U+FFFF) and those
# it discourages (DEL, C1): content/source.RAW, which no text read from content/ holds; site.toml's may.
_XML_FORBIDDEN = RAW


def xml_escape(value: Any) -> Markup:
    """Text made safe in XML 1.0 text and attribute values: markup characters escaped, tabs and line breaks
    as character references (which survive attribute-value and line-end normalization), and the characters
    XML 1.0 forbids (most control characters, U+FFFE, U+FFFF), for which a parser would refuse the whole
    document, and those it discourages (DEL, C1) replaced by U+FFFD. The autoescape of every .xml template."""
    if type(value) is Markup:
        return value
    escaped = escape(value)
    if _XML_FORBIDDEN.search(escaped):
        escaped = Markup(_XML_FORBIDDEN.sub("\ufffd", escaped))
    if "\t" in escaped or "\n" in escaped or "\r" in escaped:
        escaped = Markup(str(escaped).replace("\t", "&#9;").replace("\n", "&#10;").replace("\r", "&#13;"))
    return escaped


_SH_PLAIN = re.compile(r"[A-Za-z0-9_@%+=:,./-]+")  # shlex.quote's own safe set
_SH_DOUBLE = re.compile(r'[^$`"\\!\x00-\x1f\x7f]*')  # nothing a shell (or bash's history) expands in "…"


def sh_word(value: str) -> str:
    """One word of a POSIX shell command that the shell reads back as exactly value: as it is when it is
    plain, in double quotes when nothing in it is special there, else single-quoted (shlex.quote)."""
    text = str(value)
    if _SH_PLAIN.fullmatch(text):
        return text
    return f'"{text}"' if _SH_DOUBLE.fullmatch(text) else shlex.quote(text)


def sh_url(template: str, placeholder: str, variable: str) -> str:
    """One shell word that is the URL template with `placeholder` replaced by the shell variable's value:
    "https://x/$id" when the rest is plain, else the literal parts single-quoted around "$id"."""
    parts = str(template).split(placeholder)
    if all(_SH_DOUBLE.fullmatch(part) for part in parts):
        joined = ""
        for part in parts[1:]:
            name = f"${{{variable}}}" if part[:1].isalnum() or part[:1] == "_" else f"${variable}"
            joined += name + part
        return f'"{parts[0]}{joined}"'
    return f'"${variable}"'.join(shlex.quote(part) if part else "" for part in parts)


@functools.lru_cache(maxsize=1 << 14)  # pages repeat the same times (a story's, a manifest's) many times
def month_day_time(value: str) -> str:
    """2026-10-19T00:00:00Z -> 10-19 00:00, the ledger's Published column."""
    return dt.datetime.fromisoformat(value.replace("Z", "+00:00")).strftime("%m-%d %H:%M")


def to_data(value: Any) -> Any:
    """A model as JSON data (anything else as it is)."""
    return value.model_dump(mode="json", by_alias=True) if isinstance(value, BaseModel) else value


def to_json(value: Any) -> str:
    """Deterministic, readable JSON for the JSON variant and data files (orjson: the same bytes as
    json.dumps(indent=2, ensure_ascii=False), from a library far quicker at it)."""
    return orjson.dumps(to_data(value), option=orjson.OPT_INDENT_2).decode("utf-8") + "\n"


def json_ld(value: Any) -> Markup:
    """JSON for a <script> element: '<', '>' and '&' escaped so no text can close the element."""
    text = orjson.dumps(to_data(value)).decode("utf-8")  # json.dumps(ensure_ascii=False, separators=(",", ":"))
    return Markup(text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))
