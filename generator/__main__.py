"""`python -m generator` is the same program as `ledgerpress`."""

from .cli import main

main()
