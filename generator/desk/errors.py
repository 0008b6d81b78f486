"""What the desk refuses, as an agent reads it: a stable code, one sentence that says what to do, and details."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..content.findings import Finding


class DeskError(Exception):
    """A refusal the agent caused and can act on; never a bug (those are the server's to log)."""

    def __init__(self, code: str, message: str, **details: Any) -> None:
        super().__init__(message)
        self.code, self.message, self.details = code, message, details

    def as_dict(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, **self.details}


def site_broken(findings: Iterable[Finding], consequence: str = "") -> DeskError:
    """The refusal of a call when site.toml cannot be read: its findings, each as a line."""
    lines = [str(finding) for finding in findings]
    return DeskError("site_broken", f"content/site.toml has errors{consequence}: {'; '.join(lines)}", findings=lines)
