"""The site's other outputs (site/): what each producer says it makes, which of those the memo and the store
hold already as they would be made now, and the making of the rest."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..content.config import SiteConfig
from ..content.findings import Finding
from ..output.store import OutputStore, Receipt
from ..output.tree import folders_of
from ..render.templates import Renderer
from ..site import LAST, PRODUCERS, Output, Site
from .fingerprint import fingerprint, qualified_name
from .pool import run_all
from .records import PageRecord

PER_WORKER = 64  # site outputs are quick to make: fewer than this a process are made here
PAGES = "content/pages/"  # where the plain pages come from


def site_outputs(site: Site, only: Collection[str] | None = None) -> list[tuple[str, Output]]:
    """Every output the producers make of the site, each with its producer's name; the last ones are told every
    other output's path. `only`: just the producers of these names, none of them a last one."""
    if only is not None:
        return [(name, output) for produce in PRODUCERS if (name := qualified_name(produce)) in only
                for output in produce(site)]
    outputs = [(qualified_name(produce), output) for produce in PRODUCERS for output in produce(site)]
    whole = dataclasses.replace(site, paths=sorted({*site.paths, *(output.path for _, output in outputs)}))
    outputs.extend((qualified_name(produce), output) for produce in LAST for output in produce(whole))
    return outputs


def site_fingerprint(site: Site, renderer: Renderer) -> str:
    """All that producers read but the story outputs some of them read (the Site value whole: each story by
    its teaser's digest, each file by its bytes'), and every template: while it stays the same, an output is
    made again only if a story output it reads changed."""
    return fingerprint(site, renderer.digest(*renderer.templates.list_templates()))


def collisions(outputs: Sequence[Output], taken: Mapping[str, str]) -> tuple[set[int], list[Finding]]:
    """The positions of the outputs that cannot be written, and an LP011 for each: its path is another output's
    (or a story variant's, in `taken`), or a file stands where it needs a folder, or the other way round. A
    plain page yields to what the build makes itself."""
    owners = dict(taken)
    folders = {folder: source for path, source in owners.items() for folder in folders_of([path])}
    lost, findings = set(), []
    for n in sorted(range(len(outputs)), key=lambda n: outputs[n].source.startswith(PAGES)):
        output = outputs[n]
        other = owners.get(output.path) or folders.get(output.path) or next(
            (owners[folder] for folder in sorted(folders_of([output.path])) if folder in owners), None)
        if other is None:
            owners[output.path] = output.source
            folders.update(dict.fromkeys(folders_of([output.path]), output.source))
            continue
        lost.add(n)
        url = "/" + output.path.removesuffix("index.html")
        findings.append(Finding(output.source, 1, 1, "LP011", f"same URL {url} as {other}: expected each page "
                                "at a path of its own"))
    return lost, findings


def output_fingerprint(output: Output, renderer: Renderer, made: Mapping[str, str]) -> str:
    """All an output is made from (besides site.toml): its template and all that it includes, its context, and
    the digests of the outputs it reads (`made`: the story outputs of this build)."""
    template = renderer.digest(output.template) if output.template else ""
    return fingerprint(output.path, output.template, template, output.raw, output.make, output.view, output.context,
                       [(path, made.get(path, "")) for path in output.reads])


def stale_outputs(outputs: Sequence[Output], prints: Sequence[str], records: Mapping[str, PageRecord],
                  holds: Callable[[str, str], bool]) -> list[int]:
    """The positions of the outputs to make: those the memo does not show made from the same fingerprint,
    and those the store no longer holds as made."""
    return [n for n, (output, made) in enumerate(zip(outputs, prints))
            if (record := records.get(output.path)) is None or record.made_from != made
            or not holds(output.path, record.digest)]


@dataclass(frozen=True)
class PageMaking:
    """What making the site's outputs needs, and the outputs to make (forked workers inherit it, and are sent
    only each output's position: an output's context holds many stories). `shared`: the last output given a
    view and that view, which the next output shares when it asks the same view of the same context (a
    manifest's index.html and index.json, made one after the other)."""

    config: SiteConfig
    renderer: Renderer
    store: OutputStore
    outputs: Sequence[Output]
    shared: list = field(default_factory=lambda: [None, None])


def make_output(making: PageMaking, position: int) -> Receipt:
    output = making.outputs[position]
    if output.template is None:
        text = output.make(making.config, **output.context)
    elif output.raw:
        text = making.renderer.source(output.template)
    else:
        context = _view(making, output) if output.view else output.context
        text = making.renderer.render(output.template, **context)
    return making.store.put(output.path, text if isinstance(text, bytes) else text.encode("utf-8"))


def _view(making: PageMaking, output: Output) -> dict[str, Any]:
    """What output.view makes of the output's context (and of the story outputs it reads)."""
    last, view = making.shared
    if last is not None and last.view is output.view and last.context is output.context and last.reads == output.reads:
        return view
    given = {**output.context, "read": {path: making.store.read(path) for path in output.reads}} \
        if output.reads else output.context
    view = output.view(making.config, **given)
    making.shared[:] = [output, view]
    return view


def make_outputs(making: PageMaking, workers: int) -> list[Receipt]:
    """Make the outputs, on every core when there are many; put each in the store."""
    receipts = list(run_all(make_output, making, range(len(making.outputs)), workers, min_per_job=PER_WORKER))
    for receipt in receipts:
        making.store.receive(receipt)
    return receipts
