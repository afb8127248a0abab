"""Drawing ahead: what the next moves would show, drawn while the user reads.

After a quiet moment (``BrowserScreen.LOOKAHEAD_SECONDS`` without input) the browser screen
calls :func:`look_ahead`. It works out where the fork, user-message, root, leaf, page and
sibling-branch keys would go from the selection and, on worker threads, draws the pane's
blocks those moves would bring into view (and the blocks a page above and below the view)
and summarises the tree rows they would bring into view. Everything goes into the caches
only: nothing on screen changes. The next input stops it before its next block, and a key
that needs the very block being drawn waits for that drawing instead of starting a second.
"""

from __future__ import annotations

from typing import Any

from ..core import gc_policy
from ..core.model.navigation import fork_target, leaf_target, root_target, sibling_target, user_target

__all__ = ["look_ahead"]


def look_ahead(screen: Any, since: float) -> None:
    """Draw ahead from the selection on ``screen`` (the browser); stop at the first input
    after ``since``."""
    app = screen.app
    session = screen.session
    tree = screen.branch_tree
    layout = tree.tree_layout
    if session is None or tree.nav is None or layout is None or app.screen is not screen:
        return
    if tree.laying_out or not layout.has_children or not (layout.forks_made or len(layout.rows) < tree.LAYOUT_IN_THREAD):
        # (a layout, or what the keys walk, is being made on a worker: not made here)
        screen.schedule_lookahead()
        return
    nav, sel = tree.nav, tree.selected_entry
    if sel < 0:
        return
    pane = screen.pane
    siblings = [sibling_target(nav, sel, -1), sibling_target(nav, sel, 1)]
    centred = [fork_target(nav, sel, -1), fork_target(nav, sel, 1), user_target(nav, sel, -1),
               user_target(nav, sel, 1), root_target(nav, sel), leaf_target(nav, sel)] + siblings
    paged = [(tree.page_target(-1), "top"), (tree.page_target(1), "bottom")]
    blocks: list[int] = []
    rows: list[range] = []
    for target, how in [(index, "center") for index in centred] + paged:
        if target is None or target < 0 or target == sel:
            continue
        blocks += pane.blocks_for_entry(target)
        rows.append(tree.rows_for(target, how))
    blocks += pane.blocks_beside_view()  # (the pane's own page keys)
    # [ and ] show another branch: its blocks are worked out on the drawing thread
    more = []
    for target in siblings:
        if target is not None and target >= 0 and pane.block_of(target) is None:
            produce = pane.branch_ahead(nav.leaf_below(target), target)
            if produce is not None:
                more.append(produce)

    def stop() -> bool:
        return getattr(app, "last_input_at", 0.0) != since

    pane.draw_ahead(blocks, stop, more)
    tree.summarise_ahead(rows, stop)
    gc_policy.collect_if_due_soon()
