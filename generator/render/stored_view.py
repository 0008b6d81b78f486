"""A story view kept compact between rendering its story and rendering the pages that list it."""

from __future__ import annotations

import hashlib
import pickle
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

import orjson

from .story_view import StoryView, Term


class Label(NamedTuple):
    """A Term as list pages read it (a named tuple loads far faster than a model)."""

    slug: str
    name: str
    url: str | None


class StoredView:
    """A story view kept compact between rendering its story and rendering the pages that list it: its JSON
    (without the body) and, packed, the fields that order, group and fill list pages, teasers and manifest
    backlinks, unpacked when first read (a rebuild that lists nothing anew reads only `path` and `mark`, a
    digest of the whole view). The whole view is read back (once) only for a page that shows more of it. The
    build memo keeps the JSON apart (`reduced`), and gives it back through `lend` when it is asked for."""

    KEPT = ("url", "published", "updated", "edition", "newsroom_slug", "beat_slug", "ledger_claims",
            "cited_manifest_ids", "title", "description", "source_count", "newsroom", "beat", "trust")

    def __init__(self, view: StoryView, data: dict[str, Any] | None = None) -> None:
        """`data`: the view as model_dump(mode="json", by_alias=True) gives it, when it was dumped already (for
        the story's JSON variant): its JSON is then written from that, without the sections."""
        kept = {}
        for name in self.KEPT:
            value = getattr(view, name)
            kept[name] = Label(value.slug, value.name, value.url) if isinstance(value, Term) else value
        if data is None:
            data = view.model_dump(mode="json", by_alias=True)
        text = orjson.dumps({**data, "sections": []})
        self.path = view.path
        self.mark = hashlib.blake2b(text, digest_size=16).hexdigest()
        self._packed = pickle.dumps(kept, protocol=pickle.HIGHEST_PROTOCOL)
        self._json: bytes | None = text
        self._view: StoryView | None = None
        self._fetch: Callable[[], bytes] | None = None  # where the JSON is when it is not held (the memo's)

    @property
    def text(self) -> bytes:
        """The whole view without its body, as JSON."""
        if self._json is None:
            self._json = self._fetch()
        return self._json

    def lend(self, fetch: Callable[[], bytes]) -> None:
        """Let go of the JSON: `fetch` gives it back when it is asked for."""
        self._json, self._fetch = None, fetch

    @property
    def view(self) -> StoryView:
        if self._view is None:
            self._view = StoryView.model_validate_json(self.text)
        return self._view

    def unpack(self) -> None:
        """Make the kept fields attributes (equal labels, of thousands of views and a few newsrooms, one object
        each); reading one does this too."""
        vars(self).update((key, _SHARED.setdefault(value, value) if isinstance(value, Label) else value)
                          for key, value in pickle.loads(self._packed).items())

    def __getattr__(self, name: str) -> Any:  # the kept fields, then everything else (what templates read)
        if name.startswith("_"):
            raise AttributeError(name)
        if name in self.KEPT:
            self.unpack()
            return vars(self)[name]
        return getattr(self.view, name)

    def data(self, keys: Iterable[str]) -> dict[str, Any]:
        wanted = set(keys)
        return {key: value for key, value in orjson.loads(self.text).items() if key in wanted}

    def __getstate__(self) -> dict[str, Any]:  # the kept fields packed, without the whole view
        return {"path": self.path, "mark": self.mark, "_packed": self._packed, "_json": self.text,
                "_view": None, "_fetch": None}

    def reduced(self) -> tuple:
        """How the build memo pickles it: without the JSON."""
        return _stored_view, (self.path, self.mark, self._packed)


_SHARED: dict[Label, Label] = {}


def _stored_view(path: str, mark: str, packed: bytes) -> StoredView:
    view = StoredView.__new__(StoredView)
    vars(view).update(path=path, mark=mark, _packed=packed, _json=None, _view=None, _fetch=None)
    return view
