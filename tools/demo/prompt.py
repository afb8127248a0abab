"""Pi's tools (their JSON schemas) and its system prompt, section by section."""

from __future__ import annotations

from typing import Any

from tools.demo.places import PI_PKG


def _obj(props: dict, required: list[str]) -> dict:
    return {"type": "object", "properties": props, "required": required}


def _s(desc: str) -> dict:
    return {"type": "string", "description": desc}


def _n(desc: str) -> dict:
    return {"type": "number", "description": desc}


TOOLS: dict[str, dict] = {
    "read": {
        "name": "read",
        "description": "Read the contents of a file. Supports text files and images (jpg, png, gif, webp, bmp). Images are sent as attachments. For text files, output is truncated to 2000 lines or 50KB (whichever is hit first). Use offset/limit for large files. When you need the full file, continue with offset until complete.",
        "parameters": _obj(
            {
                "path": _s("Path to the file to read (relative or absolute)"),
                "offset": _n("Line number to start reading from (1-indexed)"),
                "limit": _n("Maximum number of lines to read"),
            },
            ["path"],
        ),
    },
    "bash": {
        "name": "bash",
        "description": "Execute a bash command in the current working directory. Returns stdout and stderr. Output is truncated to last 2000 lines or 50KB (whichever is hit first). If truncated, full output is saved to a temp file. Optionally provide a timeout in seconds.",
        "parameters": _obj(
            {
                "command": _s("Shell command to execute"),
                "timeout": _n("Timeout in seconds (optional, no default timeout)"),
            },
            ["command"],
        ),
    },
    "edit": {
        "name": "edit",
        "description": "Edit a single file using exact text replacement. Every edits[].oldText must match a unique, non-overlapping region of the original file. If two changes affect the same block or nearby lines, merge them into one edit instead of emitting overlapping edits. Do not include large unchanged regions just to connect distant changes.",
        "parameters": _obj(
            {
                "path": _s("Path to the file to edit (relative or absolute)"),
                "edits": {
                    "type": "array",
                    "items": _obj(
                        {
                            "oldText": _s(
                                "Exact text for one targeted replacement. It must be unique in the original file and must not overlap with any other edits[].oldText in the same call."
                            ),
                            "newText": _s("Replacement text for this targeted edit."),
                        },
                        ["oldText", "newText"],
                    ),
                    "description": "One or more targeted replacements. Each edit is matched against the original file, not incrementally. Do not include overlapping or nested edits. If two changes touch the same block or nearby lines, merge them into one edit instead.",
                },
            },
            ["path", "edits"],
        ),
    },
    "write": {
        "name": "write",
        "description": "Write content to a file. Creates the file if it doesn't exist, overwrites if it does. Automatically creates parent directories.",
        "parameters": _obj(
            {
                "path": _s("Path to the file to write (relative or absolute)"),
                "content": _s("Content to write to the file"),
            },
            ["path", "content"],
        ),
    },
    "grep": {
        "name": "grep",
        "description": "Search file contents for a pattern. Returns matching lines with file paths and line numbers. Respects .gitignore. Output is truncated to 100 matches or 50KB (whichever is hit first). Long lines are truncated to 500 chars.",
        "parameters": _obj(
            {
                "pattern": _s("Search pattern (regex or literal string)"),
                "path": _s("Directory or file to search (default: current directory)"),
                "glob": _s(
                    "Filter files by glob pattern, relative to path, e.g. '*.ts', 'src/**/*.ts' or '**/*.spec.ts'. A pattern without '/' matches file names at any depth"
                ),
                "ignoreCase": {"type": "boolean", "description": "Case-insensitive search (default: false)"},
                "literal": {
                    "type": "boolean",
                    "description": "Treat pattern as literal string instead of regex (default: false)",
                },
                "context": _n("Number of lines to show before and after each match (default: 0)"),
                "limit": _n("Maximum number of matches to return (default: 100)"),
            },
            ["pattern"],
        ),
    },
    "find": {
        "name": "find",
        "description": "Search for files by glob pattern. Returns matching file paths relative to the search directory. Respects .gitignore. Output is truncated to 1000 results or 50KB (whichever is hit first).",
        "parameters": _obj(
            {
                "pattern": _s("Glob pattern to match files, e.g. '*.ts', '**/*.json', or 'src/**/*.spec.ts'"),
                "path": _s("Directory to search in (default: current directory)"),
                "limit": _n("Maximum number of results (default: 1000)"),
            },
            ["pattern"],
        ),
    },
    "ls": {
        "name": "ls",
        "description": "List directory contents. Returns entries sorted alphabetically, with '/' suffix for directories. Includes dotfiles. Output is truncated to 500 entries or 50KB (whichever is hit first).",
        "parameters": _obj(
            {
                "path": _s("Directory to list (default: current directory)"),
                "limit": _n("Maximum number of entries to return (default: 500)"),
            },
            [],
        ),
    },
    "subagent": {
        "name": "subagent",
        "description": "Delegate work to specialized subagents that run in isolated pi processes. Modes: single ({ agent, task }), parallel ({ tasks: [{ agent, task }] }) or chain ({ chain: [{ agent, task }] }, use {previous} to pass the previous step's output). Available agents: scout (fast codebase recon), worker (implements changes), reviewer (reviews diffs).",
        "parameters": _obj(
            {
                "agent": _s("Agent name (single mode)"),
                "task": _s("Task for the agent (single mode)"),
                "tasks": {
                    "type": "array",
                    "items": _obj({"agent": _s("Agent name"), "task": _s("Task")}, ["agent", "task"]),
                    "description": "Parallel mode: tasks run concurrently",
                },
                "chain": {
                    "type": "array",
                    "items": _obj(
                        {"agent": _s("Agent name"), "task": _s("Task, may reference {previous}")}, ["agent", "task"]
                    ),
                    "description": "Chain mode: steps run in order",
                },
            },
            [],
        ),
    },
}

