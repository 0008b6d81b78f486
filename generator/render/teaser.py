"""A story as list pages, feeds and manifest pages see it: every field of its view but the body's sections, read
as attributes (as templates read the view) from the view's JSON, which is parsed only when a page first
reads a field that the story's keys do not hold."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import orjson

from .story_view import StoryView


class Data(dict):
    """JSON data read as attributes, nested objects too; a name that ends in `_` also reads the field without it
    (the view model spells `links.json` as `links.json_`, `json` being taken in pydantic)."""

    __slots__ = ()

    def __getattr__(self, name: str) -> Any:
        try:
            value = self[name]
        except KeyError:
            if not (name.endswith("_") and name[:-1] in self):
                raise AttributeError(name) from None
            value = self[name[:-1]]
        return _wrapped(value)


def _wrapped(value: Any) -> Any:
    if type(value) is dict:
        return Data(value)
    if type(value) is list and value and type(value[0]) is dict:
        return [Data(item) if type(item) is dict else item for item in value]
    return value


class Teaser:
    """One story's view without its sections: `text` (its JSON), `fingerprint` (a digest of it: a page showing
    the story is made again when it changes) and `keys` (the fields that order and group it, at hand)."""

    __slots__ = ("text", "fingerprint", "keys", "_data")

    def __init__(self, text: bytes, fingerprint: str, keys: Mapping[str, Any]) -> None:
        self.text, self.fingerprint, self.keys, self._data = text, fingerprint, keys, None

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        keys = object.__getattribute__(self, "keys")
        if name in keys:
            return keys[name]
        return getattr(self.data, name)

    @property
    def data(self) -> Data:
        if self._data is None:
            self._data = Data(orjson.loads(self.text))
        return self._data

    def fields(self, names: Iterable[str]) -> dict[str, Any]:
        """These fields as JSON data, by their published names."""
        wanted = set(names)
        return {name: value for name, value in self.data.items() if name in wanted}


def teaser_text(view: StoryView, data: dict[str, Any] | None = None) -> bytes:
    """The JSON a Teaser is made from: the view as its JSON variant has it (`data`, if dumped already), without
    its sections."""
    data = view.model_dump(mode="json", by_alias=True) if data is None else data
    return orjson.dumps({name: value for name, value in data.items() if name != "sections"})
