"""The header over the message pane, and the warnings list it opens.

Line 1: the session's name (or first message) and a warnings badge.
Line 2: cwd, created, model(s). Line 3: tokens and cost of the shown branch and of the
whole session (worked out by the header on a worker when the branch it is given,
:attr:`SessionHeader.branch`, changes; ``…`` until then; ``s`` shows them in full). Each line is made for its width
when drawn: what gives way first, when it is narrow, is said by ``meta_line`` and
``usage_line``; the title is cut at a word.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from datetime import datetime
from functools import partial
from typing import TYPE_CHECKING, Any, NamedTuple

from rich.text import Text
from textual import events, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.reactive import reactive
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from ...core.read.session import Session, SessionWarning
from ...core.model.summary import one_line, shorten_home
from ...core.numbers import fmt_cost, fmt_tokens_short
from ...core.timeutil import iso_to_ms
from ..bindings import bindings_for
from ..messages import FileChecked, StatsReady
from ...core.text import visible
from ..text_fit import FitLine, cell_len, cut_end, cut_middle, cut_words, first_fit

if TYPE_CHECKING:
    from ...core.model.doctor import Finding
    from ...core.model.meter import ContextMeter
    from ...core.model.stats import Stats
    from ...core.secrets.scan import Secret
    from ...core.store.listing import SessionInfo

# (the stats and the listing are loaded by the workers that make them: the first screen of
# a session named on the command line shows neither)

__all__ = ["SessionHeader", "ShownBranch", "WarningsScreen", "SecretsBadge", "check_whole", "cut_cwd", "fmt_time",
           "meta_line", "usage_line"]


def fmt_time(value) -> str:
    """A header timestamp as local ``YYYY-MM-DD HH:MM``."""
    ms = iso_to_ms(value)
    if ms != ms:
        return "?"
    try:
        return datetime.fromtimestamp(ms / 1000).strftime("%Y-%m-%d %H:%M")
    except (OverflowError, OSError, ValueError):  # a date Python's datetime cannot hold
        return "?"


def _model_names(current: str | None, session: Stats | None) -> list[str]:
    """The conversation's models (no provider): the one in use at the branch's end first,
    then the others by cost."""
    from ...core.model.stats import is_own_model  # (loaded: ``session`` was made by it)

    names: list[str] = []
    keys = ([current] if current else []) + [model for model, _ in session.models_by_cost() if is_own_model(model)]
    for key in keys:
        model = visible(key.split("/", 1)[1] if "/" in key else key)
        if model not in names and model != "None":
            names.append(model)
    return names


def _model_forms(current: str | None, session: Stats | None) -> list[str]:
    """How the models read, the fullest first: ``a, b, c +2``, then ``a +4``."""
    if session is None:
        return ["…"]
    names = _model_names(current, session)
    if not names:
        return ["no model"]
    more = f" +{len(names) - 3}" if len(names) > 3 else ""
    forms = [", ".join(names[:3]) + more]
    if len(names) > 1:
        forms.append(f"{names[0]} +{len(names) - 1}")
    return forms


def _cwd_tail(cwd: str) -> str:
    """The cwd's last two folders (``2026/v2`` of ``/Volumes/x/2026/v2``): what says which
    project it is. A cwd that is no path (``<isolated-workspace>``) is its own tail."""
    parts = cwd.rstrip("/").split("/")
    return "/".join(parts[-2:]) if len(parts) > 2 else cwd


def cut_cwd(cwd: str, width: int) -> str:
    """``cwd`` in at most ``width`` cells: whole, else its last two folders whole after the
    start of the rest (``/Volumes/W…/2026/v2``), else cut in its middle."""
    if cell_len(cwd) <= width:
        return cwd
    tail = _cwd_tail(cwd)
    room = width - cell_len(tail) - 1  # (for the "/" before the tail)
    if tail != cwd and room >= 1:
        return cut_end(cwd[: len(cwd) - len(tail) - 1], room) + "/" + tail
    return cut_middle(cwd, width)


def meta_line(width: int, cwd: str, created: str, fork: str | None, current: str | None,
              session: Stats | None) -> Text:
    """``cwd · created · fork of … · models`` in ``width`` cells. The project is what people
    look for: the models but the current one give way first (``a +2``), then the cwd is
    cut before its last two folders (which stay whole), then the time goes, then the
    fork's title is cut (down to 24 cells), then the cwd's last folders too; what is left
    is cut at its end."""
    models = _model_forms(current, session)
    fork_text = f"fork of {fork}" if fork is not None else ""
    tail = cell_len(_cwd_tail(cwd)) + (2 if _cwd_tail(cwd) != cwd else 0)  # (the tail and "…/")

    def line(cwd_least: int | None, fork_least: int | None, model: str, time: bool = True) -> Text:
        pieces = [cwd, created if time else "", fork_text, model]
        over = cell_len(" · ".join(piece for piece in pieces if piece)) - width
        for piece_index, least, cut in ((0, cwd_least, cut_cwd), (2, fork_least, cut_end)):
            cells = cell_len(pieces[piece_index])
            if over > 0 and least is not None and cells > least:
                pieces[piece_index] = cut(pieces[piece_index], max(least, cells - over))
                over -= cells - cell_len(pieces[piece_index])
        return Text(" · ".join(piece for piece in pieces if piece))

    def forms():
        yield line(None, None, models[0])
        yield line(None, None, models[-1])
        yield line(tail, None, models[-1])
        yield line(tail, None, models[-1], time=False)
        yield line(tail, 24, models[-1], time=False)
        yield line(5, 24, models[-1], time=False)

    return first_fit(width, forms())


def _usage(stats: Stats | None, tokens: bool = True) -> str:
    if stats is None:
        return "…"
    cost = fmt_cost(stats.total.cost, zero="$0")
    return f"{fmt_tokens_short(stats.total.tokens, truncate=True)} tok {cost}" if tokens else cost


def usage_line(width: int, branch: Stats | None, session: Stats | None, branch_len: int, entries: int,
               meter: ContextMeter | None = None) -> Text:
    """``context 253k / 1M · 25% · branch 1.2M tok $3.40 · session 2.0M tok $5.10 · 80/120
    entries`` in ``width`` cells. Whole phrases give way, never the word that says what a
    number is: the compaction mark first, then the session's tokens, the branch's, the
    session's cost (the ``s`` screen has them all), the entry count, the meter's own long
    form; what is left is cut at its end."""
    count = f"{branch_len or '…'}/{entries} entries"

    def line(branch_tokens: bool, whole: int, entries_shown: bool = True, context: int = 2) -> Text:
        text = Text()
        if meter is not None and context:
            text.append("context ", style="bold")
            text.append(meter.text(short=context < 2), style="bold yellow" if (meter.percent or 0) >= 80 else "")
            text.append(" · ")
        text.append("branch ", style="bold")
        text.append(_usage(branch, branch_tokens))
        if whole:
            text.append(" · ")
            text.append("session ", style="bold")
            text.append(_usage(session, whole > 1))
        if entries_shown:
            text.append(" · " + count)
        return text

    def forms():  # (made one at a time: the first nearly always fits)
        yield line(True, 2)
        yield line(True, 2, context=1)
        yield line(True, 1, context=1)
        yield line(False, 1, context=1)
        yield line(False, 0, context=1)
        yield line(False, 0, False, context=1)
        yield line(False, 0, False, context=0)

    return first_fit(width, forms())


class WarningsBadge(Static):
    """``⚠ 3 warnings (lines 4, 9, 12)``; a click opens the list."""

    DEFAULT_CSS = """
    WarningsBadge { width: auto; height: 1; color: $text-warning; text-style: bold; padding: 0 1; }
    WarningsBadge.-empty { display: none; }
    """

    class Pressed(Message):
        pass

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.post_message(self.Pressed())


class SecretsBadge(WarningsBadge):
    """``⚠ 2 likely secrets``, beside the warnings badge; a click opens the same list."""

    DEFAULT_CSS = """
    SecretsBadge { color: $text-error; }
    """


#: a file up to this size is checked whole in the background when it is opened (a pass over
#: every line, as `pitui check`, and one for secrets, as `pitui check --secrets`), so its
#: badges count what `w` lists; a bigger one's warnings badge counts what opening met until
#: `w` checks it, and its secrets are looked for by a child process (core/secrets/elsewhere)
BACKGROUND_CHECK_BYTES = 32 * 1024 * 1024
GREW_QUIET = 2.0


class Checked(NamedTuple):
    """What the check of a file found: ``pitui check``'s findings and the likely secrets."""

    findings: list[Finding]
    secrets: list[Secret]


