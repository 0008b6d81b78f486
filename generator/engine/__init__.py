"""The build engine: read and check a site, then make again exactly the outputs whose fingerprint (of all each
is made from) changed, and those the output store no longer holds. Every caller builds through one call:
`build(root, Folder(out) or Memory(), Options(...)) -> Report`."""

from .build_options import Options
from .report import Report
from .destinations import Folder, Memory
from .run import build

__all__ = ["Folder", "Memory", "Options", "Report", "build"]
