"""The default slug of a title, as SPEC section 2 defines it."""

import re

_NOT_SLUG = re.compile(r"[^a-z0-9]+")
MAX_SLUG = 70


def slugify(title: str) -> str:
    """Lower-case, runs of non [a-z0-9] to '-', cut to 70, '-' stripped at both ends."""
    return _NOT_SLUG.sub("-", title.lower())[:MAX_SLUG].strip("-")
