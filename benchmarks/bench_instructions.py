"""Count the instructions a cold build executes, which this machine's drifting clock cannot blur.

    python benchmarks/bench_instructions.py --stories 100                  # this working tree
    python benchmarks/bench_instructions.py --stories 100 --revision 4626438

Wall and CPU times here move by half within minutes, so a change of a few percent cannot be seen in them.
`valgrind --tool=callgrind` counts the instructions a process executes instead: the same program on the
same input gives the same count whatever else the machine does. The script builds a corpus of N stories
(benchmarks/corpus.py) in one process (`--jobs 1`: callgrind runs one process at a time anyway) into a
scratch folder, with hash randomisation off, and prints the count of the whole process and of a process
that only imports the generator, so that the difference is the build's own. About 60 s for 100 stories
(callgrind runs Python some fifty times slower). Instructions are not time (a cache miss costs more than an
add, a system call is not counted): use it to compare two revisions of Python code, not to quote seconds.
Needs valgrind (Debian's package).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_build import REPO, corpus  # noqa: E402
from bench_compare import checkout  # noqa: E402

BUILD = """
import gc, sys
from pathlib import Path
gc.set_threshold(100_000, 50, 100)  # as the build command runs
try:
    from generator.engine import Folder, Options, build
except ImportError:  # a revision before the engine's one call: its pipeline, into a store that is not committed
    from generator.engine.build import Options, build_site
    from generator.output.folder import FolderStore
    store = FolderStore(Path(sys.argv[2]), Path(sys.argv[1]))
    result = build_site(Path(sys.argv[1]), store, Options(jobs=1, search=False))
    store.abort()
    assert result.ok and result.stories, "the corpus did not build"
else:
    report = build(Path(sys.argv[1]), Folder(Path(sys.argv[2])), Options(jobs=1, search=False, force=True))
    assert report.ok and report.counts.stories, "the corpus did not build"
"""
IMPORT = "import generator.engine, generator.output.folder"


def instructions(code: Path, script: str, *args: str) -> int:
    """Instructions executed by this interpreter running script in folder `code` (its package first)."""
    with tempfile.TemporaryDirectory() as scratch:
        done = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={scratch}/out", sys.executable, "-c", script, *args],
            cwd=code, capture_output=True, text=True, check=True,
            env={**os.environ, "PYTHONHASHSEED": "0", "PYTHONPATH": str(code)})
    found = re.search(r"Collected : (\d+)", done.stderr)
    if found is None:
        raise SystemExit(f"no count in valgrind's output:\n{done.stderr[-2000:]}")
    return int(found[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stories", type=int, default=100)
    parser.add_argument("--revision", help="count this git revision instead of the working tree")
    parser.add_argument("--work", type=Path, default=Path("/tmp/lp-bench"))
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    site = corpus(args.work, args.stories)
    code = checkout(args.revision, args.work) if args.revision else REPO
    # compiled beforehand, as an installed package is: compiling the generator would count otherwise
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(code / "generator")], check=True)
    with tempfile.TemporaryDirectory() as out:
        whole = instructions(code, BUILD, str(site), str(Path(out) / "public"))
    imports = instructions(code, IMPORT)
    print(f"{args.revision or 'working tree'}, {args.stories} stories, one process:")
    print(f"  whole process   {whole / 1e9:8.3f} G instructions")
    print(f"  imports only    {imports / 1e9:8.3f} G")
    print(f"  the build       {(whole - imports) / 1e9:8.3f} G ({(whole - imports) / args.stories / 1e6:.1f} M a story)")


if __name__ == "__main__":
    main()
