"""The base of every view model: frozen, and strict about its fields (a view is what every output reads)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class View(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)
