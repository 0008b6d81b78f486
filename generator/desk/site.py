"""The site a desk serves, and what it was started to allow: reading always, writing drafts with --allow-write,
building with --allow-build."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path

from ..content.config import CONFIG_NAME, SiteConfig, load_config
from .errors import DeskError, site_broken
from .recheck import SiteChecks


@dataclass
class Desk:
    root: Path
    allow_write: bool = False
    allow_build: bool = False
    # One tool call at a time works on the site: a hash compared and a file replaced are one step.
    lock: threading.Lock = field(default_factory=threading.Lock)
    checks: SiteChecks = field(init=False)

    def __post_init__(self) -> None:
        self.checks = SiteChecks(self.root)

    def config(self) -> SiteConfig:
        """site.toml as the checks read it, or a refusal that says what is wrong with it."""
        config, findings = load_config(self.root / "content" / CONFIG_NAME, shown=f"content/{CONFIG_NAME}")
        if config is None:
            raise site_broken(findings)
        return config

    def may_write(self, tool: str) -> None:
        if not self.allow_write:
            raise DeskError("read_only", f"{tool} writes a story, and this desk is read-only: the person running "
                            "`ledgerpress mcp` must start it with --allow-write")

    def may_build(self) -> None:
        if not self.allow_build:
            raise DeskError("build_not_allowed", "this desk may not build the site: the person running "
                            "`ledgerpress mcp` must start it with --allow-build")
