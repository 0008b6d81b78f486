"""What the last good build read: every input file's stat and digest, so that `ledgerpress build` with nothing
changed stops at once, and a build after an edit knows which files to read again. The standard library and
orjson only: the command checks this before it imports the rest of the generator."""

from __future__ import annotations

import functools
import json
import os
import re
import stat
import sys
import time
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from ..content.findings import Finding, shown_name
from ..content.layout import CACHE_DIR, PACKAGE, file_digest, is_utf8, key_of, read_upto, template_dirs
from ..content.limits import MAX_INPUT_BYTES
from ..output.whole_files import write_whole
from ..output.record import intact, load_record

STATE_FILE = "build-state.json"
FORMAT = "ledgerpress-build-state-4"
# A file changed this little before a build scanned it can change again within its timestamp's resolution
# without its stat showing it: the next build reads it again rather than trusting the stat (git's "racy" rule).
RACY_NS = 2_000_000_000
DISTRIBUTION = "ledgerpress"  # the package as installed, whose requirements name the libraries it runs on
REQUIRES = "Requires-Dist: "

Scanned = list  # what a scan knows of an input file: [mtime_ns, size, inode, digest]


def options_key(version: str, **options: object) -> str:
    """Everything besides input files that shapes the output: the generator's version, the libraries it runs on
    (the templates' engine, the Markdown parser, the models' JSON, the images' encoder...) and the options."""
    return json.dumps({"version": version, "libraries": libraries(), **{k: str(v) for k, v in sorted(options.items())}},
                      sort_keys=True)


def key_options(key: str) -> dict[str, str]:
    """The options an options_key was made of, each as the string the key holds."""
    try:
        options = json.loads(key)
    except ValueError:
        return {}
    return options if isinstance(options, dict) else {}


@dataclass
class State:
    """The last good build of a site: its options, each input as it was read, what it found (its warnings, the
    stories it left scheduled) and its counts."""

    options: str = ""                                       # options_key of that build ("key" in its file)
    started_ns: int = 0                                     # when its scan began
    inputs: dict[str, Scanned] = field(default_factory=dict)  # by absolute path
    findings: list[Finding] = field(default_factory=list)
    scheduled: list[tuple[str, str, int]] = field(default_factory=list)  # (path, URL path, due: seconds since 1970)
    summary: dict[str, int] = field(default_factory=dict)

    @property
    def build(self) -> str:
        """The key of the output this state's build made: its options and every input's digest."""
        return build_key(self.options, self.inputs)

    def stale(self, inputs: Mapping[str, Scanned], out: Path | None, moment: int) -> tuple[str, list[str]] | None:
        """Why the output this build left in `out` is not what a build with its options would make now, as
        (why, paths), or None: "inputs" (the inputs whose digest moved, in `paths`), "ahead" (it was built for
        a later time: it holds stories not due at `moment`), "due" (a scheduled story fell due), "files" (files
        of `out` changed or removed after it; None: an output no one else writes, in memory). What `build`
        skips and what `publish` refuses."""
        moved = [path for path in inputs.keys() | self.inputs.keys()
                 if _digest_of(inputs, path) != _digest_of(self.inputs, path)]
        if moved:
            return "inputs", moved
        if moment < self.summary.get("newest", 0):
            return "ahead", []
        if 0 < self.summary.get("next_due", 0) <= moment:
            return "due", []
        if out is not None and not intact(out, load_record(out), self.build):
            return "files", []
        return None


def _digest_of(inputs: Mapping[str, Scanned], path: str) -> str | None:
    found = inputs.get(path)
    return found[3] if found else None


def build_key(options: str, inputs: dict[str, Scanned]) -> str:
    return key_of(options, *(f"{path}\0{seen[3]}" for path, seen in sorted(inputs.items())))


