"""The ledgerpress command line: each command calls one function, prints findings, and sets the exit code."""

from __future__ import annotations

import gc
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
from .build import build  # noqa: E402
from .check import check, list_rules  # noqa: E402
from .new import new  # noqa: E402
from .publish import publish_command  # noqa: E402
from .serve import serve_command  # noqa: E402


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="ledgerpress")
def cli() -> None:
    """ledgerpress: build a provenance-checked news site from content/."""


for command in (build, check, new, serve_command, publish_command, list_rules):
    cli.add_command(command)


def main() -> None:
    # A build makes millions of objects that live until it ends, and few cycles: the cyclic collector, run at
    # its usual pace, would scan them again and again. Set once here, for this process and the workers it forks.
    gc.set_threshold(100_000, 50, 100)
    try:
        cli(prog_name="ledgerpress")
    except KeyboardInterrupt:
        click.echo("interrupted: the output folder holds the last completed build", err=True)
        sys.exit(130)
