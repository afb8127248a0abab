"""Pure views of one read session: the /tree layout, context, summaries, stats."""
