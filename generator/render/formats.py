"""Text made safe for each output format, and the formatting filters templates use."""

from __future__ import annotations

import datetime as dt
import functools
import json
import re
from typing import Any

import orjson
import yaml
from markupsafe import Markup
from pydantic import BaseModel


_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>])")


_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


_UNPRINTABLE = re.compile("[^\t\n\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


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


def md_text(value: str) -> str:
    """Plain text made safe inside a Markdown paragraph (no accidental emphasis, links or HTML)."""
    return _MD_SPECIAL.sub(r"\\\1", str(value))


def md_cell(value: str) -> str:
    """Plain text made safe inside a Markdown table cell."""
    return md_text(value).replace("|", "\\|").replace("\n", " ")


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
