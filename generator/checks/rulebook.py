"""Every rule explained with an example that fails and one that passes (rulebook.yaml), as `ledgerpress rules
CODE` prints it and as docs/checks.md shows it: one text, so the two cannot drift apart."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from . import RULES

_SOURCE = Path(__file__).with_name("rulebook.yaml")
_LANGUAGES = {".md": "markdown", ".json": "json", ".toml": "toml", ".html": "jinja"}


@dataclass(frozen=True)
class Example:
    note: str
    edits: list[tuple[str, str, str]] = field(default_factory=list)  # (file path, old text, new text)
    files: dict[str, str | bytes] = field(default_factory=dict)      # file path -> whole text (or an image's bytes)
    finding: list[str] = field(default_factory=list)

    def tree(self, base: dict[str, str]) -> dict[str, str]:
        """The example site: the base site with this example's files and edits."""
        files = {**base, **self.files}
        for path, old, new in self.edits:
            if old not in files[path]:
                raise ValueError(f"rulebook: {old!r} is not in {path}")
            files[path] = files[path].replace(old, new, 1)
        return files


@dataclass(frozen=True)
class Entry:
    code: str
    explain: str
    fails: Example
    passes: Example
    stage: str = "check"  # how the example is run: check, build, or none (not reproducible on a site)


@dataclass(frozen=True)
class Rulebook:
    files: dict[str, str]   # the example site every example changes
    story: str              # its story's path
    entries: dict[str, Entry]


@functools.cache
def rulebook() -> Rulebook:
    data = yaml.safe_load(_SOURCE.read_text(encoding="utf-8"))
    aliases = data["site"]["aliases"]
    entries = {code: Entry(code, " ".join(item["explain"].split()), _example(item["fails"], aliases),
                           _example(item["passes"], aliases), item.get("stage", "check"))
               for code, item in data["rules"].items()}
    return Rulebook(data["site"]["files"], aliases["story"], entries)


def _example(item: dict, aliases: dict[str, str]) -> Example:
    edits = [(aliases.get(name, name), old, new) for name, old, new in item.get("edit") or []]
    return Example(item["note"], edits, dict(item.get("files") or {}), list(item.get("finding") or []))


def explained(code: str) -> str:
    """One rule as the terminal shows it."""
    entry = rulebook().entries[code]
    rule = RULES[code]
    lines = [f"{code}  {rule.summary}", "", *_wrap(entry.explain), ""]
    for title, example in (("Fails", entry.fails), ("Passes", entry.passes)):
        lines.append(f"{title}: {example.note}")
        for path, text in _shown(example, entry.fails if example is entry.passes else None):
            lines += [f"  {path}:", *(f"    {line}" for line in text.splitlines())]
        lines += [f"  -> {finding}" for finding in example.finding]
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def markdown() -> str:
    """The reference part of docs/checks.md: the example site, then every rule with its two examples."""
    book = rulebook()
    parts = ["## The example site", "",
             "Each rule's examples change this small site; `ledgerpress check` on the site as it stands finds nothing.",
             ""]
    for path, text in book.files.items():
        parts += [f"`{path}`:", "", f"```{_LANGUAGES.get(Path(path).suffix, '')}", text.rstrip(), "```", ""]
    parts += ["## Rules", ""]
    for code in sorted(book.entries):
        entry = book.entries[code]
        parts += [f"### {code}: {RULES[code].summary}", "", entry.explain, ""]
        for title, example in (("Fails", entry.fails), ("Passes", entry.passes)):
            parts += [f"**{title}:** {example.note}", ""]
            for path, text in _shown(example, entry.fails if example is entry.passes else None):
                parts += [f"`{path}`:", "", f"```{_LANGUAGES.get(Path(path).suffix, '')}", text, "```", ""]
            if example.finding:
                parts += ["```text", *example.finding, "```", ""]
    return "\n".join(parts).rstrip() + "\n"


def _shown(example: Example, failing: Example | None = None) -> list[tuple[str, str]]:
    """What an example changes: each whole new file, and the lines of an edited file its edits touch; a
    passing example that changes nothing shows the lines the failing one changed, as the site has them."""
    shown = [(path, _text(text)) for path, text in example.files.items()]
    edits = example.edits
    if not edits and not example.files and failing is not None:
        edits = [(path, old, old) for path, old, _new in failing.edits if old.strip()]
    if edits:
        tree = example.tree(rulebook().files)
        touched: dict[str, list[str]] = {}
        for path, _old, new in edits:
            lines = tree[path].splitlines()
            first = new.splitlines()[0] if new.strip() else new
            at = next((i for i, line in enumerate(lines) if first and first in line), None)
            if at is not None:
                count = max(len(new.splitlines()), 1)
                for line in lines[at: at + count]:
                    if line not in touched.setdefault(path, []):
                        touched[path].append(line)
        shown += [(path, "\n".join(lines)) for path, lines in touched.items()]
    return shown


def _text(content: str | bytes) -> str:
    """A file as the explanation shows it: its text, or what a binary file (an image) is."""
    if isinstance(content, str):
        return content.rstrip()
    import io

    from PIL import Image

    with Image.open(io.BytesIO(content)) as image:
        return f"(a {image.format} image, {image.width} x {image.height} pixels)"


def _wrap(text: str, width: int = 100) -> list[str]:
    lines, line = [], ""
    for word in text.split():
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    return [*lines, line] if line else lines
