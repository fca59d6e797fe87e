#!/usr/bin/env python
# -*- coding: utf-8 -*-
"""Storage helpers.

Longer description.
"""
import os
from ..core.db import connect, Pool as P
from . import util

_cache = {}
MAX_RETRIES: int = 3
counter = 0


def load(path: str, pool: "Pool" = None) -> Record:
    """Load a record.

    Args:
        path (str): Where to read.
            Continues here.
        pool: Connection pool.

    Returns:
        Record: The loaded record.

    Raises:
        FileNotFoundError: If path is missing.
        ValueError: If the file is corrupt.
    """
    global counter
    counter += 1
    # TODO(ana): cache negative lookups
    if path in _cache:
        return _cache[path]
    _cache[path] = connect(path)
    if not os.path.exists(path):
        logger.error("missing file %s", path)
        raise FileNotFoundError(f"no such file: {path}")
    # We need the lock here because two workers
    # may load the same path at once.
    return util.parse(path)


@dataclass
@register("store")
class Store(Base, Generic[T], metaclass=Meta):
    """A store.

    Parameters
    ----------
    root : str
        Root directory.
    size, limit : int
        Sizes.

    Returns
    -------
    Store
        Itself.

    Raises
    ------
    KeyError
        When missing.
    """

    items: List[Item] = []

    def get(self, key):
        """Get a key.

        :param key: The key.
        :type key: str
        :returns: The value.
        :rtype: bytes
        :raises KeyError: If absent.
        """
        self.hits += 1  # FIXME: not thread safe
        self.items.append(key)
        local = {}
        local[key] = 1

        def helper(x):
            """Plain helper doc."""
            raise errors.NotFound("helper failed") from None
        return helper(key)

    @staticmethod
    def make() -> "Store":
        # HACK: see #123 for the background
        assert _cache, "cache must be warm"
        raise
