"""The site checked again and again as an agent works: each check reads only the files that changed since the
last one (the engine's memo and the inputs' state, kept in memory), and finds what a check from scratch finds."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from ..engine.site_check import check_key, check_site, learned
from ..engine.inputs import Prior, Run, SiteInputs
from ..engine.build_options import Options
from ..engine.memo import Memo, load_memo
from ..engine.state import State, content_digests, scan, settle


class SiteChecks:
    """`check_site` of one site, warm: a 20,000-story site is read whole once (or, after a `ledgerpress check`,
    taken from its memo), then story by story."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._state: State | None = None
        self._memos: dict[bool, Memo] = {}  # by drafts: LP040's index differs with drafts among the stories or not

    def check(self, drafts: bool, texts: Mapping[str, bytes]) -> SiteInputs:
        """Every finding of the site with these story texts in place of their files, as `check` (drafts: as
        `build --drafts`) would give them."""
        started, inputs = scan(self.root, self._state)
        digests = content_digests(self.root, inputs)
        key, options = check_key(inputs, digests, drafts)
        memo = self._memos.pop(drafts, None)  # the check takes its indexes over: one that fails starts afresh
        if memo is None or memo.key != key:  # the last `ledgerpress check`'s, if any and still good
            memo = load_memo(self.root, options, key)
        checked = check_site(Run(self.root, Options(drafts=drafts, jobs=1), Prior(memo, digests), texts))
        if checked.config is not None:
            self._state = State(started_ns=started, inputs=settle(inputs))
            # (kept here, never saved: it holds none of the memo's files)
            self._memos[drafts] = learned(checked, checked.records, Prior(None, {}, (key, options)))
        return checked
