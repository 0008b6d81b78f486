"""Author files: content/authors/<slug>.md, a name (and optionally a role, a web address and an email) in the
front matter, the bio as the body. A story names its authors by slug."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

from pydantic import Field, StringConstraints

from .findings import Finding
from .layout import file_digest
from .limits import MAX_AUTHOR_BYTES
from .models import Strict, Text
from .slugs import SLUG
from .source import front_matter, read_bounded, readable, top_folder
from .validate import EXAMPLES, validate


class AuthorMatter(Strict):
    """An author's file, content/authors/<slug>.md: the name is required; the body is the bio."""

    name: Annotated[Text, StringConstraints(max_length=200)]
    role: Annotated[Text, StringConstraints(max_length=200)] | None = None
    url: Annotated[str, Field(strict=True), StringConstraints(pattern=r"^https?://\S+$", max_length=2000)] | None = None
    email: Annotated[str, Field(strict=True), StringConstraints(pattern=r"^[^@\s<>\"]+@[^@\s<>\"]+\.[^@\s<>\"]+$",
                                                                max_length=320)] | None = None


AUTHOR_EXAMPLES = {**EXAMPLES, "name": '"Ana Lima"', "role": '"City reporter"', "url": '"https://example.org/ana"',
                   "email": '"ana@example.org"'}


@dataclass(frozen=True)
class Author:
    """An author's file as read: its slug (the file name), where it is, its fields and its bio (Markdown)."""

    slug: str
    path: str
    meta: AuthorMatter
    bio: str
    digest: str

    @property
    def fingerprint(self) -> str:
        return self.digest


def author_files(root: Path, refused: list[Finding] | None = None) -> list[tuple[str, str]]:
    """(path, path as shown) of every author file that may be read (see source.readable), by name; a finding in
    `refused` for each that may not."""
    folder, inside = top_folder(root, "authors", refused)
    if folder is None:
        return []
    return [(os.path.join(folder, name), f"content/authors/{name}")
            for name in readable(folder, "content/authors", ".md", inside, "LP001", refused=refused)]


def load_author(path: str, shown: str) -> tuple[Author | None, list[Finding]]:
    """An author file as an Author, or the findings that say what is wrong with it."""
    slug = os.path.basename(shown).removesuffix(".md")
    if not SLUG.fullmatch(slug):
        return None, [Finding(shown, 1, 1, "LP002", f"author file name '{slug}.md' is not a slug: expected lower-case "
                              "letters and digits joined by single hyphens, e.g. content/authors/ana-lima.md")]
    data, problems = read_bounded(path, shown, MAX_AUTHOR_BYTES)
    if data is None:
        return None, problems
    parsed, findings = front_matter(Path(path), shown, data, MAX_AUTHOR_BYTES)
    if parsed is None or parsed[0] is None or findings:
        return None, findings
    fields, source, body, _ = parsed
    meta, problems = validate(AuthorMatter, fields, source, (), AUTHOR_EXAMPLES)
    if meta is None:
        return None, problems
    return Author(slug, shown, meta, body.strip(), file_digest(data)), problems


def load_authors(root: Path) -> tuple[dict[str, Author], list[Finding]]:
    """Every author of the site by slug, and the findings of the files that did not load."""
    authors: dict[str, Author] = {}
    findings: list[Finding] = []
    for path, shown in author_files(root, findings):
        author, problems = load_author(path, shown)
        findings.extend(problems)
        if author is not None:
            authors[author.slug] = author
    return authors, findings
