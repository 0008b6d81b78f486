"""Pelican settings for bench_others.py: the default theme, as pelican-quickstart's publish settings set it up."""

AUTHOR = "Benchmark Ledger"
SITENAME = "Benchmark Ledger"
SITEURL = "https://bench.example.org"
PATH = "content"
TIMEZONE = "UTC"
DEFAULT_LANG = "en"

# every story under stories/<date>/<slug>/ as ours are, so pages can be counted the same way
ARTICLE_URL = "stories/{date:%Y-%m-%d}/{slug}/"
ARTICLE_SAVE_AS = "stories/{date:%Y-%m-%d}/{slug}/index.html"

DEFAULT_PAGINATION = 10
FEED_ALL_ATOM = "feeds/all.atom.xml"
CATEGORY_FEED_ATOM = "feeds/{slug}.atom.xml"

# cold builds: no content cache read or written, the output folder emptied first
LOAD_CONTENT_CACHE = False
CACHE_CONTENT = False
DELETE_OUTPUT_DIRECTORY = True
