"""What Pi's /fork writes: a new session holding the path to one entry of another, with the
labels on that path written again after it."""

from __future__ import annotations

from tools import piwriter
from tools.demo.models import Model
from tools.demo.session import Session


def fork_session(src: Session, at: str, *, start: str, seed: int, model: Model, thinking_level: str) -> Session:
    """What Pi's /fork (createBranchedSession) writes: the path to ``at`` plus its labels."""
    s = Session(
        cwd=src.cwd, start=start, seed=seed, model=model, thinking_level=thinking_level, parent_session=src.pi_path
    )
    path: list[dict] = []
    cur: str | None = at
    while cur is not None:
        path.append(src.by_id[cur])
        cur = src.by_id[cur]["parentId"]
    path.reverse()
    parent = None
    ids = set()
    for e in path:
        if e["type"] == "label":
            continue
        e2 = dict(e)
        e2["parentId"] = parent
        s.lines.append(e2)
        s.by_id[e2["id"]] = e2
        s.g.used.add(e2["id"])
        ids.add(e2["id"])
        parent = e2["id"]
        if e2["type"] == "message":
            s.usage.add(e2["message"].get("content", ""))
    labels: dict[str, tuple[str | None, str]] = {}
    for e in src.lines:
        if isinstance(e, dict) and e.get("type") == "label":
            labels[e["targetId"]] = (e.get("label"), e["timestamp"])
    for target, (label, ts) in labels.items():
        if label and target in ids:
            eid = s.g.hex8()
            e2 = piwriter.entry("label", eid, parent, ts, targetId=target, label=label)
            s.lines.append(e2)
            s.by_id[eid] = e2
            parent = eid
    s.leaf = parent
    for eid in s.by_id:
        s.snap[eid] = (s.usage.ctx, 0)
    return s
