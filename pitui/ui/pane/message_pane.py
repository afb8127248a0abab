"""The message pane: one branch of a session, every entry drawn as a block.

Blocks are built from the session's skeleton only (types, roles, byte lengths), so showing
a 10,000-entry branch parses nothing up front; entry bodies are read when a block comes
into view. An assistant message and the tool results right after it form one block, each
call drawn with its result; the result entries stay addressable (they map to that block).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Hashable

from rich.style import Style
from rich.text import Text
from textual.timer import Timer

from ...core.context import context_entry_indices
from ...core.session import F_ASSISTANT_TEXT, Session
from ...core.summary import one_line, text_of
from .messages import EntryFocused, OpenSessionFile
from .render import (
    CUT_LINES,
    Out,
    date_of,
    fmt_cost,
    fmt_time,
    fmt_tokens,
    message_header,
    render_assistant,
    render_bash_execution,
    render_branch_summary,
    render_compaction,
    render_content,
    render_custom_entry,
    render_header,
    render_json_body,
    render_marker,
    render_message,
    render_tool_results,
    sanitize,
)
from .scroller import BlockScroller

__all__ = ["MessagePane"]

_MARKERS = frozenset({"model_change", "thinking_level_change", "usage", "label", "session_info", "context_edit"})
# Bookkeeping entries that may sit between an assistant message and its tool results.
_TRANSPARENT = frozenset({"label", "session_info"})


@dataclass(slots=True)
class _Block:
    kind: str  # "assistant" | "results" | "entry" | "marker"
    entries: tuple[int, ...]
    key: Hashable = None
    in_context: bool = True
    first_out: bool = False  # the first block of a run outside the model's context
    mark: str | None = None  # "edited" | "omitted" (by a context edit)
    label: str | None = None
    prev_ts: Any = None  # the timestamp of the block above (the date is shown when it changes)


class MessagePane(BlockScroller):
    """The branch through the selected entry, drawn lazily with the line API."""

    EntryFocused = EntryFocused
    OpenSessionFile = OpenSessionFile

    DEFAULT_CSS = """
    MessagePane {
        overflow-x: hidden;
        overflow-y: scroll;
        scrollbar-size-vertical: 1;
    }
    """

    def __init__(self, *, name: str | None = None, id: str | None = None, classes: str | None = None):
        super().__init__(name=name, id=id, classes=classes)
        self._session: Session | None = None
        self._branch: list[int] = []
        self._entry_block: dict[int, int] = {}
        self._last_focus: int | None = None
        self._focus_timer: Timer | None = None
        self._artifact_cache: dict[str, str | None] = {}

    # ------------------------------------------------------------------ public API
    @property
    def session(self) -> Session | None:
        return self._session

    @property
    def branch(self) -> list[int]:
        return self._branch

    def show_branch(self, session: Session, branch: list[int], selected: int) -> None:
        """Show ``branch`` (entry indices root..leaf) with ``selected``'s block at the top.

        Showing the same branch again (or the same branch grown at its end, after a
        refresh) keeps the view where it is when ``selected`` is already in view, and
        stays at the bottom when the view was at the bottom.
        """
        old_branch = self._branch
        same_session = session is self._session
        same = (
            same_session
            and bool(old_branch)
            and len(branch) >= len(old_branch)
            and branch[: len(old_branch)] == old_branch
        )
        keep = None
        if same and self._blocks and self._width > 0:
            anchor = self._top_anchor()
            was_bottom = round(self.scroll_y) >= self.max_scroll_y and self.max_scroll_y > 0
            sel_b = self._entry_block.get(selected)
            view_top = round(self.scroll_y)
            view_bottom = view_top + self.scrollable_content_region.height
            sel_visible = sel_b is not None and (
                self._heights.top(sel_b) < view_bottom and self._heights.top(sel_b) + self._heights[sel_b] > view_top
            )
            if anchor is not None and sel_visible:
                keep = (self._blocks[anchor[0]].entries[0], anchor[1], was_bottom and len(branch) > len(old_branch))
        if not same_session:
            self._generation += 1
            self._rcache.clear()
            self._hcache.clear()
            self._deps.clear()
            self._inverted.clear()
            self._artifact_cache.clear()
        query = self._query_text if same else ""
        self._session = session
        self._branch = list(branch)
        self._build_blocks()
        if not same:
            self._query = None
            self._query_text = ""
        if self._width <= 0:
            self._pending_scroll = ("entry", selected)
            return
        if keep is not None:
            entry, off, to_bottom = keep
            b = self._entry_block.get(entry)
            self._relayout((b, off) if b is not None else None)
            if to_bottom:
                self.scroll_end_now()
        else:
            self._relayout()
            self.scroll_to_entry(selected)
        if query:
            self.search(query)

    def scroll_to_entry(self, i: int) -> None:
        """Put entry ``i``'s block at the top; a tool result is drawn in its call's block,
        so for one the view goes to that block with the call's line at the top."""
        b = self._entry_block.get(i)
        if b is None:
            return
        if self._width <= 0:
            self._pending_scroll = ("entry", i)
            return
        if i == self._last_focus and self._covers_top(b):
            return  # already there (e.g. the app echoing our own EntryFocused back)
        r = self._rendered(b)
        self._measure(b)
        self._update_virtual_size()
        off = 0
        if i != self._blocks[b].entries[0]:
            for line, entry in r.sections:
                if entry == i:
                    off = line
                    break
        self._scroll_to_y(self._heights.top(b) + off)
        self._settle()
        # What is at the top now (the end of the branch may not reach the top) is not news.
        self._last_focus = i if self._covers_top(b) else self.entry_at_top()
        self.refresh()

    def entry_at_top(self) -> int | None:
        """The entry shown on the pane's first line (a tool result when inside its output)."""
        hit = self._line_at(round(self.scroll_y))
        if hit is None:
            return None
        b, line = hit
        blk = self._blocks[b]
        entry = blk.entries[0]
        for ln, e in self._rendered(b).sections:
            if ln <= line:
                entry = e
            else:
                break
        return entry

    def block_of(self, i: int) -> int | None:
        return self._entry_block.get(i)

    # ------------------------------------------------------------------ focus reporting
    def _covers_top(self, b: int) -> bool:
        y = round(self.scroll_y)
        top = self._heights.top(b)
        return top <= y < top + self._heights[b]

    def _scrolled(self) -> None:
        if not self._blocks or not self.is_mounted:
            return
        if self._focus_timer is not None:
            self._focus_timer.stop()
        self._focus_timer = self.set_timer(0.15, self._report_focus)

    def _report_focus(self) -> None:
        self._focus_timer = None
        entry = self.entry_at_top()
        if entry is not None and entry != self._last_focus:
            self._last_focus = entry
            self.post_message(EntryFocused(entry))

    def _apply_pending(self, pending: tuple) -> None:
        if pending[0] == "entry":
            self.scroll_to_entry(pending[1])

    # ------------------------------------------------------------------ toggles
    def watch_show_hidden(self, value: bool) -> None:
        if self._session is None:
            return
        anchor = self._top_anchor()
        entry = (self._blocks[anchor[0]].entries[0], anchor[1]) if anchor else None
        query = self._query_text
        self._build_blocks()
        b = self._entry_block.get(entry[0]) if entry else None
        self._relayout((b, entry[1]) if b is not None else None)
        if query:
            self.search(query)

    # ------------------------------------------------------------------ blocks
    def _build_blocks(self) -> None:
        s = self._session
        branch = self._branch
        blocks: list[_Block] = []
        entry_block: dict[int, int] = {}
        if s is None or not branch:
            self._entry_block = {}
            self._set_blocks([])
            return
        types, roles = s.types, s.roles
        # What the model sees at the branch's leaf, and context edits on the branch.
        try:
            _, selected = context_entry_indices(s, branch[-1])
            in_ctx = set(selected)
        except Exception:
            in_ctx = set(branch)
        edits: dict[str, str] = {}
        for i in branch:
            if types[i] == "context_edit":
                e = s.entry(i)
                target = e.get("targetId")
                if isinstance(target, str):
                    edits[target] = "omitted" if e.get("replacement") is None else "edited"
        hidden: list[int] = []
        n = len(branch)
        k = 0
        while k < n:
            i = branch[k]
            t = types[i]
            r = roles[i]
            if t == "message" and r == "assistant":
                last = k
                j = k + 1
                while j < n:
                    x = branch[j]
                    if types[x] == "message" and roles[x] == "toolResult":
                        last = j
                    elif types[x] not in _TRANSPARENT:
                        break
                    j += 1
                run = branch[k + 1 : last + 1]
                entries = [i] + [x for x in run if types[x] == "message"]
                blocks.append(_Block("assistant", tuple(entries)))
                for x in run:
                    if types[x] != "message":
                        blocks.append(_Block("marker", (x,)))
                k = last + 1
                continue
            if t == "message" and r == "toolResult":
                entries = []
                j = k
                while j < n and types[branch[j]] == "message" and roles[branch[j]] == "toolResult":
                    entries.append(branch[j])
                    j += 1
                blocks.append(_Block("results", tuple(entries)))
                k = j
                continue
            if (t == "custom_message" or (t == "message" and r == "custom")) and not self.show_hidden:
                e = s.entry(i)
                display = e.get("display") if t == "custom_message" else (e.get("message") or {}).get("display")
                if display is False:
                    hidden.append(i)
                    k += 1
                    continue
            blocks.append(_Block("marker" if t in _MARKERS else "entry", (i,)))
            k += 1
        # decorations and the entry -> block map
        ids = s.ids
        prev_out = False
        prev_ts = None
        ts = s.timestamps
        lengths = s.lengths
        labels = s.label_by_target
        show_hidden = self.show_hidden
        for bi, blk in enumerate(blocks):
            i = blk.entries[0]
            for x in blk.entries:
                entry_block[x] = bi
            blk.in_context = i in in_ctx or types[i] in _MARKERS
            blk.first_out = not blk.in_context and not prev_out and blk.kind != "marker"
            if blk.kind != "marker":
                prev_out = not blk.in_context
            blk.mark = edits.get(ids[i])
            blk.label = s.label_of(i) if ids[i] in labels else None
            # The date is shown when it differs from the block above's (worked out when drawn).
            blk.prev_ts = prev_ts
            prev_ts = ts[i]
            n = lengths[i] if len(blk.entries) == 1 else sum(lengths[x] for x in blk.entries)
            blk.key = (blk.kind, blk.entries, n, blk.in_context, blk.first_out, blk.mark, blk.label, blk.prev_ts,
                       show_hidden)
        # hidden entries go to the next block shown (or the last one)
        if hidden:
            pos = {e: k for k, e in enumerate(branch)}
            for h in hidden:
                nb = None
                for x in branch[pos[h] + 1 :]:
                    nb = entry_block.get(x)
                    if nb is not None:
                        break
                if nb is None and blocks:
                    nb = len(blocks) - 1
                if nb is not None:
                    entry_block[h] = nb
        self._entry_block = entry_block
        self._set_blocks(blocks)

    def _block_key(self, b: int) -> Hashable:
        return self._blocks[b].key

    def _block_entry(self, b: int, k: int = 0) -> int | None:
        """The entry of block ``b`` that holds its ``k``-th search hit (a tool result when
        the hit is in a call's section)."""
        if not 0 <= b < len(self._blocks):
            return None
        entry = self._blocks[b].entries[0]
        r = self._rendered(b)
        matches = self._block_matches(b, r)
        if matches and r.sections:
            line = matches[min(k, len(matches) - 1)][0]
            for ln, e in r.sections:
                if ln <= line:
                    entry = e
                else:
                    break
        return entry

    def _estimate(self, b: int, width: int) -> int:
        s = self._session
        blk = self._blocks[b]
        if blk.kind == "marker":
            return 1
        lengths = s.lengths
        i = blk.entries[0]
        w = max(20, width - 4)
        h = 2 + (1 if blk.first_out else 0)
        t = s.types[i]
        full = self.full_tool_output
        if blk.kind == "assistant":
            if s.flags[i] & F_ASSISTANT_TEXT:
                h += 1 + min(40, lengths[i] // (w * 2))
            for x in blk.entries[1:]:
                lines = lengths[x] // w
                h += 1 + (min(lines, 400) if full else min(CUT_LINES + 1, lines))
            h += max(0, 1 - (len(blk.entries) - 1))
            return h
        if blk.kind == "results":
            for x in blk.entries:
                lines = lengths[x] // w
                h += 1 + (min(lines, 400) if full else min(CUT_LINES + 1, lines))
            return h
        if t == "compaction":
            return h + 2 + min(30, lengths[i] // w)
        if t == "message" and s.roles[i] == "system":
            return h + 3
        if t == "message" and s.roles[i] == "bashExecution":
            return h + 2 + min(CUT_LINES + 1, lengths[i] // w)
        return h + max(1, min(40, lengths[i] // (w * 2)))

    # ------------------------------------------------------------------ drawing
    def _resolve_artifact(self, path: str) -> str | None:
        if path in self._artifact_cache:
            return self._artifact_cache[path]
        found = None
        s = self._session
        cands = []
        p = os.path.expanduser(path)
        folder = os.path.dirname(s.path) if s is not None else ""
        if os.path.isabs(p):
            cands.append(p)
        elif folder:
            cands.append(os.path.join(folder, p))
        if folder:
            cands.append(os.path.join(folder, "subagent-artifacts", os.path.basename(p)))
        for c in cands:
            try:
                if os.path.isfile(c):
                    found = c
                    break
            except OSError:
                pass
        self._artifact_cache[path] = found
        return found

    def _do_action(self, b: int, action: tuple) -> None:
        if action[0] == "open":
            self.post_message(OpenSessionFile(action[1]))
        else:
            super()._do_action(b, action)

    def _block_item(self, b: int) -> Any:
        return (self._session, self._blocks[b])

    def _draw_item(self, item: Any, out: Out) -> None:
        session, blk = item
        _Drawer(session).draw(blk, out)

    def _block_cost(self, b: int) -> int:
        """Bytes of text drawn as Markdown (what makes a block slow to draw)."""
        blk = self._blocks[b]
        if blk.kind == "marker":
            return 0
        s = self._session
        # Tool output is cheap while cut to a few lines; in full it counts.
        out = sum(s.lengths[x] for x in blk.entries[1:]) // 2 if self.full_tool_output else 0
        if blk.kind == "results":
            return out
        i = blk.entries[0]
        if s.types[i] == "message" and s.roles[i] in ("toolResult", "bashExecution", "system"):
            return s.lengths[i] // 2 if self.full_tool_output else 0
        return s.lengths[i] + out


class _Drawer:
    """Draws the blocks of one session (safe to run off the main thread: it holds the
    session and the block, never the pane's changing state)."""

    def __init__(self, session: Session):
        self.s = session

    def _call_for(self, entry: int | None, msg: dict) -> dict | None:
        if entry is None or self.s is None:
            return None
        found = self.s.find_tool_call(entry)
        return found[1] if found is not None else None

    def _message_of(self, i: int) -> dict:
        e = self.s.entry(i)
        m = e.get("message")
        if "pituiError" in e or not isinstance(m, dict):
            return {
                "role": "toolResult",
                "toolCallId": None,
                "isError": True,
                "content": [],
                "pituiError": str(e.get("pituiError") or f"line {self.s.linenos[i]} is not a message"),
            }
        return m

    def draw(self, blk: _Block, out: Out) -> None:
        s = self.s
        p = out.p
        i = blk.entries[0]
        e = s.entry(i)
        if out.ctx.text_mode:  # only the searchable text: no headers, gutters or times
            if blk.kind == "marker":
                self._draw_marker(out, i, e, ())
            else:
                msg = e.get("message") if isinstance(e.get("message"), dict) else None
                self._draw_entry(out, blk, i, e, msg, e.get("type"), "", "", [])
            return
        when = s.timestamps[i]
        time = fmt_time(when, blk.prev_ts is None or date_of(when) != date_of(blk.prev_ts))
        eid = s.ids[i]
        right = [(time, p.muted), (eid, p.faint)]
        if blk.kind == "marker":
            out.push("  ", Style())
            try:
                self._draw_marker(out, i, e, right)
            finally:
                out.pop()
            return
        tags = []
        if blk.label:
            tags.append(("⚑ " + sanitize(blk.label), p.label))
        if blk.mark == "omitted":
            tags.append(("omitted from context", p.warning + Style(italic=True)))
        elif blk.mark == "edited":
            tags.append(("edited in context", p.warning + Style(italic=True)))
        if not blk.in_context:
            tags.append(("outside context", p.muted + Style(italic=True)))
        if blk.first_out:
            note = Text("┄┄ outside the model's context after compaction ┄┄", p.muted + Style(italic=True))
            out.line(note, chrome=True)
        t = e.get("type")
        msg = e.get("message") if isinstance(e.get("message"), dict) else None
        if "pituiError" in e:
            gutter = p.warning
        elif blk.kind in ("assistant",):
            gutter = p.assistant
        elif blk.kind == "results":
            gutter = p.tool
        elif msg is not None:
            gutter = {"user": p.user, "system": p.system, "custom": p.custom, "bashExecution": p.tool}.get(
                msg.get("role"), p.muted)
        elif t == "custom_message":
            gutter = p.custom
        elif t in ("compaction", "branch_summary"):
            gutter = p.summary
        else:
            gutter = p.muted
        gutter = Style(color=gutter.color)
        if not blk.in_context:
            out.push("┆ ", p.faint)
        else:
            out.push("▎ ", gutter)
        try:
            self._draw_entry(out, blk, i, e, msg, t, time, eid, tags)
        finally:
            out.pop()
        out.blank()

    def _draw_entry(self, out: Out, blk: _Block, i: int, e: dict, msg: dict | None, t: Any, time: str,
                    eid: str, tags: list) -> None:
        s = self.s
        p = out.p
        right = [(time, p.muted), (eid, p.faint)]
        key = f"e{i}"
        if "pituiError" in e:
            render_header(out, "⚠ damaged entry", p.warning + Style(bold=True), [(f"line {s.linenos[i]}", p.muted)],
                          right, tags)
            out.wrap(Text(str(e.get("pituiError")), p.warning))
            out.wrap(Text("Pi skips this line; it is shown here so nothing goes missing.", p.muted), chrome=True)
            return
        if blk.kind == "assistant":
            m = msg or {}
            message_header(out, m, time=time, entry_id=eid, tags=tags)
            results = [(x, self._message_of(x)) for x in blk.entries[1:]]
            render_assistant(out, m, results, key, 0, self._call_for)
            return
        if blk.kind == "results":
            render_header(out, "tool results", p.tool + Style(bold=True),
                          [("(their call is not right above)", p.muted)], right, tags)
            results = [(x, self._message_of(x)) for x in blk.entries]
            render_tool_results(out, results, key, self._call_for)
            return
        if t == "message":
            if msg is None:
                render_header(out, "message", p.muted, [], right, tags)
                render_json_body(out, e.get("message"), key)
                return
            role = msg.get("role")
            if role == "bashExecution":
                render_header(out, "! bash", p.tool + Style(bold=True), [("run by the user", p.muted)], right,
                              tags + ([("excluded from context", p.muted + Style(italic=True))]
                                      if msg.get("excludeFromContext") else []))
                render_bash_execution(out, msg, key)
                return
            if role == "custom":
                self._custom_header(out, msg.get("customType"), msg.get("display"), right, tags)
                render_content(out, msg.get("content"))
                return
            message_header(out, msg, time=time, entry_id=eid, tags=tags)
            render_message(out, msg, key, (), 0, self._call_for)
            return
        if t == "custom_message":
            self._custom_header(out, e.get("customType"), e.get("display"), right, tags)
            render_content(out, e.get("content"))
            return
        if t == "compaction":
            render_compaction(out, e.get("summary"), e.get("tokensBefore"), e.get("firstKeptEntryId"), e.get("id"),
                              e.get("details"), e.get("systemMessage"), e.get("usage"), bool(e.get("fromHook")),
                              key=key, right=right)
            if tags:
                render_header(out, "", p.muted, [], [], tags)
            return
        if t == "branch_summary":
            render_header(out, "branch summary", p.summary + Style(bold=True), [], right, tags)
            render_branch_summary(out, e.get("summary"), e.get("fromId"), e.get("details"), e.get("usage"))
            return
        if t == "custom":
            render_header(out, "custom", p.custom + Style(bold=True),
                          [(str(e.get("customType") or "?"), p.custom)], right, tags)
            render_custom_entry(out, e.get("data"), key)
            return
        render_header(out, str(t), p.muted + Style(bold=True), [], right, tags)
        render_json_body(out, {k: v for k, v in e.items() if k not in ("type", "id", "parentId", "timestamp")}, key)

    def _custom_header(self, out: Out, ctype: Any, display: Any, right, tags) -> None:
        p = out.p
        tags = list(tags)
        if display is False:
            tags.insert(0, ("hidden (display: false)", p.muted + Style(italic=True)))
        render_header(out, "custom message", p.custom + Style(bold=True), [(str(ctype or "?"), p.custom)], right, tags)

    def _draw_marker(self, out: Out, i: int, e: dict, right) -> None:
        p = out.p
        s = self.s
        t = e.get("type")
        if "pituiError" in e:
            render_marker(out, "⚠", f"damaged line {s.linenos[i]}: {e.get('pituiError')}", p.warning, right)
        elif t == "model_change":
            render_marker(out, "⇄", f"model → {e.get('provider')}/{e.get('modelId')}", p.muted, right)
        elif t == "thinking_level_change":
            render_marker(out, "◐", f"thinking level → {e.get('thinkingLevel')}", p.muted, right)
        elif t == "usage":
            u = e.get("usage") if isinstance(e.get("usage"), dict) else {}
            bits = [f"usage · {e.get('kind') or '?'}", f"{e.get('provider')}/{e.get('model')}",
                    f"{fmt_tokens(u.get('totalTokens', 0))} tokens"]
            cost = fmt_cost(u.get("cost"))
            if cost:
                bits.append(cost)
            render_marker(out, "Σ", " · ".join(bits), p.muted, right)
        elif t == "label":
            label = e.get("label")
            target = e.get("targetId")
            what = self._target_summary(target)
            if label:
                render_marker(out, "⚑", f"label “{label}” on {what}", p.warning, right)
            else:
                render_marker(out, "⚑", f"label cleared on {what}", p.muted, right)
        elif t == "session_info":
            name = e.get("name")
            if isinstance(name, str) and name.strip():
                render_marker(out, "✎", f"session name: {name}", p.muted, right)
            else:
                render_marker(out, "✎", "session name cleared", p.muted, right)
        elif t == "context_edit":
            target = e.get("targetId")
            what = self._target_summary(target)
            rep = e.get("replacement")
            if rep is None:
                render_marker(out, "✂", f"context edit: {what} omitted from the model's context", p.warning, right)
            else:
                content = rep.get("content") if isinstance(rep, dict) else rep
                text = one_line(text_of(content) if not isinstance(content, str) else content, 80)
                render_marker(out, "✂", f"context edit: {what} replaced in context with “{text}”", p.warning, right)
        else:
            render_marker(out, "·", str(t), p.muted, right)

    def _target_summary(self, target: Any) -> str:
        s = self.s
        if not isinstance(target, str):
            return str(target)
        j = s.index_of.get(target)
        if j is None:
            return f"{target} (not in this file)"
        role = s.roles[j] or s.types[j]
        return f"{role} {target}"
