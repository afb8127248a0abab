"""The browser screen: sidebar | branch tree | message pane, and what keeps them filled.

``screen.py`` composes the panels and ties them together; each job around them is a part
mixed into the screen, in a module of its own: listing the sessions (``listing.py``),
opening one (``loading.py``), following its growth (``following.py``), the header and its
tokens and cost (``header_stats.py``), the keys that move and toggle (``actions.py``),
those that take an entry or a branch away (``take_away.py``) and the panels' layout
(``panels.py``). Every slow step runs on a
thread worker, which posts a message (``ui/messages.py``) and never touches a widget.
"""
