"""The browser screen's panels: the sidebar, the branch tree, the header and the key bar
(the message pane has a folder of its own, ``ui/pane``)."""
