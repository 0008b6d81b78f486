"""The media type of each output file, as the preview server and publish send it."""

from __future__ import annotations

import mimetypes

TEXT = "text/plain; charset=utf-8"
TYPES = {".html": "text/html; charset=utf-8", ".json": "application/json", ".md": "text/markdown; charset=utf-8",
         ".xml": "application/xml; charset=utf-8", ".css": "text/css; charset=utf-8", ".txt": TEXT,
         ".js": "text/javascript; charset=utf-8", ".mjs": "text/javascript; charset=utf-8",
         ".wasm": "application/wasm", ".svg": "image/svg+xml", ".webp": "image/webp",
         ".webmanifest": "application/manifest+json"}
NAMED = {"feed.xml": "application/atom+xml; charset=utf-8", "feed.json": "application/feed+json"}

def content_type(path: str) -> str:
    """The media type of an output path; Pagefind's own files (.pf_*, .pagefind) are opaque bytes."""
    name = path.rsplit("/", 1)[-1]
    suffix = "." + name.rsplit(".", 1)[-1] if "." in name else ""
    return NAMED.get(name) or TYPES.get(suffix) or mimetypes.guess_type(name)[0] or "application/octet-stream"
