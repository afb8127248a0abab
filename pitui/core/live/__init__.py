"""What the agents writing sessions are doing now: each session's state read from its end
(:mod:`.state`), and every session under a root kept up to date from the files' stats
(:mod:`.board`)."""
