"""The one YAML reader of reviewer: PyYAML's safe loader with bounds, for
every YAML file or block reviewer reads (Failter specs, front matter and
``.eval`` files, prices, metrics files).

A YAML file can be small and still cost without bound: a "billion laughs"
document nests aliases (``b: [*a, *a, ...]``, ``c: [*b, *b, ...]``) so that
walking or printing what it loads touches 10^9 values, and a deeply nested
flow (``[[[[...``) exhausts the parser's recursion. So:

* a text over ``limit`` bytes (``MAX_YAML_BYTES``, 1 MB, by default) is
  refused before parsing; a file is read only up to its limit;
* more than ``MAX_ALIASES`` aliases in a document are refused (anchors and
  a few aliases, as hand-written configurations use them, still load);
* nesting deeper than ``MAX_DEPTH`` is refused.

A refusal raises :class:`YAMLLimitError`, a ``yaml.YAMLError``, so a caller
that already treats bad YAML as "not YAML" keeps doing so; its message is
one line for the user.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import yaml

#: The largest YAML text read (bytes, UTF-8): specs, front matter, .eval files.
MAX_YAML_BYTES = 1_000_000
#: The most aliases (``*name``) one document may use.
MAX_ALIASES = 10
#: The deepest nesting of sequences and mappings.
MAX_DEPTH = 100

YAMLError = yaml.YAMLError


class YAMLLimitError(yaml.YAMLError):
    """A YAML text refused by a bound (size, aliases, nesting); the message
    says which, in one line."""


class _BoundedLoader(yaml.SafeLoader):
    """SafeLoader counting aliases and nesting as it composes the document."""

    def __init__(self, stream: str):
        super().__init__(stream)
        self._aliases = 0
        self._depth = 0

    def compose_node(self, parent, index):  # PyYAML's hook
        if self.check_event(yaml.AliasEvent):
            self._aliases += 1
            if self._aliases > MAX_ALIASES:
                raise YAMLLimitError(f"more than {MAX_ALIASES} aliases (a YAML alias bomb?)")
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                raise YAMLLimitError(f"nested deeper than {MAX_DEPTH} levels")
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


def load_yaml(text: str | bytes, limit: int = MAX_YAML_BYTES) -> Any:
    """The value of the first YAML document in ``text`` (``yaml.safe_load``
    within the module's bounds). Bytes are read as UTF-8. Raises
    YAMLLimitError when ``text`` is over ``limit`` bytes, uses more than
    MAX_ALIASES aliases or nests deeper than MAX_DEPTH; yaml.YAMLError when
    it is not YAML; UnicodeDecodeError for bytes that are not UTF-8."""
    size = len(text) if isinstance(text, bytes) else len(text.encode("utf-8", errors="surrogatepass"))
    if size > limit:
        raise YAMLLimitError(f"larger than {_size(limit)} ({size:,} bytes)")
    if isinstance(text, bytes):
        text = text.decode("utf-8")
    loader = _BoundedLoader(text)
    try:
        return loader.get_single_data()
    except RecursionError:
        raise YAMLLimitError("nested too deeply") from None
    finally:
        loader.dispose()


def read_yaml_file(path: str | Path, limit: int = MAX_YAML_BYTES) -> Any:
    """:func:`load_yaml` of the file at ``path``, read no further than
    ``limit`` + 1 bytes. Raises OSError when it cannot be read, and what
    load_yaml raises."""
    with open(path, "rb") as f:
        data = f.read(limit + 1)
        if len(data) > limit:
            raise YAMLLimitError(f"larger than {_size(limit)} ({os.fstat(f.fileno()).st_size:,} bytes)")
    return load_yaml(data, limit)


def _size(n: int) -> str:
    return f"{n / 1_000_000:g} MB" if n >= 1_000_000 else f"{n:,} bytes"
