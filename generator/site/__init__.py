"""The site around the stories: list pages, feeds, manifest pages, sitemaps and the search index."""

# importing these modules registers their producers (a new module of producers must be added here); the order
# of registration, which the imports among them decide, is the order their outputs are listed
from . import corrections, feeds, renditions, manifest_pages, pages, sitemaps  # noqa: E402,F401,I001
from .outputs import LAST, PRODUCERS, Output, Site, producer

__all__ = ["LAST", "PRODUCERS", "Output", "Site", "producer"]
