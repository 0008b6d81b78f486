"""The site checked again and again as an agent works: each check reads only the files that changed since the
last one (the engine's memo and the inputs' state, kept in memory), and finds what a check from scratch finds."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from ..engine.check import Checked, check_site
from ..engine.memo import Memo
from ..engine.state import State, code_digest, content_digests, key_of, scan, settle


class SiteChecks:
    """`check_site` of one site, warm: a 20,000-story site is read whole once, then story by story."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._state: State | None = None
        self._memo: Memo | None = None

    def check(self, drafts: bool, texts: Mapping[str, bytes]) -> Checked:
        """Every finding of the site with these story texts in place of their files, as `check` (drafts: as
        `build --drafts`) would give them."""
        started, inputs = scan(self.root, self._state)
        digests = content_digests(self.root, inputs)
        key = key_of(code_digest(inputs), digests.get("content/site.toml", ""), f"desk drafts={drafts}")
        memo = self._memo if self._memo is not None and self._memo.key == key else None
        self._memo = None  # the check takes its indexes over: a check that fails starts the next one afresh
        checked = check_site(self.root, drafts=drafts, memo=memo, digests=digests, texts=texts)
        if checked.config is not None:
            self._state = State(started_ns=started, inputs=settle(inputs))
            held = {record.digest for record in checked.records.values()}
            self._memo = Memo(key, "desk", checked.manifest_records, dict(checked.records), repeats=checked.repeats,
                              scores={pair: score for pair, score in checked.scores.items() if set(pair) <= held})
        return checked
