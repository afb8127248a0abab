"""Opening big sessions fast: worker processes, and saved skeletons for the next open."""
