"""Writing a session out: Markdown, JSON and HTML."""
