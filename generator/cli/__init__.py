"""The ledgerpress command line: each command calls one function, prints findings, and sets the exit code."""

from __future__ import annotations

import gc
import os
import sys
import threading

import click

from .. import __version__
from ..content.findings import printable
from .build import build
from .check import check
from .init import init
from .manifest_commands import manifest_group, manifests_group
from .mcp import mcp_command
from .new import new
from .options import verbosity
from .publish import publish_command
from .rules import rules_command
from .serve import serve_command


class Commands(click.Group):
    """Commands listed in the order a site is made (start, write, check, build, preview, publish)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(self.commands)

    def invoke(self, ctx: click.Context):
        # here, before click turns Ctrl-C into its own "Aborted!" and exit status 1
        try:
            return super().invoke(ctx)
        except click.ClickException as err:  # one line, whatever a file name or an answer in it holds
            err.message = printable(err.message)
            raise
        except KeyboardInterrupt:
            kept = ": the output folder holds the last completed build" if ctx.invoked_subcommand == "build" else ""
            click.echo(f"\ninterrupted{kept}", err=True)
            sys.exit(130)


@click.group(cls=Commands, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="ledgerpress")
@verbosity
def cli() -> None:
    """ledgerpress builds a news site whose every paragraph cites its source records, and refuses a story
    whose citations do not check out.

    \b
    Start:    ledgerpress init mysite && cd mysite
    Write:    ledgerpress new "Headline" --newsroom news --beat general
    Check:    ledgerpress check
    Preview:  ledgerpress serve --open
    Build:    ledgerpress build

    `ledgerpress COMMAND --help` explains a command; docs/ in the repository explains everything.
    """


# The command list shows these lines whole (click would cut each command's first sentence to fit).
SUMMARIES = {
    init: "Start a new site: one story, one manifest, checks clean.",
    new: "Start a story, as a draft with its slug pinned.",
    manifest_group: "Make a manifest (a source record) with a fresh id.",
    manifests_group: "Fetch the manifests stories cite from the manifest store.",
    check: "Run every rule and print the findings; exit 1 on an error.",
    rules_command: "List every rule, or explain one with an example that fails and one that passes.",
    build: "Check the site, then write it into public/.",
    serve_command: "Preview the site on your machine; it rebuilds on every save.",
    publish_command: "Copy public/ to a folder or an S3 bucket, changed files only.",
    mcp_command: "Serve the agent desk: checks, manifests and drafts as MCP tools for writing agents.",
}

for command, summary in SUMMARIES.items():
    command.short_help = summary
    cli.add_command(command)


def main() -> None:
    """The process: its settings are made here, once, and nowhere below (the engine is a library, built
    through by the preview and the agent desk in their own processes, and by the tests in theirs)."""
    # A build's parallelism is its processes (--jobs): the BLAS threads numpy starts on import would only spin
    # beside them (numpy's vector work here is elementwise, never BLAS). Set before anything imports numpy.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    # pydantic looks for plugins (observability hooks) among the entry points of every installed distribution
    # when it builds its first validator, a scan that costs more than a small rebuild, for hooks a site build
    # has no use for. Whoever wants them sets PYDANTIC_DISABLE_PLUGINS themselves (e.g. to "none").
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    # A build makes millions of objects that live until it ends, and few cycles: the cyclic collector, run at
    # its usual pace, would scan them again and again. Set once here, for this process and the workers it forks.
    gc.set_threshold(100_000, 50, 100)
    try:
        cli(prog_name="ledgerpress")
    except SystemExit as done:  # click ends every command so, its work done
        _end(done)
        raise


def _end(done: SystemExit) -> None:
    """End the process at once when nothing else runs in it: freeing a large build's millions of objects one
    by one at interpreter shutdown takes longer than the system takes to drop them all when the process ends
    (every file is closed and every worker joined by then; only the standard streams need flushing)."""
    if threading.active_count() != 1 or not (done.code is None or isinstance(done.code, int)):
        return
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):  # a closed pipe: let the interpreter report it as it would
        return
    os._exit(done.code or 0)
