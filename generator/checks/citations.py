"""LP03x: every paragraph and list item says where it comes from."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..body import Body
from ..models import ID_PATTERN, Finding
from . import SiteIndex, rule

_ID = re.compile(ID_PATTERN)


@rule("LP030", "body", "a body paragraph or list item has no [cites: …]", passes="every paragraph cites its sources")
def units_cite(path: str, body: Body, site: SiteIndex) -> Iterator[Finding]:
    for unit in body.units:
        if not unit.cites:
            what = "list item" if unit.kind == "item" else "paragraph"
            yield Finding(path, unit.line, unit.col, "LP030", f"{what} has no [cites: …]")


@rule("LP004", "body", "an id is not a quoted string, or does not match the id pattern")
def cite_ids(path: str, body: Body, site: SiteIndex) -> Iterator[Finding]:
    for cite in body.cites:
        for manifest_id in cite.ids:
            if not _ID.match(manifest_id):
                yield Finding(path, cite.line, cite.col, "LP004",
                              f"cited id '{manifest_id}' does not match {ID_PATTERN}")
