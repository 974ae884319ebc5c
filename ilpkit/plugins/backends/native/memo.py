"""A small memo for the native backend's identity caches (body parts, literal variables)."""

from __future__ import annotations

from typing import Generic, TypeVar

K_ = TypeVar("K_")
V_ = TypeVar("V_")


class Generations(Generic[K_, V_]):
    """A memo of at most about ``2 * size`` entries: a new generation starts when the
    current one holds ``size``, and the one before it is dropped; a hit in the old
    generation moves the entry to the new one.  Why not clear everything at the cap: the
    entries a search uses again are the recent ones, which a clear would throw away with
    the rest; why not an exact LRU: this costs one or two dict lookups per access."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._new: dict[K_, V_] = {}
        self._old: dict[K_, V_] = {}

    def get(self, key: K_) -> V_ | None:
        """The entry of ``key``, or None."""
        got = self._new.get(key)
        if got is None:
            got = self._old.pop(key, None)
            if got is not None:
                self.put(key, got)
        return got

    def put(self, key: K_, value: V_) -> None:
        if len(self._new) >= self.size:
            self._old, self._new = self._new, {}
        self._new[key] = value

    def __len__(self) -> int:
        return len(self._new) + len(self._old)

    def clear(self) -> None:
        self._new.clear()
        self._old.clear()
