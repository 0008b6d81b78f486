"""HTML made to stand on its own away from its page (in a feed reader): every link and image address in it
absolute, resolved against the page it comes from, and its citation markers plain superscript links."""

from __future__ import annotations

import functools
import html
import re
from urllib.parse import urljoin

from markupsafe import Markup

_ADDRESS = re.compile(r'\b(href|src)="([^"]*)"')
_SOURCES = re.compile(r'\bsrcset="([^"]*)"')
_CITES = re.compile(r'<sup class="cites">\[(.*?)\]</sup>')  # (as content/cites.py writes one)


@functools.lru_cache(maxsize=4096)  # a story's paragraphs stand in several feeds (the site's, its newsroom's...)
def absolute_urls(fragment: str, page_url: str) -> Markup:
    """The fragment (our own rendered HTML, every attribute double-quoted) with href, src and srcset resolved
    against page_url: `#manifest-1` becomes page_url + `#manifest-1`, `/images/a.webp` the site's address; a
    citation marker `[1, 2]` in superscript becomes its superscript links alone, as a feed reader shows a
    footnote (the brackets, beside the numbers a text reader gives each link, read as "^[2[2]]")."""

    def address(found: re.Match) -> str:
        url = urljoin(page_url, html.unescape(found[2]))
        return f'{found[1]}="{html.escape(url, quote=True)}"'

    def sources(found: re.Match) -> str:
        parts = []
        for item in html.unescape(found[1]).split(","):
            url, _, size = item.strip().partition(" ")
            parts.append(f"{urljoin(page_url, url)} {size}".strip())
        return f'srcset="{html.escape(", ".join(parts), quote=True)}"'

    return Markup(_CITES.sub(r"<sup>\1</sup>", _SOURCES.sub(sources, _ADDRESS.sub(address, str(fragment)))))