#: files checked, by (path, size, mtime): a file opened again, unchanged, shows the same
#: badges at once, and ``x`` knows its secrets (the oldest forgotten past _CHECKED_KEPT)
_CHECKED: dict[tuple, Checked] = {}
_CHECKED_KEPT = 64


def check_whole(path: str, should_stop: Callable[[], bool]) -> Checked:
    """The findings of ``pitui check`` and of ``pitui check --secrets`` for ``path`` (raises
    as both do: the doctor's ``Unreadable`` and ``Stopped``)."""
    from ...core.model.doctor import check_file
    from ...core.secrets.scan import scan_file

    findings = check_file(path, should_stop).findings
    return Checked(findings, scan_file(path, should_stop).secrets)


#: the likely secrets of big files, found by a child process (files by path, size and time;
#: the oldest forgotten past _CHECKED_KEPT): their badge, and what ``x`` replaces
_SECRETS_ONLY: dict[tuple, list[Secret]] = {}


def _file_identity(path: str) -> tuple | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (path, st.st_size, st.st_mtime_ns)


def _remember(key: tuple, checked: Checked) -> None:
    _CHECKED.pop(key, None)
    _CHECKED[key] = checked
    while len(_CHECKED) > _CHECKED_KEPT:
        del _CHECKED[next(iter(_CHECKED))]


