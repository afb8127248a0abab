"""Where things are on the demo user's machine: the absolute paths written into the files."""

#: Where the demo user's Pi keeps its sessions (``parentSession`` and subagent artifact paths).
PI_SESSIONS = "/home/demo/.pi/agent/sessions"
#: Where Pi is installed (the system prompt's documentation paths).
PI_PKG = "/home/demo/.local/lib/node_modules/@earendil-works/pi-coding-agent"

# The three projects' working directories.
SHOP = "/home/demo/shop"
DOTFILES = "/home/demo/dotfiles"
BLOG = "/home/demo/blog"
