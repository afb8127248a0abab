"""A demo session being written: the clock, the ids, the token accounting, and one method
per kind of entry, each appending the entry the way Pi would."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tools import piwriter
from tools.demo.blocks import Out, text
from tools.demo.ids import Gen
from tools.demo.models import SONNET, Model, est_tokens, usage_obj, zero_usage
from tools.demo.places import PI_SESSIONS
from tools.demo.truncation import needs_truncation, truncate_tail
from tools.piwriter import UNDEFINED, iso, ms_of


class UsageModel:
    """Rough but coherent token accounting: context grows, cache follows it."""

    def __init__(self, base: int, scale: float = 1.0) -> None:
        self.ctx = base
        self.cached = 0
        self.scale = scale

    def add(self, obj: Any) -> int:
        n = int(est_tokens(obj) * self.scale)
        self.ctx += n
        return n


class Session:
    """One session file as Pi would write it, built entry by entry."""

    def __init__(
        self,
        *,
        cwd: str,
        start: str,
        seed: int,
        model: Model = SONNET,
        thinking_level: str = "medium",
        version: int | None = 3,
        parent_session: str | None = None,
        header_extra: dict | None = None,
        legacy: bool = False,
        durations: bool = True,
        usage_base: int = 6400,
        usage_scale: float = 1.0,
        session_id: str | None = None,
    ) -> None:
        self.g = Gen(seed)
        self.cwd = cwd
        self.t = ms_of(start)
        self.legacy = legacy
        self.durations = durations
        self.model = model
        self.thinking_level = thinking_level
        self.id = session_id or (self.g.uuid4() if legacy else self.g.uuid7(self.t))
        self.header = piwriter.header(
            self.id, iso(self.t), cwd, version=version, parent_session=parent_session, **(header_extra or {})
        )
        self.lines: list[Any] = [self.header]  # dicts, or raw strings for damaged lines
        self.by_id: dict[str, dict] = {}
        self.leaf: str | None = None
        self.usage = UsageModel(usage_base, usage_scale)
        self.tokens: dict[str, int] = {}
        self.snap: dict[str, tuple[int, int]] = {}
        self.marks: dict[str, str] = {}  # entry ids other stories refer to, by name
        self.tick(8, 25)

    # -- paths ---------------------------------------------------------------
    @property
    def project(self) -> str:
        return piwriter.project_dir(self.cwd)

    @property
    def filename(self) -> str:
        return piwriter.session_file_name(self.header["timestamp"], self.id)

    @property
    def pi_path(self) -> str:
        return f"{PI_SESSIONS}/{self.project}/{self.filename}"

    # -- time ----------------------------------------------------------------
    def tick(self, lo: float, hi: float | None = None) -> int:
        secs = lo if hi is None else self.g.uniform(lo, hi)
        self.t += int(secs * 1000)
        return self.t

    def tick_ms(self, lo: int, hi: int) -> int:
        self.t += self.g.randint(lo, hi)
        return self.t

    # -- core append ---------------------------------------------------------
    def _append(
        self, typ: str, fields: dict, *, parent: Any = "leaf", ids_last: bool = False, ts: int | None = None
    ) -> dict:
        ts = self.t if ts is None else ts
        if self.legacy:
            e = piwriter.v1_entry(typ, iso(ts), **fields)
            self.lines.append(e)
            return e
        pid = self.leaf if parent == "leaf" else parent
        eid = self.g.hex8()
        make = piwriter.custom_entry if ids_last else piwriter.entry
        e = make(typ, eid, pid, iso(ts), **fields)
        self.lines.append(e)
        self.by_id[eid] = e
        self.leaf = eid
        self.snap[eid] = (self.usage.ctx, self.usage.cached)
        return e

    def goto(self, entry_id: str | None) -> None:
        """Move the leaf like Pi's /tree (no entry is written)."""
        self.leaf = entry_id
        if entry_id is not None:
            ctx, cached = self.snap[entry_id]
            self.usage.ctx = ctx
            self.usage.cached = cached

    # -- messages ------------------------------------------------------------
    def _message(self, msg: dict, *, msg_ts: int | None = None, count: bool = True) -> dict:
        e = self._append("message", {"message": msg})
        if count:
            n = self.usage.add(msg.get("content", msg.get("output", "")))
            if not self.legacy:
                self.tokens[e["id"]] = n
                self.snap[e["id"]] = (self.usage.ctx, self.usage.cached)
        return e

    def system(
        self,
        content: str = "",
        *,
        sections: dict | None = None,
        tools_added: list | None = None,
        tools_removed: list | None = None,
    ) -> dict:
        self.tick(0.2, 1.5)
        msg = piwriter.system_message(
            content, self.t, sections=sections, tools_added=tools_added, tools_removed=tools_removed
        )
        self.tick_ms(3, 40)
        e = self._message(msg, count=False)
        self.usage.add(sections or content)
        self.usage.add(tools_added or [])
        return e

    def user(self, content: Any, *, typing: tuple[float, float] = (25, 150)) -> dict:
        self.tick(*typing)
        msg = piwriter.user_message(content, self.t)
        self.tick_ms(2, 30)
        return self._message(msg)

    def assistant(
        self,
        blocks: list[dict],
        *,
        stop: str | None = None,
        model: Model | None = None,
        error: str | None = None,
        think_secs: tuple[float, float] | None = None,
        usage: dict | None = None,
        thinking_level: Any = "session",
    ) -> dict:
        m = model or self.model
        self.tick(0.6, 2.0)
        start = self.t
        for b in blocks:
            if b["type"] == "toolCall" and b["id"] is None:
                if m.api == "openai-responses":
                    b["id"] = f"call_{self.g.b62(24)}|fc_{self.g.hexn(48)}"
                elif m.api == "google-generative-ai":
                    b["id"] = f"{b['name']}_{self.t}_{self.g.randint(0, 9)}"
                else:
                    b["id"] = f"toolu_01{self.g.b62(22)}"
            if b["type"] == "thinking" and "thinkingSignature" not in b:
                if m.api == "openai-responses":
                    b["thinkingSignature"] = piwriter.dumps_exact(
                        {
                            "type": "reasoning",
                            "id": f"rs_{self.g.hexn(48)}",
                            "summary": [],
                            "encrypted_content": "gAAAAB" + self.g.b62(88),
                        }
                    )
                elif m.api == "anthropic-messages":
                    b["thinkingSignature"] = self.g.sig()
        if stop is None:
            stop = "toolUse" if any(b["type"] == "toolCall" for b in blocks) else "stop"
        out_tokens = sum(est_tokens(b.get("text") or b.get("thinking") or b.get("arguments") or "") for b in blocks) + 8
        think_tokens = sum(est_tokens(b["thinking"]) for b in blocks if b["type"] == "thinking")
        if usage is None:
            if stop in ("error",) or (stop == "aborted" and not blocks):
                usage = zero_usage()
            else:
                usage = self._usage_for(m, out_tokens, think_tokens)
        secs = think_secs or (2 + out_tokens / 45, 4 + out_tokens / 25)
        self.tick(*secs)
        tl = self.thinking_level if thinking_level == "session" else thinking_level
        msg = piwriter.assistant_message(
            blocks,
            api=m.api,
            provider=m.provider,
            model=m.id,
            usage=usage,
            stop_reason=stop,
            timestamp=start,
            thinking_level=None if self.legacy else tl,
            error=error,
        )
        self.tick_ms(1, 12)
        return self._message(msg)

    def _usage_for(self, m: Model, out_tokens: int, think_tokens: int) -> dict:
        u = self.usage
        ctx = u.ctx
        if m.api == "anthropic-messages":
            inp = self.g.randint(3, 12)
            cr = min(u.cached, ctx)
            cw = max(0, ctx - cr - inp)
            u.cached = ctx
            res = usage_obj(m, inp, out_tokens, cr, cw)
        else:
            cr = (min(u.cached, ctx) // 128) * 128
            inp = max(1, ctx - cr)
            u.cached = ctx
            res = usage_obj(m, inp, out_tokens, cr, 0, reasoning=think_tokens if m.api == "openai-responses" else None)
        if self.legacy:
            res.pop("totalTokens", None)
        return res

    def result(self, c: dict, out: Out) -> dict:
        dur = self.g.randint(*out.duration)
        self.t += dur
        msg = piwriter.tool_result_message(
            c["id"],
            c["name"],
            [text(out.text)] if isinstance(out.text, str) else out.text,
            details=out.details,
            is_error=out.is_error,
            timestamp=self.t,
            duration_ms=dur if self.durations else None,
        )
        self.tick_ms(1, 6)
        return self._message(msg)

    def turn(self, blocks: list[dict], outs: list[Out] | None = None, **kw: Any) -> dict:
        """An assistant message followed by one result per tool call."""
        a = self.assistant(blocks, **kw)
        calls = [b for b in blocks if b["type"] == "toolCall"]
        assert len(calls) == len(outs or []), (len(calls), outs)
        for c, o in zip(calls, outs or []):
            self.result(c, o)
        return a

    def bash_exec(
        self,
        command: str,
        output: str,
        exit_code: int | None = 0,
        *,
        exclude: bool | None = False,
        full_path: str | None = None,
    ) -> dict:
        self.tick(6, 30)
        truncated = needs_truncation(output)
        stored = truncate_tail(output)["content"] if truncated else output
        self.tick(0.2, 4)
        # Pi writes excludeFromContext before the timestamp (piwriter.bash_execution_message);
        # the demo files have always had it after, and they stay byte for byte as shipped
        msg: dict[str, Any] = {
            "role": "bashExecution",
            "command": command,
            "output": stored,
            "exitCode": exit_code,
            "cancelled": False,
            "truncated": truncated,
        }
        if full_path:
            msg["fullOutputPath"] = full_path
        msg["timestamp"] = self.t
        if exclude is not None and not self.legacy:
            msg["excludeFromContext"] = exclude
        self.tick_ms(2, 20)
        return self._message(msg, count=not exclude)

    # -- other entries -------------------------------------------------------
    def model_change(self, m: Model) -> dict:
        self.tick(2, 9)
        self.model = m
        self.usage.cached = 0
        return self._append("model_change", {"provider": m.provider, "modelId": m.id})

    def thinking_change(self, level: str) -> dict:
        self.tick(1, 5)
        self.thinking_level = level
        return self._append("thinking_level_change", {"thinkingLevel": level})

    def session_info(self, name: str) -> dict:
        self.tick(3, 12)
        return self._append("session_info", {"name": name})

    def label(self, target: str, label: str | None) -> dict:
        self.tick(2, 8)
        fields: dict[str, Any] = {"targetId": target}
        if label is not None:
            fields["label"] = label
        return self._append("label", fields)

    def custom(self, custom_type: str, data: Any) -> dict:
        self.tick_ms(5, 60)
        return self._append("custom", {"customType": custom_type, "data": data}, ids_last=True)

    def custom_message(self, custom_type: str, content: Any, display: bool, details: Any = UNDEFINED) -> dict:
        self.tick_ms(20, 400)
        e = self._append(
            "custom_message",
            {"customType": custom_type, "content": content, "display": display, "details": details},
            ids_last=True,
        )
        self.usage.add(content)
        return e

    def context_edit(self, target: str, replacement: Any) -> dict:
        self.tick_ms(10, 200)
        removed = self.tokens.get(target, 0)
        self.usage.ctx -= removed
        if replacement is not None:
            self.usage.add(replacement.get("content", ""))
        parent = self.by_id[target]["parentId"]
        if parent in self.snap:
            self.usage.cached = min(self.usage.cached, self.snap[parent][0])
        return self._append("context_edit", {"targetId": target, "replacement": replacement})

    def usage_entry(self, kind: str, m: Model, usage: dict) -> dict:
        return self._append("usage", {"kind": kind, "provider": m.provider, "model": m.id, "usage": usage})

    def branch_summary(self, at: str, summary: str, details: dict, usage: dict) -> dict:
        from_id = self.leaf
        self.goto(at)
        self.tick(9, 20)
        e = self._append(
            "branch_summary",
            {"fromId": from_id, "summary": summary, "details": details, "usage": usage, "fromHook": False},
            parent=at,
        )
        self.usage.add(summary)
        return e

    def compaction(
        self, summary: str, first_kept: str, details: dict, system_message: dict, summary_usage: dict
    ) -> dict:
        tokens_before = self.last_context_tokens()
        self.tick(25, 45)
        sm = dict(system_message)
        sm["timestamp"] = self.t
        e = self._append(
            "compaction",
            {
                "summary": summary,
                "firstKeptEntryId": first_kept,
                "tokensBefore": tokens_before,
                "details": details,
                "usage": summary_usage,
                "fromHook": False,
                "systemMessage": sm,
            },
        )
        # the new context: system prompt + summary + kept entries
        kept = 0
        path = self.path_ids()
        on = False
        for eid in path:
            if eid == first_kept:
                on = True
            if on:
                kept += self.tokens.get(eid, 0)
        self.usage.ctx = 6400 + est_tokens(summary) + kept
        self.usage.cached = 0
        return e

    def last_context_tokens(self) -> int:
        for line in reversed(self.lines):
            if isinstance(line, dict) and line.get("type") == "message" and line["message"]["role"] == "assistant":
                u = line["message"]["usage"]
                if u.get("totalTokens"):
                    return u["totalTokens"]
        return self.usage.ctx

    def path_ids(self) -> list[str]:
        ids = []
        cur = self.leaf
        while cur is not None:
            ids.append(cur)
            cur = self.by_id[cur]["parentId"]
        return list(reversed(ids))

    # -- output ----------------------------------------------------------------
    def write(self, root: Path, *, final_newline: bool = True) -> Path:
        """Write the file into its project folder under the sessions root ``root``."""
        d = root / self.project
        d.mkdir(parents=True, exist_ok=True)
        return piwriter.write(d / self.filename, self.lines, final_newline=final_newline, exact=True)