def input_paths(root: Path) -> list[str]:
    """Every file whose bytes shape the site: content/, the templates, and the generator's own code."""
    found: list[str] = []
    for top in [root / "content", *template_dirs(root), PACKAGE]:
        for folder, dirs, files in os.walk(top):
            dirs[:] = sorted(d for d in dirs if not d.startswith((".", "__pycache__", "_templates")))
            found.extend(os.path.join(folder, name) for name in sorted(files)
                         if not name.startswith(".") and not name.endswith(".pyc"))
    return found


def scan(root: Path, previous: State | None) -> tuple[int, dict[str, Scanned]]:
    """When the scan began, and every input as it is now: its digest taken from `previous` where the stat is the
    same and was not racy, else from the file."""
    started = time.time_ns()
    known = previous.inputs if previous else {}
    trusted_before = previous.started_ns - RACY_NS if previous else 0
    inputs: dict[str, Scanned] = {}
    for path in input_paths(root):
        # A file no build reads (a name that is not UTF-8, a dangling link, a FIFO, a device) is still an input:
        # the loaders report it, and a build after it appeared must not say `up to date`.
        if not is_utf8(path):  # the state file cannot hold its name: it stands there as findings print it
            inputs[shown_name(path)] = [0, 0, 0, "unread"]
            continue
        try:
            info = os.stat(path)
        except OSError:
            inputs[path] = [0, 0, 0, "unread"]
            continue
        old = known.get(path)
        if (old is not None and stat.S_ISREG(info.st_mode) and old[:3] == [info.st_mtime_ns, info.st_size, info.st_ino]
                and info.st_mtime_ns < trusted_before and old[3] != "unread"):  # (a chmod moves no time)
            inputs[path] = old
            continue
        inputs[path] = _scanned(path, info)
    return started, inputs


def rescan(previous: State, changed: Collection[str]) -> tuple[int, dict[str, Scanned]] | None:
    """What scan() would find when only `changed` (absolute paths a file watcher reported) moved since the scan
    of `previous`: those read again, every other input as it was; None when one of them is not an input of that
    scan or is a folder now (a new file or folder, a folder removed), which only a whole scan can place."""
    if any(path not in previous.inputs for path in changed):
        return None
    started = time.time_ns()
    inputs = dict(previous.inputs)
    for path in changed:
        del inputs[path]
        try:
            info = os.stat(path)
        except OSError:
            continue  # deleted: no longer an input
        if stat.S_ISDIR(info.st_mode):
            return None  # a folder now, whose files only a whole scan finds
        inputs[path] = _scanned(path, info)
    return started, inputs


def _scanned(path: str, info: os.stat_result) -> Scanned:
    """What the scan knows of a file: its stat and its digest ("unread" for what is not a regular file, or
    cannot be read: the loaders report it, and a build after it appeared must not say `up to date`)."""
    if not stat.S_ISREG(info.st_mode):
        return [info.st_mtime_ns, info.st_size, info.st_ino, "unread"]
    digest = _digest(path, info.st_size)
    return [info.st_mtime_ns, info.st_size, info.st_ino, "unread" if digest is None else digest]


def _digest(path: str, size: int) -> str | None:
    """A regular file's digest, None when it cannot be read (or was swapped for something else since the
    stat); one too large for any input is known by its size alone (every loader refuses it)."""
    if size > MAX_INPUT_BYTES:
        return f"large:{size}"
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode):
            return None
        return file_digest(read_upto(descriptor, info.st_size, MAX_INPUT_BYTES))
    except OSError:
        return None
    finally:
        os.close(descriptor)


def settle(inputs: dict[str, Scanned]) -> dict[str, Scanned]:
    """The inputs as the scan found them, less those changed (or gone) since: a build may have read a file after
    it changed, so the next build must read it again, whatever its stat by then."""
    kept = {}
    for path, seen in inputs.items():
        if seen[3] == "unread":  # nothing read it (a dangling link, a name not UTF-8): the next scan compares
            kept[path] = seen
            continue
        try:
            info = os.stat(path)
        except OSError:
            continue
        if [info.st_mtime_ns, info.st_size, info.st_ino] == seen[:3]:
            kept[path] = seen
    return kept


