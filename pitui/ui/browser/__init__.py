"""The browser screen: sidebar | branch tree | message pane, and what keeps them filled.

``screen.py`` composes the panels, ties the tree and the pane together and handles the
messages. The state each widget shows is its own (the sidebar lists the sessions, the
header counts the branch, the tree moves, the pane holds its toggles); the jobs around
them are plain helpers the screen owns, each in a module of its own: opening a session
(``opener.py``), following its file (``follower.py``), the panels' layout
(``panels.py``) and the search in the pane (``pane_search.py``); the first paint is
``ui/first_paint.py``. The keys that take something out of the app are functions
(``copy_export.py``, ``into_pi.py``). Every slow step runs on a thread worker, which posts
a message (``ui/messages.py``) and never touches a widget.
"""
