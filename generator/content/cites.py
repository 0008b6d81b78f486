"""markdown-it plugin: `[cites: a, b]` becomes a `cite` token that carries its ids and offset."""

from __future__ import annotations

import re
from collections.abc import Sequence
from html import escape
from typing import TYPE_CHECKING

from markdown_it import MarkdownIt
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict

from .limits import MAX_CITE_CHARS

if TYPE_CHECKING:  # (body.py parses with this module's plugin)
    from .body import Body
    from .models import Story

# A marker holds no '[' and at most MAX_CITE_CHARS: each '[' of a line is tried in turn, so a try that could scan
# past other '[' to the next ']' would make a line of many '[cites: ' quadratic; each try stops at the next '['.
CITE = re.compile(r"\[cites:[ \t]*([^\[\]\n]{0,%d})\]" % MAX_CITE_CHARS)


def cites_plugin(md: MarkdownIt) -> None:
    """Register the inline rule before links (which would take the brackets) and its renderer."""
    md.inline.ruler.before("link", "cites", cites)
    md.add_render_rule("cite", render_cite)


def cites(state: StateInline, silent: bool) -> bool:
    """Match `[cites: …]` at state.pos; inline tokens have no map, so keep the offset in meta."""
    if state.src[state.pos] != "[":
        return False
    found = CITE.match(state.src, state.pos)
    if found is None:
        return False
    if not silent:
        token = state.push("cite", "", 0)
        token.content = found[0]
        token.meta = {"ids": [part.strip() for part in found[1].split(",")], "offset": state.pos}
    state.pos = found.end()
    return True


def render_cite(self: object, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
    """Each id becomes a numbered link to its ledger row; env['sources'] maps id -> (number, title)."""
    sources = env.get("sources", {})
    links = []
    for manifest_id in tokens[idx].meta["ids"]:
        number, title = sources.get(manifest_id, (manifest_id, manifest_id))
        links.append(
            f'<a class="cite" href="#manifest-{escape(manifest_id)}" '
            f'title="{escape(str(title))}">{escape(str(number))}</a>'
        )
    return f'<sup class="cites">[{", ".join(links)}]</sup>'


def cited_ids(story: Story, body: Body) -> list[str]:
    """Every manifest id a story cites, in its body and then its key facts, in order, once."""
    return list(dict.fromkeys([*(i for cite in body.cites for i in cite.ids),
                               *(i for fact in story.meta.key_facts for i in fact.cites)]))
