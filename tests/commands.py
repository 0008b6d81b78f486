"""Running the `ledgerpress` command as a user does: in this process through click's runner (`ledgerpress`),
in a folder, with its own environment, as the program runs it but for main()'s process settings; or, where the
command must be a process of its own (one that may serve until stopped), the console script (`as_process`)."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import sysconfig
import traceback
from pathlib import Path
from typing import NamedTuple

from click.testing import CliRunner


def _console_script() -> Path:
    """The console script installed with this interpreter (a venv's bin/, or CI's `pip install -e .`), not
    whichever `ledgerpress` comes first on PATH."""
    beside = Path(sys.executable).with_name("ledgerpress")
    return beside if beside.exists() else Path(sysconfig.get_path("scripts")) / "ledgerpress"


LEDGERPRESS = _console_script()
TIMEOUT = 120  # seconds: a bound on each run, never a wait


class Ran(NamedTuple):
    """What a command left, as subprocess.run gives it: its exit status and what it printed."""

    returncode: int
    stdout: str
    stderr: str


def ledgerpress(*args: str, cwd: Path, env: dict[str, str] | None = None, stdin: str | None = None) -> Ran:
    """`ledgerpress ARGS` in cwd, in this process; no manifest token unless env gives one. A bug's exception is
    printed as the program would print it, a traceback on stderr and exit status 1."""
    from generator.cli import cli

    given = {"LEDGERPRESS_MANIFEST_TOKEN": None, **(env or {})}
    with contextlib.chdir(cwd):
        done = CliRunner().invoke(cli, list(args), env=given, input=stdin, prog_name="ledgerpress")
    if done.exception is not None and not isinstance(done.exception, SystemExit):
        shown = "".join(traceback.format_exception(done.exception))
        return Ran(1, done.stdout, done.stderr + shown)
    return Ran(done.exit_code, done.stdout, done.stderr)


def as_process(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """`ledgerpress ARGS` as its own process (the installed console script), bounded by TIMEOUT."""
    base = {key: value for key, value in os.environ.items() if key != "LEDGERPRESS_MANIFEST_TOKEN"}
    return subprocess.run([str(LEDGERPRESS), *args], cwd=cwd, env={**base, **(env or {})}, capture_output=True,
                          text=True, timeout=TIMEOUT)
