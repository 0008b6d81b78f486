"""The fingerprint of what an output is made from: every value it is given, walked whole, so that an output is
made again exactly when something it was given changed (no list of its inputs is kept by hand)."""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import hashlib
import marshal
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel

_PLAIN = (str, int, float, bool, bytes, type(None))


def fingerprint(*values: Any) -> str:
    """A digest of values: equal values give equal digests (a dict's taken in the order of its items), and
    values of other types or shapes differ. An object with a `fingerprint` attribute (a string) stands for the
    content it is the digest of: only a value that holds its content's digest there may have one."""
    hasher = hashlib.blake2b(digest_size=16)
    for value in values:
        _feed(hasher.update, value)
    return hasher.hexdigest()


def _feed(update: Callable[[bytes], None], value: Any) -> None:
    kind = type(value)
    if kind in _PLAIN:
        update(marshal.dumps(value, 2))
    elif kind is tuple or kind is list or kind is dict:
        try:  # plain data all the way down (most of it): serialized by value in one call
            update(b"m" + marshal.dumps(value, 2))
        except ValueError:
            _feed_container(update, value)
    elif isinstance(value, tuple):  # a named tuple (a build takes one for each story's job)
        update(kind.__qualname__.encode() + b"(")
        _feed(update, tuple(value))
    elif isinstance(getattr(value, "fingerprint", None), str):
        update(b"f" + value.fingerprint.encode() + b";")
    else:
        _feed_other(update, value)


def _feed_container(update: Callable[[bytes], None], value: list | tuple | dict) -> None:
    if type(value) is dict:
        update(b"d%d:" % len(value))
        for key, item in value.items():
            _feed(update, key)
            _feed(update, item)
    else:
        update(b"l%d:" % len(value))
        for item in value:
            _feed(update, item)


def _feed_other(update: Callable[[bytes], None], value: Any) -> None:
    if isinstance(value, BaseModel):
        update(type(value).__qualname__.encode() + b"(" + value.model_dump_json().encode() + b")")
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        update(type(value).__qualname__.encode() + b"(")
        _feed(update, [getattr(value, name) for name in _field_names(type(value))])
    elif isinstance(value, (dt.date, dt.datetime)):
        update(b"t" + value.isoformat().encode() + b";")
    elif isinstance(value, (set, frozenset)):
        _feed(update, sorted(value))
    elif isinstance(value, functools.partial):
        _feed(update, (qualified_name(value.func), value.args, value.keywords))
    elif callable(value):
        update(b"c" + qualified_name(value).encode() + b";")
    else:
        raise TypeError(f"cannot take the fingerprint of a {type(value).__name__}")


@functools.cache
def _field_names(kind: type) -> tuple[str, ...]:
    return tuple(found.name for found in dataclasses.fields(kind))


def qualified_name(func: Callable) -> str:
    """module.qualname of a function (a producer's name, in the memo and in fingerprints)."""
    return f"{getattr(func, '__module__', '')}.{getattr(func, '__qualname__', repr(func))}"
