"""Subagents (the pi-subagents extension): a nested run with its own transcript, and the
tool result the parent session gets from it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tools.demo.blocks import text
from tools.demo.models import Model
from tools.demo.places import PI_SESSIONS
from tools.demo.prompt import SNIPPETS, tool_decls
from tools.demo.session import Session
from tools.piwriter import iso, ms_of


SUBAGENT_PROMPTS = {
    "scout": "You are scout, a fast codebase reconnaissance agent. Investigate quickly with read, grep, find and ls, and report precise findings with file:line references. Never modify files.",
    "worker": "You are worker. Implement the requested change completely and verify it by running the relevant tests. Keep changes minimal and report exactly what you changed.",
    "reviewer": "You are reviewer. Review the described change for correctness, test coverage and style. Reply with a verdict (approve / request changes) and concrete, numbered notes.",
}
SUBAGENT_TOOLS = {
    "scout": ["read", "grep", "find", "ls", "bash"],
    "worker": ["read", "bash", "edit", "write", "grep"],
    "reviewer": ["read", "bash", "grep"],
}


@dataclass
class SubRun:
    agent: str
    task: str
    model: Model
    session: Session
    exit_code: int = 0
    error: str | None = None
    step: int | None = None
    artifact_base: str = ""
    write_transcript: bool = True
    skills: list[str] = field(default_factory=list)


def start_subagent(parent: Session, agent: str, task: str, model: Model, seed: int) -> Session:
    sub = Session(
        cwd=parent.cwd,
        start=iso(parent.t + 900),
        seed=seed,
        model=model,
        thinking_level="low" if agent != "reviewer" else "medium",
        usage_base=2900,
    )
    sub.tick(0.3, 0.9)
    sub.system(
        sections={
            "preamble": SUBAGENT_PROMPTS[agent],
            "tools": "<tools>\n" + "\n".join(f"- {t}: {SNIPPETS[t]}" for t in SUBAGENT_TOOLS[agent]) + "\n</tools>",
            "cwd": f"<cwd>\n{parent.cwd}\n</cwd>",
        },
        tools_added=tool_decls(SUBAGENT_TOOLS[agent]),
    )
    sub.user([text(f"Task: {task}")], typing=(0.1, 0.3))
    return sub


def subagent_result(run: SubRun, artifacts_dir: str) -> dict:
    msgs = [
        e["message"]
        for e in run.session.lines
        if isinstance(e, dict) and e.get("type") == "message" and e["message"]["role"] != "system"
    ]
    assistants = [m for m in msgs if m["role"] == "assistant"]
    usage = {
        "input": sum(m["usage"]["input"] for m in assistants),
        "output": sum(m["usage"]["output"] for m in assistants),
        "cacheRead": sum(m["usage"]["cacheRead"] for m in assistants),
        "cacheWrite": sum(m["usage"]["cacheWrite"] for m in assistants),
        "cost": sum(m["usage"]["cost"]["total"] for m in assistants),
        "turns": len(assistants),
    }
    tool_count = sum(1 for m in msgs if m["role"] == "toolResult")
    duration = run.session.t - ms_of(run.session.header["timestamp"])
    base = f"{artifacts_dir}/{run.artifact_base}"
    res: dict[str, Any] = {
        "agent": run.agent,
        "task": run.task,
        "exitCode": run.exit_code,
        "messages": msgs,
        "usage": usage,
        "model": f"{run.model.provider}/{run.model.id}",
    }
    if run.error:
        res["error"] = run.error
    res["sessionFile"] = (
        f"/tmp/pi-subagent-session-{run.session.g.b62(6)}/run-{run.step - 1 if run.step else 0}/{run.session.filename}"
    )
    if run.skills:
        res["skills"] = run.skills
    res["progressSummary"] = {
        "toolCount": tool_count,
        "tokens": usage["input"] + usage["output"] + usage["cacheRead"] + usage["cacheWrite"],
        "durationMs": duration,
    }
    res["artifactPaths"] = {
        "inputPath": f"{base}_input.md",
        "outputPath": f"{base}_output.md",
        "jsonlPath": f"{base}.jsonl",
        "metadataPath": f"{base}_meta.json",
    }
    if run.step is not None:
        res["step"] = run.step
    return res


def final_text(run: SubRun) -> str:
    for e in reversed(run.session.lines):
        if isinstance(e, dict) and e.get("type") == "message" and e["message"]["role"] == "assistant":
            return "\n".join(b["text"] for b in e["message"]["content"] if b["type"] == "text")
    return ""


def artifacts_dir(parent: Session) -> str:
    """Where the extension keeps its runs' transcripts, next to the parent session."""
    return f"{PI_SESSIONS}/{parent.project}/subagent-artifacts"
