"""ledgerpress: a static-site generator for provenance-backed news."""

__version__ = "0.1.0"
