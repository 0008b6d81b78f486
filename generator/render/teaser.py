"""A story as list pages, feeds and manifest pages see it: every field of its view but the body's sections, read
as attributes (as templates read the view) from the view's JSON, which is parsed only when a page first
reads a field that the story's keys do not hold."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import orjson

from .story_view import StoryView


class Fields:
    """JSON data read as attributes: each object's own dict becomes the instance's, so that a template reads a
    field as fast as any attribute. A name that ends in `_` also reads the field without it (the view model
    spells `links.json` as `links.json_`, `json` being taken in pydantic)."""

    def __getattr__(self, name: str) -> Any:
        if name.endswith("_") and name[:-1] in self.__dict__:
            return self.__dict__[name[:-1]]
        raise AttributeError(name)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Fields) and vars(self) == vars(other)

    def __repr__(self) -> str:
        return f"Fields({vars(self)!r})"


def as_fields(value: Any) -> Any:
    """JSON data with every object made Fields (its dict taken over, not copied)."""
    if type(value) is dict:
        made = Fields.__new__(Fields)
        for key, item in value.items():
            if type(item) is dict or type(item) is list:
                value[key] = as_fields(item)
        made.__dict__ = value
        return made
    if type(value) is list and value and (type(value[0]) is dict or type(value[0]) is list):
        return [as_fields(item) for item in value]
    return value


class Teaser:
    """One story's view without its sections: `text` (its JSON), `fingerprint` (a digest of it: a page showing
    the story is made again when it changes) and `keys` (the fields that order and place it, at hand). Any
    other field is read from the JSON the first time a page asks for it (a list page reads a few of them),
    and kept, readable as attributes. The JSON may be given as a function that reads it (from a file kept
    since an earlier build), called only then."""

    def __init__(self, text: bytes | Callable[[], bytes], fingerprint: str, keys: Mapping[str, Any]) -> None:
        self._text, self.fingerprint, self.keys = text, fingerprint, keys
        vars(self).update(keys)  # the dotted names too: no template can reach them by name, and they cost nothing

    @property
    def text(self) -> bytes:
        if not isinstance(self._text, bytes):
            self._text = self._text()
        return self._text

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or "_text" not in vars(self):
            raise AttributeError(name)
        raw = _parsed(self.text)
        if name not in raw:
            raise AttributeError(name)
        value = vars(self)[name] = as_fields(raw[name])
        return value

    def fields(self, names: Iterable[str]) -> dict[str, Any]:
        """These fields as JSON data, by their published names."""
        wanted = set(names)
        return {name: value for name, value in orjson.loads(self.text).items() if name in wanted}


@functools.lru_cache(maxsize=256)
def _parsed(text: bytes) -> dict[str, Any]:
    """A teaser's JSON, parsed for the fields a page reads of it in turn: the last few hundred are kept, not the
    whole view of every story a process ever listed (a worker making list pages lists nearly all of them)."""
    return orjson.loads(text)


def teaser_data(view: StoryView) -> dict[str, Any]:
    """A Teaser's fields: the view as its JSON variant has it, without its sections."""
    return view.model_dump(mode="json", by_alias=True, exclude={"sections"})
