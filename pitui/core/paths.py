"""Where pitui keeps its own files (never beside the sessions)."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["default_cache_dir"]


def default_cache_dir() -> Path:
    """pitui's cache folder: ``$PITUI_CACHE_DIR``, else platformdirs' user cache folder."""
    env = os.environ.get("PITUI_CACHE_DIR")
    if env:
        return Path(env)
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("pitui", appauthor=False))
