"""Author files: content/authors/<slug>.md, a name (and optionally a role, a web address and an email) in the
front matter, the bio as the body. A story names its authors by slug."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from .findings import Finding
from .layout import file_digest
from .models import AuthorMatter
from .source import front_matter, listed
from .validate import EXAMPLES, validate

SLUG = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
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


def author_files(root: Path) -> list[tuple[str, str]]:
    """(path, path as shown) of every author file, by name."""
    folder = os.path.join(root, "content", "authors")
    return [(os.path.join(folder, name), f"content/authors/{name}") for name in listed(folder, ".md")]


def load_author(path: str, shown: str) -> tuple[Author | None, list[Finding]]:
    """An author file as an Author, or the findings that say what is wrong with it."""
    slug = os.path.basename(shown).removesuffix(".md")
    if not SLUG.match(slug):
        return None, [Finding(shown, 1, 1, "LP002", f"author file name '{slug}.md' is not a slug: expected lower-case "
                              "letters and digits joined by single hyphens, e.g. content/authors/ana-lima.md")]
    try:
        with open(path, "rb") as source:
            data = source.read()
    except OSError as err:
        return None, [Finding(shown, 1, 1, "LP001", f"cannot read the file: {err.strerror}")]
    parsed, findings = front_matter(Path(path), shown, data)
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
    for path, shown in author_files(root):
        author, problems = load_author(path, shown)
        findings.extend(problems)
        if author is not None:
            authors[author.slug] = author
    return authors, findings
