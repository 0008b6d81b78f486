"""`ledgerpress rules [CODE]`: what each rule checks, or one rule explained with an example that fails and one
that passes."""

from __future__ import annotations

import sys

import click

from .options import echo, say, verbosity

@click.command(name="rules")
@click.argument("code", required=False)
@click.option("--markdown", is_flag=True, help="Print every rule as docs/checks.md's reference section.")
@verbosity
def rules_command(code: str | None, markdown: bool) -> None:
    """List every rule code and what it checks; with CODE, explain that rule with two examples."""
    from ..checks import RULES
    from ..checks.rulebook import explained
    from ..checks.rulebook import markdown as reference
    from ..content.findings import close_match, did_you_mean

    if markdown:
        click.echo(reference(), nl=False)
    elif code is None:
        for known in sorted(RULES):
            click.echo(f"{known}  {RULES[known].summary}")
        say("")
        say("`ledgerpress rules CODE` explains one, with an example that fails and one that passes.")
    elif code.upper() in RULES:
        click.echo(explained(code.upper()), nl=False)
    else:
        hint = did_you_mean(close_match(code.upper(), RULES))
        echo(f"no rule has the code '{code}'{hint}: expected one of {', '.join(sorted(RULES))}", err=True)
        sys.exit(2)