def load_state(root: Path) -> State | None:
    """The last good build's state, or None when there is none or it cannot be read."""
    try:
        raw = orjson.loads((root / CACHE_DIR / STATE_FILE).read_bytes())
        if raw.get("format") != FORMAT:
            return None
        state = State(raw["key"], raw["started_ns"], raw["inputs"], [Finding(*found) for found in raw["findings"]],
                      [tuple(due) for due in raw["scheduled"]], raw["summary"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    shapes = (str, int, dict, dict)
    values = (state.options, state.started_ns, state.inputs, state.summary)
    if not all(isinstance(v, t) for v, t in zip(values, shapes)):
        return None
    if not all(isinstance(s, list) and len(s) == 4 for s in state.inputs.values()):
        return None
    return state


def save_state(root: Path, state: State) -> None:
    folder = root / CACHE_DIR
    folder.mkdir(exist_ok=True)
    findings = [[shown["path"], f.line, f.col, f.code, shown["message"], f.severity]
                for f in state.findings if (shown := f.as_dict())]  # (a name that is not UTF-8, escaped)
    write_whole(folder / STATE_FILE, orjson.dumps({"format": FORMAT, "key": state.options, "started_ns": state.started_ns,
                                                   "inputs": state.inputs, "findings": findings,
                                                   "scheduled": state.scheduled, "summary": state.summary}))


def content_digests(root: Path, inputs: dict[str, Scanned]) -> dict[str, str]:
    """The scan's files under content/ by the path a build shows them at (content/stories/...): their digests."""
    top = f"{root / 'content'}{os.sep}"
    return {"content/" + path[len(top):].replace(os.sep, "/"): seen[3] for path, seen in inputs.items()
            if path.startswith(top)}


def code_digest(inputs: dict[str, Scanned]) -> str:
    """The generator's own code as the scan found it: a change to it makes every cached result stale."""
    top = f"{PACKAGE}{os.sep}"
    return key_of(*sorted(f"{path[len(top):]}\0{seen[3]}" for path, seen in inputs.items() if path.startswith(top)))


def memo_key(inputs: dict[str, Scanned], digests: Mapping[str, str], options: str) -> str:
    """What a memo is good for: the generator's code, site.toml (which every record depends on) and the options
    of the command that made it (with the libraries it ran on). A memo under another key is not used."""
    return key_of(code_digest(inputs), digests.get("content/site.toml", ""), options)


@functools.cache
def libraries() -> str:
    """The name and version of every library the generator requires (the Requires-Dist lines of its installed
    package's metadata: a new requirement counts with no other change), as this process found them installed;
    what one process runs on does not change while it runs. Each version is read from the name of its
    distribution's metadata folder (NAME-VERSION.dist-info), one listing of each folder of sys.path for all."""
    installed: dict[str, tuple[str, str]] = {}  # normalized name -> (version, its metadata folder)
    for folder in sys.path:
        try:
            entries = os.listdir(folder or ".")
        except OSError:
            continue
        for entry in entries:
            named = entry.removesuffix(".dist-info")
            if named != entry and named.count("-") == 1:
                name, version = named.split("-")
                installed.setdefault(_normalized(name), (version, os.path.join(folder, entry)))
    own = installed.get(_normalized(DISTRIBUTION))
    try:
        with open(os.path.join(own[1], "METADATA"), encoding="utf-8") as metadata:
            required = [line[len(REQUIRES):] for line in metadata if line.startswith(REQUIRES)]
    except (TypeError, OSError):  # run from a folder, not installed: the code's digest must do
        return ""
    names = {_normalized(re.split(r"[\s;<>=!~\[(]", requirement.strip(), maxsplit=1)[0]) for requirement in required
             if "extra ==" not in requirement}  # (the test tools)
    return "\n".join(f"{name}=={installed[name][0] if name in installed else 'missing'}" for name in sorted(names))


def _normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()
