"""Time the preview's edit loop: from saving a story to the reloaded page's new content, as a browser sees it,
and to the search index that finds the new word.

    python benchmarks/bench_serve.py                    # a copy of the demo site (content/)
    python benchmarks/bench_serve.py --stories 4000     # a generated corpus (benchmarks/corpus.py)
    python benchmarks/bench_serve.py --root DIR --runs 5

It copies the site into a temporary folder (the original is never edited), starts `ledgerpress serve` there
on a free port as a user would, and keeps one server-sent-event stream open, like an open tab. Each run
appends a marker word to one paragraph of a story and saves it, then times (1) the `reload` event,
(2) the fetch of the story page that shows the marker and (3) the search index's update: the server indexes
the changed shard after the reload, so its pagefind-entry.json is fetched every POLL_S until it differs
from before the save. The story is the newest, so its shard is the primary (the first of
pagefind/shards.json); once the entry changed, the shard's fragments must hold the marker or the script
stops. Medians are printed as a Markdown table row (the targets: the reload under 300 ms, the index
within 2 s).
"""

from __future__ import annotations

import argparse
import gzip
import http.client
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
POLL_S = 0.025
MARKERS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet"]


class Server:
    """`python -m generator serve` on a free loopback port, its stderr collected on a thread."""

    def __init__(self, root: Path, timeout: float) -> None:
        command = [sys.executable, "-m", "generator", "serve", "--root", str(root), "--port", "0"]
        self.process = subprocess.Popen(command, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                        env={**os.environ, "PYTHONUNBUFFERED": "1"},
                                        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        self.lines: list[str] = []
        self.built = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()
        self.started = started = time.perf_counter()
        if not self.built.wait(timeout):
            self.stop()
            raise SystemExit("the first build did not finish:\n" + "".join(self.lines[-20:]))
        self.first_build = time.perf_counter() - started
        self.port = int(re.search(r"http://127\.0\.0\.1:(\d+)", "".join(self.lines))[1])

    def _read(self) -> None:
        for line in self.process.stderr:
            self.lines.append(line)
            if line.startswith(("built in", "build failed")):
                self.built.set()

    def get(self, path: str, timeout: float) -> bytes:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            connection.request("GET", path)
            return connection.getresponse().read()
        finally:
            connection.close()

    def status(self) -> dict:
        return json.loads(self.get("/__ledgerpress/status", 10))

    def primary_entry(self, timeout: float) -> str:
        """The path of the primary search bundle's pagefind-entry.json, once the first index is served."""
        deadline = time.perf_counter() + timeout
        while time.perf_counter() < deadline:
            try:
                bundle = json.loads(self.get("/pagefind/shards.json", timeout))["bundles"][0]
                json.loads(self.get(bundle + "pagefind-entry.json", timeout))
                return bundle + "pagefind-entry.json"
            except ValueError:  # a 404 page: not indexed yet
                time.sleep(0.2)
        raise SystemExit("the first search index was not served in time")

    def changed(self, path: str, before: bytes, timeout: float) -> bytes:
        """path's body once it differs from before, fetched every POLL_S."""
        deadline = time.perf_counter() + timeout
        while (body := self.get(path, timeout)) == before:
            if time.perf_counter() > deadline:
                raise SystemExit(f"{path} did not change within {timeout:.0f} s")
            time.sleep(POLL_S)
        return body

    def indexed(self, entry_path: str, entry: bytes, word: bytes, timeout: float) -> bool:
        """Whether a page fragment of the bundle whose entry this is holds word. The bundle's gzip'd CBOR
        metadata lists each page as a pair [fragment name, word count] (0x82, then a short text string)."""
        bundle = entry_path.rsplit("/", 1)[0] + "/"
        for language, info in json.loads(entry)["languages"].items():
            meta = gzip.decompress(self.get(f"{bundle}pagefind.{info['hash']}.pf_meta", timeout))
            for name in re.findall(rb"\x82[\x61-\x77](%s_[0-9a-f]+)" % re.escape(language.encode()), meta):
                if word in gzip.decompress(self.get(f"{bundle}fragment/{name.decode()}.pf_fragment", timeout)):
                    return True
        return False

    def stop(self) -> None:
        self.process.send_signal(signal.SIGINT)  # Ctrl-C
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()


class Stream:
    """One open event stream (an open tab)."""

    def __init__(self, port: int, version: int, timeout: float) -> None:
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
        self.connection.request("GET", f"/__ledgerpress/events?v={version}")
        self.response = self.connection.getresponse()

    def reload(self) -> int:
        event = None
        while True:
            line = self.response.fp.readline().decode()
            if not line:
                raise SystemExit("the event stream closed")
            if line.startswith("event: "):
                event = line[7:].strip()
            elif line.startswith("data: ") and event == "reload":
                return int(line[6:])


def copy_site(source: Path, target: Path) -> None:
    shutil.copytree(source / "content", target / "content")
    if (source / "templates").is_dir() and source.resolve() != REPO:
        shutil.copytree(source / "templates", target / "templates")


def pick_story(root: Path) -> tuple[Path, str]:
    """The newest story (its pages and every list page it is on change) and its URL path."""
    story = sorted((root / "content" / "stories").glob("*/*.md"))[-1]
    return story, f"/stories/{story.parent.name}/{story.stem}/"


def edit(story: Path, marker: str) -> None:
    """Add a word to the first citing paragraph: no figure, no new finding, just new text."""
    text = story.read_text(encoding="utf-8")
    at = text.index(" [cites:", text.index("\n---", 4))
    story.write_text(text[:at] + f" Benchmark{marker}." + text[at:], encoding="utf-8")


def measure(root: Path, runs: int, timeout: float) -> dict:
    server = Server(root, timeout)
    story, url = pick_story(root)
    event_ms, page_ms, build_s, search_ms = [], [], [], []
    try:
        entry_path = server.primary_entry(timeout)
        first_index = time.perf_counter() - server.started
        for run in range(runs):
            marker = MARKERS[run % len(MARKERS)] + MARKERS[run // len(MARKERS) % len(MARKERS)]
            stream = Stream(server.port, server.status()["version"], timeout)
            entry = server.get(entry_path, timeout)
            started = time.perf_counter()
            edit(story, marker)
            stream.reload()
            reloaded = time.perf_counter()
            page = server.get(url, timeout)
            fetched = time.perf_counter()
            stream.connection.close()
            if f"Benchmark{marker}".encode() not in page:
                raise SystemExit(f"run {run}: the reloaded page does not show the edit")
            entry = server.changed(entry_path, entry, timeout)
            search_ms.append((time.perf_counter() - started) * 1000)
            if not server.indexed(entry_path, entry, f"Benchmark{marker}".encode(), timeout):
                raise SystemExit(f"run {run}: the search index changed but does not hold the edit")
            event_ms.append((reloaded - started) * 1000)
            page_ms.append((fetched - started) * 1000)
            build_s.append(server.status()["seconds"])
            print(f"  run {run + 1}: reload event {event_ms[-1]:.0f} ms, new page {page_ms[-1]:.0f} ms, "
                  f"search index {search_ms[-1]:.0f} ms (server build {build_s[-1]:.2f} s)", file=sys.stderr)
    finally:
        server.stop()
    stories = len(list((root / "content" / "stories").glob("*/*.md")))
    return {"stories": stories, "first_build_s": server.first_build, "first_index_s": first_index,
            "event_ms": statistics.median(event_ms), "page_ms": statistics.median(page_ms),
            "build_s": statistics.median(build_s), "min_ms": min(page_ms), "max_ms": max(page_ms),
            "search_ms": statistics.median(search_ms), "search_max_ms": max(search_ms), "runs": runs}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=REPO, help="site to copy (default: the demo)")
    parser.add_argument("--stories", type=int, default=None, help="generate a corpus of this many stories instead")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--timeout", type=float, default=1800, help="seconds to wait for any one build")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ledgerpress-bench-serve-") as scratch:
        root = Path(scratch, "site")
        if args.stories:
            subprocess.run([sys.executable, str(REPO / "benchmarks" / "corpus.py"), str(root), "--stories",
                            str(args.stories)], check=True)
        else:
            copy_site(args.root, root)
        result = measure(root, args.runs, args.timeout)
    print("| stories | runs | first build s | first index s | rebuild s (server) | reload event ms | new page ms "
          "| min–max ms | search index ms | its max ms |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    print(f"| {result['stories']:,} | {result['runs']} | {result['first_build_s']:.2f} | {result['first_index_s']:.2f} "
          f"| {result['build_s']:.2f} | {result['event_ms']:.0f} | {result['page_ms']:.0f} "
          f"| {result['min_ms']:.0f}–{result['max_ms']:.0f} | {result['search_ms']:.0f} | {result['search_max_ms']:.0f} |")


if __name__ == "__main__":
    main()
