"""The generator of pitui's demo sessions (``pitui --demo``): ``python -m tools.demo``.

It writes ``pitui/demo/sessions/``, a small Pi sessions store laid out like
``~/.pi/agent/sessions`` (``pitui/demo/README.md`` says what each file shows). Standard
library only, and deterministic: every id, time and token count comes from fixed seeds and
start times, so a run writes the same bytes as the files shipped (tests/core/test_demo_data.py).
The lines are made by the repository's session writer, ``tools/piwriter.py``; tool results
follow Pi's real tools, computed on a small in-memory project so that reads, edits and test
runs agree with each other.

The parts, one job each:

- ``build.py`` runs the stories in order and writes the files; ``__main__.py`` the command;
- how a session is made: ``session.py`` (entries as Pi appends them), ``ids.py``,
  ``models.py`` (prices, usage), ``blocks.py``, ``truncation.py`` and ``diffs.py`` (what
  Pi's bash and edit tools report), ``fs.py`` (the in-memory project), ``prompt.py`` (Pi's
  tools and system prompt), ``subagents.py``, ``fork.py`` (Pi's /fork), ``png.py``;
- the shop project: ``shop_files.py``, its unittest suites (``suites.py``,
  ``suites_shop.py``, ``suites_site.py``) and what its commands print (``outputs.py``);
- the stories, one session each: ``story_checkout*.py`` (with ``checkout_code.py``),
  ``story_long*.py`` (with ``long_code.py``), ``story_admin.py``, ``story_zsh.py``,
  ``story_v1.py``, ``story_blog.py``; ``stream_logs.py``: Pi's event streams saved (an RPC
  log, a JSON-mode run) and a file that is not a session.
"""
