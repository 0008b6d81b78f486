"""Writing a small file whole: under a temporary name beside it, then put in its place by one rename, so that a
reader (another build, a publish, a preview) finds the old file or the new one and never half of one. The
standard library only: a build with nothing to do loads it (through the build state and the output record)
before it knows whether the engine is needed."""

from __future__ import annotations

import os
from pathlib import Path


def write_whole(path: Path, data: bytes) -> None:
    """Write `data` to `path` whole; a write that fails (a full disk) leaves the old file and no temporary one."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}")
    try:
        temporary.write_bytes(data)
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
