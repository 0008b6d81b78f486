"""Every bound on what a build reads, in one place: a file past one is a finding, never a hang or a crash.
docs/security.md lists them for users; change both together."""

from __future__ import annotations

MAX_STORY_BYTES = 1 << 20          # a story file, front matter and body (the longest real ones are ~100 KB)
MAX_PAGE_BYTES = 1 << 20           # a plain page under content/pages/
MAX_AUTHOR_BYTES = 256 << 10       # an author file under content/authors/ (a name and a bio)
MAX_IMAGE_BYTES = 50_000_000       # an image under content/images/: a larger one is refused unread (LP070)
MAX_IMAGE_PIXELS = 40_000_000      # and one that would decode to more pixels (a 160 MB bitmap) too
MAX_MANIFEST_BYTES = 1 << 20       # a manifest file
MAX_CONFIG_BYTES = 256 << 10       # content/site.toml
MAX_FRONT_MATTER_BYTES = 64 << 10  # the YAML between the two '---' lines
MAX_NESTING = 64                   # lists and mappings inside one another, in front matter and manifests
MAX_NUMBER_DIGITS = 64             # an integer in a manifest or front matter (none is expected: ids are strings)
MAX_CITE_CHARS = 1024             # what a [cites: …] marker may hold: a longer one is not read as a marker
MAX_INPUT_BYTES = 64 << 20         # any input file the build hashes to see whether it changed (images included)
MAX_SENTENCE_CHARS = 2000          # a sentence the meaning checks compare with its claims (the longest real ones ~400)
MAX_STORY_FIGURES = 10_000         # figures of one story the meaning checks compare (a long story holds ~500)
