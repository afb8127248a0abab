"""The app's screens other than the browser: help, search, stats, context (each imported
when first shown: a start needs none of them)."""
