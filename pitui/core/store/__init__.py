"""Many sessions: finding them, the cached listing, and the search index."""
