"""Locks between the workers of a parallel run (pytest-xdist) for the few things they share."""

from __future__ import annotations

import fcntl
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def one_build_at_a_time() -> Iterator[None]:
    """``pip wheel`` and ``pip install`` of this checkout build in its own ``build/`` folder
    (setuptools builds in the source tree): two workers building at once would write the same
    files. The lock lives in the run's temporary folder, which every worker shares."""
    path = Path(tempfile.gettempdir()) / "trackside-checkout-build.lock"
    with path.open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
