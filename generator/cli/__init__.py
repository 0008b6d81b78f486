"""The ledgerpress command line: each command calls one function, prints findings, and sets the exit code."""

from __future__ import annotations

import os
import sys

import click

# A build's parallelism is its processes (--jobs): the BLAS threads numpy starts on import would only spin
# beside them (numpy's vector work here is elementwise, never BLAS). Set before anything imports numpy.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
# pydantic looks for plugins (observability hooks) among the entry points of every installed distribution
# when it builds its first validator: 30 ms of each run here, a twentieth of a one-story rebuild, for hooks a
# site build has no use for. Whoever wants them sets PYDANTIC_DISABLE_PLUGINS themselves (e.g. to "none").
os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")

from .. import __version__  # noqa: E402
from .build import BUILT, build  # noqa: E402
from .check import check  # noqa: E402
from .new import new  # noqa: E402
from .publish import publish_command  # noqa: E402
from .rules import rules_command  # noqa: E402
from .serve import serve_command  # noqa: E402


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="ledgerpress")
def cli() -> None:
    """ledgerpress: build a provenance-checked news site from content/."""


for command in (build, check, new, serve_command, publish_command, rules_command):
    cli.add_command(command)


def main() -> None:
    try:
        cli(prog_name="ledgerpress")
    except KeyboardInterrupt:
        click.echo("interrupted: the output folder holds the last completed build", err=True)
        sys.exit(130)
    except SystemExit as done:
        if BUILT and isinstance(done.code, int | None):
            _leave(done.code or 0)
        raise


def _leave(code: int) -> None:
    """End a build's process without freeing, one by one, the millions of objects it made (tearing the
    interpreter down took longer than the checks of a one-story rebuild). Everything is written and
    flushed by then, and a build leaves no process or file behind to clean up."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
