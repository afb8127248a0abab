"""The demo sessions store, written: the stories run in order (they share the shop's files,
and the admin story forks the checkout story), each file under its project's folder."""

from __future__ import annotations

import shutil
from pathlib import Path

from tools import piwriter
from tools.demo.fs import FS
from tools.demo.places import BLOG, SHOP
from tools.demo.session import Session
from tools.demo.shop_files import SHOP_FILES
from tools.demo.story_admin import build_session_c
from tools.demo.story_blog import build_session_f
from tools.demo.story_checkout import build_session_a
from tools.demo.story_long import build_session_b
from tools.demo.story_v1 import build_session_e
from tools.demo.story_zsh import build_session_d
from tools.demo.stream_logs import EDITOR_RPC_LOG, EVAL_RESULTS, HEADLESS_RUN

#: The store ``pitui --demo`` opens (``pitui.demo.DEMO_ROOT``), in this repository.
DEFAULT_OUT = Path(__file__).resolve().parents[2] / "pitui" / "demo" / "sessions"
#: Sessions written by Pi's own SessionManager (tools/pi_written/*.mjs), copied as they are.
PI_WRITTEN = Path(__file__).resolve().parents[1] / "pi_written" / "sessions"


def build(out: Path = DEFAULT_OUT) -> list[Path]:
    """Write the store into ``out``, emptied first, and return the files written."""
    _empty(out)
    out.mkdir(parents=True)
    written: list[Path] = []
    fs = FS(SHOP_FILES)
    a = build_session_a(fs)
    artifacts: list[tuple[str, Session]] = []
    b = build_session_b(fs, artifacts)
    c = build_session_c(fs, a)
    for s in (a, b, c, build_session_d(), build_session_e()):
        written.append(s.write(out))
    # the subagents' transcripts sit in a subfolder, so Pi does not list them as sessions
    art_dir = out / piwriter.project_dir(SHOP) / "subagent-artifacts"
    art_dir.mkdir(parents=True, exist_ok=True)
    for name, sub in artifacts:
        written.append(piwriter.write(art_dir / f"{name}.jsonl", sub.lines, exact=True))
    f = build_session_f()
    written.append(f.write(out, final_newline=False))
    blog = out / piwriter.project_dir(BLOG)
    written.append(piwriter.write(blog / "editor-rpc-log.jsonl", EDITOR_RPC_LOG, exact=True))
    written.append(piwriter.write(blog / "headless-link-check.jsonl", HEADLESS_RUN, exact=True))
    # not a session: an evaluation tool's results that ended up in the sessions folder
    # (listed with its reason, as any file pitui cannot read)
    written.append(piwriter.write(out / piwriter.project_dir(SHOP) / "eval-results.jsonl", EVAL_RESULTS, exact=True))
    for src in sorted(PI_WRITTEN.glob("*/*.jsonl")):
        dest = out / src.parent.name / src.name
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dest)
        written.append(dest)
    return written


def _empty(out: Path) -> None:
    """Remove an earlier store at ``out`` (so no file of an old story stays behind), but
    never a folder holding anything else: ``--out`` could name the wrong one."""
    if not out.exists() and not out.is_symlink():
        return
    if not out.is_dir() or out.is_symlink():
        raise FileExistsError(f"{out} is not a folder of sessions; not removing it")
    for p in out.rglob("*"):
        if p.is_symlink() or not (p.is_dir() or p.suffix == ".jsonl"):
            raise FileExistsError(f"{out} holds {p.relative_to(out)}, not a session; not emptying it")
    shutil.rmtree(out)