SNIPPETS = {
    "read": "Read file contents",
    "bash": "Execute bash commands (ls, grep, find, etc.)",
    "edit": "Make precise file edits with exact text replacement, including multiple disjoint edits in one call",
    "write": "Create or overwrite files",
    "grep": "Search file contents for patterns (respects .gitignore)",
    "find": "Find files by glob pattern (respects .gitignore)",
    "ls": "List directory contents",
    "subagent": "Delegate tasks to specialized subagents (scout, worker, reviewer)",
}

RULES = [
    "Use read to examine files instead of cat or sed.",
    "Use edit for targeted changes. Batch changes to one file in a single call.",
    "Each edits[].oldText must exactly and uniquely match the original file. Keep matches short and non-overlapping; merge nearby changes without including large unchanged regions.",
    "Use write only for new files or complete rewrites.",
    "You can inspect PI_* environment variables for current model and session details.",
    "Be concise in your responses",
    "Show file paths clearly when working with files",
]

DOCS = f"""Pi documentation (read only when the user asks about the harness itself, its SDK, extensions, themes, skills, or TUI):
- Main documentation: {PI_PKG}/README.md
- Additional docs: {PI_PKG}/docs
- Examples: {PI_PKG}/examples (extensions, custom tools, SDK)
- When reading pi docs or examples, resolve docs/... under Additional docs and examples/... under Examples, not the current working directory
- When asked about: extensions (docs/extensions.md, examples/extensions/), themes (docs/themes.md), skills (docs/skills.md), prompt templates (docs/prompt-templates.md), TUI components (docs/tui.md), keybindings (docs/keybindings.md), SDK integrations (docs/sdk.md), custom providers (docs/custom-provider.md), adding models (docs/models.md), packages (docs/packages.md), environment variables (docs/environment-variables.md), MCP servers (docs/mcp.md), codemode scripts and non-LLM models such as classifiers and image models (docs/codemode.md)
- Before implementing harness changes, read the relevant docs and examples in full, following related cross-references."""

PREAMBLE = "You are a coding assistant running inside pi, a coding agent harness. Help users inspect files, run commands, and modify code."


def system_sections(
    tools: list[str], cwd: str, context_files: list[tuple[str, str]] = (), skills: str | None = None
) -> dict:
    tool_list = "\n".join(f"- {t}: {SNIPPETS[t]}" for t in tools)
    sections: dict[str, Any] = {"preamble": PREAMBLE}
    parts: dict[str, str] = {
        "tools": f"{tool_list}\n\nAdditional tools may be available.",
        "rules": "\n".join(f"- {r}" for r in RULES),
        "docs": DOCS,
    }
    if context_files:
        parts["project_context"] = "\n\n".join(
            ["Project-specific instructions and guidelines:"]
            + [f'<project_instructions path="{p}">\n{c}\n</project_instructions>' for p, c in context_files]
        )
    if skills:
        parts["skills"] = skills
    parts["cwd"] = cwd
    for name, body in parts.items():
        sections[name] = f"<{name}>\n{body}\n</{name}>"
    return sections


def tool_decls(names: list[str]) -> list[dict]:
    return [TOOLS[n] for n in names]