class ShownBranch(NamedTuple):
    """The branch the pane shows: its session, its leaf (-1: none yet) and how many entries
    it has (the pane walked it)."""

    session: Session | None
    leaf: int = -1
    length: int = 0


NO_BRANCH = ShownBranch(None)


class SessionHeader(Vertical):
    """Three lines of facts about the open session."""

    _problems_path: str | None = None
    _usage: tuple | None = None  # (what show_session gave the usage line)
    _meter: ContextMeter | None = None
    _check_timer = None
    _pending_check: Callable[[], None] | None = None  # (show_problems' later: see start_check)

    STATS_DELAY = 0.25  # (after a move: a key held down does not start a worker per row)

    class Counted(Message):
        """The whole session's cost is worked out (the sidebar's row shows the same)."""

        def __init__(self, path: str, cost: float) -> None:
            super().__init__()
            self.path = path
            self.cost = cost

    #: The branch shown: set by the screen when it changes (or must be counted again), the
    #: header shows it and works its tokens and cost out.
    #: (repaint=False: the lines that change repaint themselves, not the whole header)
    branch: reactive[ShownBranch] = reactive(NO_BRANCH, always_update=True, init=False, repaint=False)

    DEFAULT_CSS = """
    SessionHeader { height: 3; background: $panel; }
    SessionHeader > Horizontal { height: 1; }
    SessionHeader #header-title { width: 1fr; height: 1; padding: 0 1; text-style: bold; }
    SessionHeader #header-meta { width: 1fr; height: 1; padding: 0 1; color: $text-muted; }
    SessionHeader #header-usage { width: 1fr; height: 1; padding: 0 1; color: $text-muted; }
    """
    # (Each line is one row of the full width whatever it says: new text is repainted, with
    # no layout of the screen.)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        #: The sessions listed, by path (the sidebar's): titles of sessions forked from.
        self.listing: Mapping[str, SessionInfo] = {}
        self._stats_timer = None
        self._branch_stats: dict[int, Stats] = {}
        self._session_stats: Stats | None = None
        self._fork_title: tuple[tuple, str] | None = None  # (session, parent, listing size) -> title

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield FitLine(id="header-title")
            yield WarningsBadge("", id="header-warnings", markup=False, classes="-empty")
            yield SecretsBadge("", id="header-secrets", markup=False, classes="-empty")
        yield FitLine(id="header-meta")
        yield FitLine(id="header-usage")

    def _line(self, which: str) -> FitLine:
        return self.query_one(f"#header-{which}", FitLine)

    def show_message(self, title: str, meta: str = "") -> None:
        """A header for no session (loading, errors)."""
        title, meta = visible(title), visible(meta)
        self._line("title").show(lambda width: Text(cut_words(title, width)))
        self._line("meta").show(lambda width: Text(cut_end(meta, width)))
        self._line("usage").show(lambda width: Text())
        self._usage = None
        self._problems_path = None
        self._pending_check = None
        self.set_warnings([])

    def show_session(
        self,
        *,
        title: str,
        forked_from: str | None = None,
        named: bool,
        cwd: str,
        created,
        branch: Stats | None,
        session: Stats | None,
        entries: int,
        branch_len: int,
    ) -> None:
        title = one_line(title, 300)
        self._line("title").show(lambda width: Text(cut_words(title, width), style="bold" if named else ""))
        path = visible(shorten_home(cwd)) or "?"
        created = fmt_time(created)
        fork = one_line(forked_from, 300) if forked_from is not None else None
        current = branch.current if branch is not None else None
        self._line("meta").show(lambda width: meta_line(width, path, created, fork, current, session))
        self._usage = (branch, session, branch_len, entries)
        self._show_usage()

    def set_context(self, meter: ContextMeter | None) -> None:
        """The context meter at the selected entry (``core.model.meter``) on the usage line."""
        if meter == self._meter:
            return
        self._meter = meter
        if self._usage is not None:
            self._show_usage()

    def _show_usage(self) -> None:
        branch, session, branch_len, entries = self._usage
        meter = self._meter
        self._line("usage").show(lambda width: usage_line(width, branch, session, branch_len, entries, meter))

    def set_warnings(self, warnings: list[SessionWarning]) -> None:
        """The badge as opening the file left it: the problems met reading it (its secrets
        not known yet)."""
        self._badge("warning", [warning.line for warning in warnings])
        self._secrets_badge(0)

    def show_problems(self, path: str, warnings: list[SessionWarning], *, grew: bool = False,
                      later: bool = False) -> None:
        """The badge of a session just opened (or that just grew, ``grew``): the findings of
        ``w`` (pitui check's), the same whichever way the session was opened. Known for this
        file as it is now: shown at once; else what opening met, and a file up to
        ``BACKGROUND_CHECK_BYTES`` is checked whole in the background, its findings replacing
        that badge (a file that grew, once it has been quiet for ``GREW_QUIET`` seconds: one
        Pi is writing is not read whole at every write). ``later``: that check waits for
        :meth:`start_check` (a session being opened: its first paint comes first)."""
        if path != self._problems_path:
            self.workers.cancel_group(self, "header-secrets")  # (another file's child killed)
        self._problems_path = path
        self._pending_check = None
        if self._check_timer is not None:
            self._check_timer.stop()
            self._check_timer = None
        key = _file_identity(path)
        known = _CHECKED.get(key) if key is not None else None
        if known is not None:
            self.set_findings(known.findings, known.secrets)
            return
        self.set_warnings(warnings)
        if key is None:
            return
        check: Callable[[], None] | None = None
        if key[1] > BACKGROUND_CHECK_BYTES:
            secrets = _SECRETS_ONLY.get(key)
            if secrets is not None:
                self._secrets_badge(len(secrets))
            elif not grew:  # (one Pi is writing is scanned when opened again, not at each write)
                check = partial(self._scan_secrets_elsewhere, path, key)
        elif grew:
            self._check_timer = self.set_timer(GREW_QUIET, partial(self._check_whole_file, path, key))
        else:
            check = partial(self._check_whole_file, path, key)
        if check is None:
            return
        if later:
            self._pending_check = check
        else:
            check()

    def start_check(self) -> None:
        """Start the background check a ``later`` :meth:`show_problems` left waiting, if
        any: the opener calls this once the session's first paint is done (a thread
        checking the file, or a child process starting, would take the interpreter or a
        core from that paint)."""
        check, self._pending_check = self._pending_check, None
        if check is not None:
            check()

    def remember_findings(self, path: str, checked: Checked) -> None:
        """``w`` checked ``path``: its findings and secrets are the badges from now on (and
        when the same file, unchanged, is opened again)."""
        key = _file_identity(path)
        if key is not None:
            _remember(key, checked)
        if path == self._problems_path:
            self.set_findings(checked.findings, checked.secrets)

    def known_secrets(self, path: str) -> list[Secret] | None:
        """The likely secrets of ``path`` as it is now, when it was checked (in the background
        or by ``w``); None when not (a big file ``w`` has not checked yet)."""
        key = _file_identity(path)
        known = _CHECKED.get(key) if key is not None else None
        if known is None:
            return _SECRETS_ONLY.get(key) if key is not None else None
        return known.secrets

    @work(thread=True, exclusive=True, group="header-check", exit_on_error=False)
    def _check_whole_file(self, path: str, key: tuple) -> None:
        # (stopped when another session opens: the check holds the interpreter)
        self._read_in_worker(check_whole, path, key, self._checked_in_background)

    @work(thread=True, exclusive=True, group="header-secrets", exit_on_error=False)
    def _scan_secrets_elsewhere(self, path: str, key: tuple) -> None:
        from ...core.secrets.elsewhere import scan_file_elsewhere

        # (the child is killed when another session opens: this worker is cancelled)
        self._read_in_worker(scan_file_elsewhere, path, key, self._secrets_found_elsewhere)

    def _read_in_worker(self, read: Callable[[str, Callable[[], bool]], Any], path: str, key: tuple,
                        done: Callable[[str, tuple, Any], None]) -> None:
        """On a worker's thread: ``read(path, stop)`` (``stop`` says the worker was
        cancelled), its result handed to ``done(path, key, result)`` on the UI thread;
        nothing when it was cancelled or failed (stopped, unreadable now, changing under the
        read, a child that failed: the badge stays as it is)."""
        worker = get_current_worker()
        try:
            got = read(path, lambda: worker.is_cancelled)
        except Exception:
            return
        if not worker.is_cancelled:
            self.app.call_from_thread(done, path, key, got)

    def _secrets_found_elsewhere(self, path: str, key: tuple, secrets: list[Secret]) -> None:
        _SECRETS_ONLY.pop(key, None)
        _SECRETS_ONLY[key] = secrets
        while len(_SECRETS_ONLY) > _CHECKED_KEPT:
            del _SECRETS_ONLY[next(iter(_SECRETS_ONLY))]
        if path == self._problems_path and key not in _CHECKED:
            self._secrets_badge(len(secrets))

    def _checked_in_background(self, path: str, key: tuple, checked: Checked) -> None:
        _remember(key, checked)
        if path == self._problems_path:
            self.set_findings(checked.findings, checked.secrets)

    def set_findings(self, findings: list[Finding], secrets: list[Secret] = ()) -> None:
        """The badges once the whole file was checked (``w``): the check's findings, which
        hold what opening met and what only a pass over every line finds (orphan results,
        calls left unanswered...), so the badge and the list say the same number; and the
        likely secrets, on a badge of their own."""
        self._badge("finding", [finding.line for finding in findings])
        self._secrets_badge(len(secrets))

    def _secrets_badge(self, count: int) -> None:
        badge = self.query_one(SecretsBadge)
        if not count:
            if not badge.has_class("-empty"):
                badge.add_class("-empty")
                badge.update("")
            return
        badge.update(f"⚠ {count} likely secret{'s' if count != 1 else ''} w")
        badge.remove_class("-empty")

    def _badge(self, noun: str, found: list[int | None]) -> None:
        badge = self.query_one("#header-warnings", WarningsBadge)
        if not found:
            if badge.has_class("-empty"):
                return  # (as it was: nothing to lay out again)
            badge.add_class("-empty")
            badge.update("")
            return
        lines = [line for line in found if line is not None]
        shown = ", ".join(str(line) for line in lines[:4]) + (", …" if len(lines) > 4 else "")
        count = len(found)
        text = f"⚠ {count} {noun}{'s' if count != 1 else ''}"
        if shown:
            text += f" (line{'s' if len(lines) != 1 else ''} {shown})"
        badge.update(text + " w")
        badge.remove_class("-empty")


    # ------------------------------------------------------------------ the session's facts
    @property
    def branch_leaf(self) -> int:
        """The leaf of the branch the header counts (-1: none)."""
        return self.branch.leaf

    def forget(self, session: Session | None = None) -> None:
        """The session changed (another one, or it grew or lost lines): no branch counted
        yet, its numbers to be worked out again."""
        self.set_reactive(SessionHeader.branch, ShownBranch(session))
        self._branch_stats = {}
        self._session_stats = None
        if self._stats_timer is not None:
            self._stats_timer.stop()
            self._stats_timer = None
        self.workers.cancel_group(self, "stats")

    def watch_branch(self, branch: ShownBranch) -> None:
        self.update_session()
        self._schedule_stats()

    def update_session(self) -> None:
        """Show the session's facts as they are known now."""
        session, leaf, branch_len = self.branch
        if session is None:
            return
        info = self.listing.get(session.path)
        # the first user message as the listing has it (not Pi's "(no messages)"), else the
        # file (and for a session of no entries, which may have been cut back since listed)
        first = None
        if info and info.error is None and len(session):
            from ...core.store.session_info import NO_MESSAGES  # (loaded: the listing made ``info``)

            if info.first_message != NO_MESSAGES:
                first = info.first_message
        title = session.name or first or os.path.basename(session.path)
        if session.headerless:
            title = f"⚠ No session header, Pi won't open it · {title}"  # (shown read-only)
        self.show_session(
            title=title,
            forked_from=self._forked_from(session),
            named=bool(session.name),
            cwd=session.cwd,
            created=session.header.get("timestamp"),
            branch=self._branch_stats.get(leaf),
            session=self._session_stats,
            entries=len(session),
            branch_len=branch_len if leaf >= 0 else 0,
        )

    def _forked_from(self, session: Session) -> str | None:
        """The title of the ``session`` was forked from (its header's ``parentSession``),
        found in the listing by path or, as a store moved to another machine keeps its file
        names but not its paths, by file name; else that file's name. None when not a fork."""
        parent = session.header.get("parentSession")
        if not isinstance(parent, str):
            parent = session.header.get("branchedFrom")  # (older releases)
        if not isinstance(parent, str) or not parent:
            return None
        listing = self.listing
        cached = self._fork_title
        if cached is not None and cached[0] == (session.path, parent, len(listing)):
            return cached[1]
        info = listing.get(parent)
        if info is None:
            name = os.path.basename(parent)
            info = next((info for path, info in listing.items() if os.path.basename(path) == name), None)
        title = (info.name or info.first_message if info is not None and info.error is None else "") or \
            os.path.basename(parent)
        self._fork_title = ((session.path, parent, len(listing)), title)
        return title

    def count_now(self) -> None:
        """Work the numbers out now (not after STATS_DELAY)."""
        self._schedule_stats(now=True)

    def _schedule_stats(self, now: bool = False) -> None:
        if self._stats_timer is not None:
            self._stats_timer.stop()
            self._stats_timer = None
        session, leaf, _ = self.branch
        if session is None:
            return
        need_session = self._session_stats is None
        if leaf in self._branch_stats and not need_session:
            self.update_session()
            return
        if now or self.STATS_DELAY <= 0:
            self._count(session, leaf, need_session)
        else:
            self._stats_timer = self.set_timer(self.STATS_DELAY, lambda: self._count(session, leaf, need_session))

    def _count(self, session: Session, leaf: int, need_session: bool) -> None:
        def work() -> None:
            from ...core.model.stats import Stats, branch_stats, session_stats

            worker = get_current_worker()
            branch = branch_stats(session, leaf) if leaf >= 0 else Stats()
            if worker.is_cancelled:
                return
            whole = session_stats(session) if need_session else None
            if not worker.is_cancelled:
                self.post_message(StatsReady(session, leaf, branch, whole))

        self.run_worker(work, thread=True, exclusive=True, group="stats", exit_on_error=False)

    def on_stats_ready(self, event: StatsReady) -> None:
        event.stop()
        if event.session is not self.branch.session:
            return
        self._branch_stats[event.leaf] = event.branch
        if event.whole is not None:
            self._session_stats = event.whole
            self.post_message(self.Counted(event.session.path, event.whole.total.cost))
        self.update_session()

    def show_stats(self) -> None:
        """``session``: the stats screen of the branch counted (the session's leaf before one is)."""
        session, leaf, _ = self.branch
        if session is None:
            return
        leaf = leaf if leaf >= 0 else session.leaf
        from ..screens.stats import StatsScreen

        self.app.push_screen(StatsScreen(session, leaf, branch=self._branch_stats.get(leaf), whole=self._session_stats))


