"""The build cache in .ledgerpress-cache/: what the last good build read and wrote, so that an unchanged
site is not rebuilt and unchanged files are not rewritten. The standard library and orjson only: it runs
before the rest of the generator is imported. A damaged or foreign cache counts as empty, never as trusted."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import orjson

CACHE_DIR = ".ledgerpress-cache"
STATE_FILE = "build-state.json"
FORMAT = "ledgerpress-build-state-2"
PACKAGE = Path(__file__).resolve().parent


def digest(data: bytes) -> str:
    """A file's digest (SHA-256, which this kind of CPU computes in hardware, cut to 128 bits)."""
    return hashlib.sha256(data).hexdigest()[:32]


def key_of(*parts: str) -> str:
    """One digest of several strings (what an output or a stored result was made from)."""
    return hashlib.blake2b("\0".join(parts).encode("utf-8"), digest_size=16).hexdigest()


@dataclass
class State:
    """One good build: its options, every input (stat and hash), every output (hash), its warnings."""

    key: str
    inputs: dict[str, list] = field(default_factory=dict)    # path -> [mtime_ns, size, digest]
    outputs: dict[str, str] = field(default_factory=dict)    # output path -> digest
    out: list[int] = field(default_factory=list)             # [inode, mtime_ns] of the output folder
    warnings: list[str] = field(default_factory=list)
    summary: dict[str, int] = field(default_factory=dict)


def options_key(version: str, **options: object) -> str:
    """Everything besides input files that shapes the output: the generator version and build options."""
    return json.dumps({"version": version, **{k: str(v) for k, v in sorted(options.items())}}, sort_keys=True)


def input_files(root: Path) -> list[str]:
    """Every file whose bytes shape the site: content/, the site's templates/, ours, and the generator
    (as strings: a large site has tens of thousands, and Path objects would cost more than the walk)."""
    roots = [root / "content", root / "templates", PACKAGE.parent / "templates", PACKAGE]
    found: list[str] = []
    for top in roots:
        for folder, dirs, files in os.walk(top):
            dirs[:] = sorted(d for d in dirs if not d.startswith((".", "__pycache__")))
            found.extend(os.path.join(folder, name) for name in sorted(files) if not name.endswith(".pyc"))
    return found


def _stamp(path: str) -> list[int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return [info.st_mtime_ns, info.st_size]


def _out_stamp(out: Path) -> list[int]:
    try:
        info = out.stat()
    except OSError:
        return []
    return [info.st_ino, info.st_mtime_ns]


def load_state(root: Path) -> State | None:
    """The last good build's state, or None when there is none or it cannot be trusted."""
    try:
        raw = orjson.loads((root / CACHE_DIR / STATE_FILE).read_bytes())
        if raw.get("format") != FORMAT:
            return None
        state = State(raw["key"], raw["inputs"], raw["outputs"], raw["out"], raw["warnings"], raw["summary"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError):  # orjson.JSONDecodeError is a ValueError
        return None
    shapes = (str, dict, dict, list, list, dict)
    values = (state.key, state.inputs, state.outputs, state.out, state.warnings, state.summary)
    return state if all(isinstance(v, t) for v, t in zip(values, shapes)) else None


def same_output(out: Path, state: State | None) -> bool:
    """True when the output folder is the one `state`'s build left (not removed, replaced or renamed)."""
    return state is not None and bool(state.out) and _out_stamp(out) == state.out


def scan(root: Path, previous: State | None, read_later: bool = False) -> dict[str, list]:
    """Every input as it is before a build reads it: [mtime_ns, size, digest], the digest taken from
    `previous` when the stat is the same (a file edited while the build runs is then seen as changed next time).
    `read_later`: a first build leaves the story files' digests empty (""): it reads and hashes every story
    anyway, and `settle` takes each digest from there, with the stat taken as it was read."""
    known = previous.inputs if previous else {}
    stories = f"{root / 'content' / 'stories'}{os.sep}"
    inputs: dict[str, list] = {}
    for path in input_files(root):
        stamp = _stamp(path)
        if stamp is None:
            continue
        old = known.get(path)
        if old is not None and old[:2] == stamp:
            inputs[path] = old
        elif read_later and path.startswith(stories):
            inputs[path] = [*stamp, ""]
        elif (code := _file_digest(path)) is not None:
            inputs[path] = [*stamp, code]
    return inputs


def settle(root: Path, inputs: dict[str, list], read: Mapping[str, tuple[tuple[int, int], str]]) -> None:
    """Fill in the digests `scan` left to the build: each as the build read the file (`read`: [mtime_ns, size]
    and digest by the path the build shows), else (a file the build did not read) hashed now; a file gone
    meanwhile is left out, as a scan leaves it out (the next build then sees it as new if it comes back)."""
    top = f"{root / 'content'}{os.sep}"
    for path, found in list(inputs.items()):
        if found[2]:
            continue
        stamp, code = read.get(_shown(top, path), (None, ""))
        if code:
            inputs[path] = [*stamp, code]
        elif (code := _file_digest(path)) is not None:
            inputs[path] = [*found[:2], code]
        else:
            del inputs[path]


def shown_stamps(root: Path, inputs: dict[str, list]) -> dict[str, list]:
    """The scan's content files by their path as a build shows them (content/stories/...)."""
    top = f"{root / 'content'}{os.sep}"
    return {_shown(top, path): found for path, found in inputs.items() if path.startswith(top)}


def _shown(top: str, path: str) -> str:
    """A path under `top` (the content folder, with its separator) as a build shows it: content/..."""
    return "content/" + path[len(top):].replace(os.sep, "/")


def unchanged(out: Path, key: str, state: State | None, inputs: dict[str, list]) -> bool:
    """True when nothing that shapes the output changed since `state` and its output folder is in place:
    same options, the same inputs (`scan`) with the same bytes."""
    if state is None or state.key != key or _out_stamp(out) != state.out or inputs.keys() != state.inputs.keys():
        return False
    return all(inputs[path][2] == known[2] for path, known in state.inputs.items())


def _file_digest(path: str) -> str | None:
    try:
        with open(path, "rb") as source:
            return digest(source.read())
    except OSError:
        return None


def record(root: Path, out: Path, key: str, outputs: dict[str, str], warnings: list[str],
           summary: dict[str, int], inputs: dict[str, list]) -> None:
    """Save the state of a good build: its inputs as `scan` found them before it read them, its outputs."""
    state = {"format": FORMAT, "key": key, "inputs": inputs, "outputs": outputs, "out": _out_stamp(out),
             "warnings": warnings, "summary": summary}
    folder = root / CACHE_DIR
    folder.mkdir(exist_ok=True)
    put_file(folder / STATE_FILE, [orjson.dumps(state)])  # a large site's state is tens of thousands of entries


def put_file(path: Path, parts: list[bytes]) -> None:
    """Write a cache file whole under a temporary name, then put it where the old one was: a reader finds the
    old file, the new one, or none (and then builds without: every cache file is checked as it is read). The
    old file is deleted first, since renaming over it would make ext4 write the new one out at once
    (auto_da_alloc: 10 ms for the memo's head of 8 MB here, instead of 3)."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}")
    with open(temporary, "wb") as out:
        for part in parts:
            out.write(part)
    path.unlink(missing_ok=True)
    os.rename(temporary, path)
