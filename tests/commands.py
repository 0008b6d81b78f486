"""Running the `ledgerpress` console script as a user does: a subprocess in a folder, with its own environment."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from pathlib import Path


def _console_script() -> Path:
    """The console script installed with this interpreter (a venv's bin/, or CI's `pip install -e .`), not
    whichever `ledgerpress` comes first on PATH."""
    beside = Path(sys.executable).with_name("ledgerpress")
    return beside if beside.exists() else Path(sysconfig.get_path("scripts")) / "ledgerpress"


LEDGERPRESS = _console_script()
TIMEOUT = 120  # seconds: a bound on each run, never a wait


def ledgerpress(*args: str, cwd: Path, env: dict[str, str] | None = None, stdin: str | None = None
                ) -> subprocess.CompletedProcess[str]:
    """Run `ledgerpress ARGS` in cwd; the test's own cache home and no manifest token unless env gives one."""
    base = {key: value for key, value in os.environ.items() if key != "LEDGERPRESS_MANIFEST_TOKEN"}
    return subprocess.run([str(LEDGERPRESS), *args], cwd=cwd, env={**base, **(env or {})}, input=stdin,
                          capture_output=True, text=True, timeout=TIMEOUT)
