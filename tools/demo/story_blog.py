"""The blog story (session F): a damaged file. The laptop died while a tool result was being
written (half a line is left; after ``pi --continue`` the next entries hang off the last
complete one), and it crashed again while the last line was written (no final newline)."""

from __future__ import annotations

from tools import piwriter
from tools.demo.blocks import call, text, think
from tools.demo.fs import FS
from tools.demo.models import GEMINI
from tools.demo.places import BLOG
from tools.demo.prompt import system_sections, tool_decls
from tools.demo.session import Session
from tools.demo.truncation import bash_out
from tools.piwriter import iso

BUILD_PY = '''"""Build the blog: Markdown posts in posts/ -> HTML in public/, plus an RSS feed."""
from __future__ import annotations

import html
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import markdown

SITE = "https://notes.demo.example"
POSTS = Path("posts")
OUT = Path("public")


@dataclass
class Post:
    slug: str
    title: str
    date: date
    body_html: str


def load_posts() -> list[Post]:
    posts = []
    for path in POSTS.glob("*.md"):
        meta, _, body = path.read_text().partition("\\n---\\n")
        fields = dict(line.split(": ", 1) for line in meta.splitlines() if ": " in line)
        posts.append(Post(path.stem, fields["title"], date.fromisoformat(fields["date"]), markdown.markdown(body)))
    return posts


def rss(posts: list[Post]) -> str:
    items = "\\n".join(
        f"""  <item>
    <title>{html.escape(p.title)}</title>
    <link>{SITE}/{p.slug}/</link>
    <guid>{SITE}/{p.slug}/</guid>
    <pubDate>{p.date.isoformat()}</pubDate>
  </item>"""
        for p in posts
    )
    return f"""<?xml version="1.0" encoding="utf-8"?>
<rss version="2.0">
<channel>
  <title>Demo's notes</title>
  <link>{SITE}/</link>
  <description>Notes on code, coffee and the market stall.</description>
{items}
</channel>
</rss>
"""


def main() -> None:
    posts = load_posts()
    OUT.mkdir(exist_ok=True)
    for post in posts:
        (OUT / post.slug).mkdir(exist_ok=True)
        (OUT / post.slug / "index.html").write_text(post.body_html)
    (OUT / "feed.xml").write_text(rss(posts))
    print(f"built {len(posts)} posts")


if __name__ == "__main__":
    main()
'''

BLOG_TOOLS = ["read", "bash", "edit", "write"]


def build_session_f() -> Session:
    fs = FS({"build.py": BUILD_PY})
    s = Session(cwd=BLOG, start="2026-11-20T19:26:08.311Z", seed=1120, model=GEMINI, thinking_level="medium")
    s.system(sections=system_sections(BLOG_TOOLS, BLOG), tools_added=tool_decls(BLOG_TOOLS))
    s.user(
        "Feedly shows my posts in a random order and says the dates in feed.xml are invalid. Can you fix the feed in build.py?"
    )
    c = call("read", {"path": "build.py"})
    s.turn(
        [think("Two symptoms: order and date format. RSS 2.0 wants RFC 822 dates in pubDate."), c],
        [fs.read("build.py")],
    )
    c1 = call("bash", {"command": "python build.py && grep -m3 pubDate public/feed.xml && ls posts | head -3"})
    s.turn(
        [c1],
        [
            bash_out(
                "built 14 posts\n    <pubDate>2026-03-02</pubDate>\n    <pubDate>2025-11-18</pubDate>\n    <pubDate>2026-10-09</pubDate>\nairpress-vs-v60.md\nbuild-a-market-stall.md\ncast-iron-care.md\n",
                duration=(600, 900),
            )
        ],
    )
    sort_old = "def main() -> None:\n    posts = load_posts()\n"
    sort_new = "def main() -> None:\n    posts = sorted(load_posts(), key=lambda p: p.date, reverse=True)\n"
    date_old = "    <pubDate>{p.date.isoformat()}</pubDate>"
    date_new = "    <pubDate>{format_datetime(datetime.combine(p.date, time(9), timezone.utc))}</pubDate>"
    imp_old = "from datetime import date\n"
    imp_new = "from datetime import date, datetime, time, timezone\nfrom email.utils import format_datetime\n"
    c = call(
        "edit",
        {
            "path": "build.py",
            "edits": [
                {"oldText": imp_old, "newText": imp_new},
                {"oldText": date_old, "newText": date_new},
                {"oldText": sort_old, "newText": sort_new},
            ],
        },
    )
    s.turn(
        [
            text(
                "Found both problems:\n\n1. `POSTS.glob()` returns files in directory order, and nothing sorts them.\n"
                "2. `pubDate` is ISO 8601 (`2026-03-02`), but RSS 2.0 requires RFC 822 (`Mon, 02 Mar 2026 09:00:00 +0000`)."
            ),
            c,
        ],
        [fs.edit("build.py", (imp_old, imp_new), (date_old, date_new), (sort_old, sort_new))],
    )
    c = call(
        "bash", {"command": "python build.py && xmllint --noout public/feed.xml && grep -m3 pubDate public/feed.xml"}
    )
    pending = s.assistant([c])
    # The laptop died while Pi was writing the tool result: half a line is all that's left.
    s.tick(1.2)
    lost = piwriter.entry(
        "message",
        s.g.hex8(),
        pending["id"],
        iso(s.t),
        # (cut before the rest of the message: what follows "content" is never written)
        message={
            "role": "toolResult",
            "toolCallId": c["id"],
            "toolName": "bash",
            "content": [
                text(
                    "built 14 posts\n    <pubDate>Fri, 09 Oct 2026 09:00:00 +0000</pubDate>\n    <pubDate>Mon, 02 Mar 2026 09:00:00 +0000</pubDate>\n"
                )
            ],
        },
    )
    s.lines.append(piwriter.dumps_exact(lost)[:173])
    # Pi restarted with --continue: it appended the missing newline and went on from the last valid entry.
    s.tick(14 * 60)
    s.user("Sorry, my battery died. Did the build work?")
    c = call(
        "bash", {"command": "python build.py && xmllint --noout public/feed.xml && grep -m3 pubDate public/feed.xml"}
    )
    s.turn(
        [c],
        [
            bash_out(
                "built 14 posts\n    <pubDate>Fri, 09 Oct 2026 09:00:00 +0000</pubDate>\n    <pubDate>Mon, 02 Mar 2026 09:00:00 +0000</pubDate>\n    <pubDate>Tue, 18 Nov 2025 09:00:00 +0000</pubDate>\n",
                duration=(700, 1000),
            )
        ],
    )
    s.assistant(
        [
            text(
                "Yes: the feed validates with `xmllint`, posts are newest first, and every `pubDate` is RFC 822 now, e.g. "
                "`Fri, 09 Oct 2026 09:00:00 +0000`. Posts have no time of day, so I used 09:00 UTC."
            )
        ]
    )
    s.user('Great. Also add the atom:link rel="self" element, Feedly complained about that too.')
    c = call(
        "edit",
        {
            "path": "build.py",
            "oldText": '<rss version="2.0">\n<channel>\n',
            "newText": '<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom">\n<channel>\n  <atom:link href="{SITE}/feed.xml" rel="self" type="application/rss+xml"/>\n',
        },
    )
    cut = s.assistant([text("Adding the self link to the channel:"), c])
    # ... and the session crashed again while this line was being written: no final newline.
    s.lines[-1] = piwriter.dumps_exact(cut)[:312]
    return s