#: what ``w`` says of the likely secrets it lists (once, under the list)
SECRETS_HINT = ("A likely secret stays in the file as written: a request whose context holds it sends it to the "
                "provider, and every copy of the file carries it; x offers to replace them in an export. ")


def _row(where: int | None, kind: str, message: str, outcome: str | None) -> Text:
    """One line of the list: ``   line 4  kind: message (Pi: what Pi does)``."""
    text = Text()
    at = f"line {where}" if where is not None else ""
    text.append(f"{at:>11}  ", style="bold")
    text.append(kind, style="bold")
    text.append(": " + visible(message))
    if outcome is not None:
        text.append(" (Pi: " + visible(outcome) + ")", style="italic")
    return text


class WarningsScreen(ModalScreen[str | None]):
    """What is wrong in the session's file, by line, and what Pi does with each: the
    findings of ``pitui check`` (:mod:`pitui.core.model.doctor`), then its likely secrets
    (``pitui check --secrets``), worked out on a worker when the dialog opens (the whole
    file is read again: never on the open path). Enter on a finding closes the dialog with
    its entry's id, for the browser to go to."""

    DEFAULT_CSS = """
    WarningsScreen { align: center middle; }
    WarningsScreen > Vertical {
        width: 90%; max-width: 120; height: auto; max-height: 80%;
        border: round $warning; background: $surface; padding: 0 1;
    }
    WarningsScreen #warnings-title { text-style: bold; color: $text-warning; height: auto; }
    WarningsScreen OptionList, WarningsScreen OptionList:focus {
        height: auto; max-height: 70vh; border: none; padding: 0; background: $surface;
    }
    WarningsScreen #warnings-hint { color: $text-muted; height: auto; }
    """

    BINDINGS = bindings_for("warnings")

    MAX_SHOWN = 2000
    HINT = ("Enter goes to a finding's entry. Each finding says what Pi does with it; pitui check FILE (--secrets) "
            "prints the same. Esc closes.")

    def __init__(self, path: str, opened_with: int = 0, on_checked: Callable[[Checked], None] | None = None) -> None:
        """``opened_with``: how many problems opening the file met (the header's badge);
        ``on_checked`` is given what the check found once it is known (the header shows it)."""
        super().__init__()
        self.path = path
        self.opened_with = opened_with
        self.on_checked = on_checked
        self.findings: list[Finding] | None = None  # (None until the check is done)
        self.secrets: list[Secret] | None = None
        self.error: str | None = None
        self._targets: list[str | None] = []  # each row's entry id

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(f"Checking {visible(os.path.basename(self.path))}…", id="warnings-title", markup=False)
            yield OptionList(id="warnings-list")
            yield Static(self.HINT, id="warnings-hint", markup=False)

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()
        self._check()

    @work(thread=True, exclusive=True, group="check", exit_on_error=False)
    def _check(self) -> None:
        from ...core.model.doctor import Stopped, Unreadable

        worker = get_current_worker()
        try:
            # (stopped when the dialog closes: a big file's check holds the interpreter)
            checked = check_whole(self.path, lambda: worker.is_cancelled)
        except Stopped:
            return
        except Unreadable as exc:
            self.post_message(FileChecked([], exc.reason))
            return
        except Exception as exc:  # (a file changing under the read: say so, do not crash)
            self.post_message(FileChecked([], f"could not be checked ({exc})"))
            return
        self.post_message(FileChecked(checked.findings, secrets=checked.secrets))

    def on_file_checked(self, event: FileChecked) -> None:
        self.findings, self.secrets, self.error = event.findings, event.secrets, event.error
        name = visible(os.path.basename(self.path))
        title = self.query_one("#warnings-title", Static)
        rows = self.query_one(OptionList)
        if event.error is not None:
            title.update(f"{name} cannot be read")
            rows.add_option(Option(Text(visible(event.error)), disabled=True))
            return
        finding_count, secret_count = len(event.findings), len(event.secrets)
        said = [f"{finding_count} finding{'s' if finding_count != 1 else ''}"] if finding_count or not secret_count else []
        if secret_count:
            said.append(f"{secret_count} likely secret{'s' if secret_count != 1 else ''}")
        title.update(f"{' and '.join(said)} in {name}")
        if self.on_checked is not None:
            self.on_checked(Checked(event.findings, event.secrets))
        hint = (SECRETS_HINT if secret_count else "") + self.HINT
        if finding_count != self.opened_with:
            met = self.opened_with
            met_text = "no problem" if not met else f"{met} problem{'s' if met != 1 else ''}"
            hint = f"Opening the file met {met_text}; this check reads every line and follows every branch. " + hint
        self.query_one("#warnings-hint", Static).update(hint)
        options: list[Option] = []
        shown = event.findings[: self.MAX_SHOWN]
        for finding in shown:
            options.append(Option(_row(finding.line, finding.kind, finding.message, finding.pi)))
            self._targets.append(finding.entry_id)
        for secret in event.secrets[: max(0, self.MAX_SHOWN - len(shown))]:
            entry = f", entry {secret.entry_id}" if secret.entry_id is not None else ""
            options.append(Option(_row(secret.line, "secret", f"{secret.kind} in {secret.where}{entry}: {secret.preview}", None)))
            self._targets.append(secret.entry_id)
        if finding_count + secret_count > self.MAX_SHOWN:
            options.append(Option(Text(f"… and {finding_count + secret_count - self.MAX_SHOWN} more", style="italic"), disabled=True))
        if not finding_count and not secret_count:
            options.append(Option(Text("Nothing wrong: every line reads, and every tool result has its call."),
                                  disabled=True))
        rows.add_options(options)
        if self._targets:
            rows.highlighted = 0

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        option_index = event.option_index
        target = self._targets[option_index] if 0 <= option_index < len(self._targets) else None
        if target is None:
            self.app.bell()
            return
        self.dismiss(target)

    def action_dismiss_screen(self) -> None:
        self.dismiss(None)
