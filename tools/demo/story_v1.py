"""The tmux story (session E): a version-1 file as very old Pi wrote it, no version in the
header (which carries the model), no entry ids, and a compaction by entry index."""

from __future__ import annotations

from tools.demo.blocks import Out, call, text, think
from tools.demo.diffs import display_diff
from tools.demo.models import GPT5, SONNET
from tools.demo.places import DOTFILES
from tools.demo.session import Session
from tools.demo.truncation import bash_out

TMUX_CONF = """# prefix: C-a
unbind C-b
set -g prefix C-a
bind C-a send-prefix

set -g mouse on
setw -g mode-keys vi
set -g history-limit 50000
set -sg escape-time 10

# splits keep the current directory
bind | split-window -h -c "#{pane_current_path}"
bind - split-window -v -c "#{pane_current_path}"
bind c new-window -c "#{pane_current_path}"

bind r source-file ~/.tmux.conf \\; display "reloaded"
"""


def build_session_e() -> Session:
    s = Session(
        cwd=DOTFILES,
        start="2026-11-14T07:58:21.904Z",
        seed=1014,
        model=SONNET,
        version=None,
        legacy=True,
        durations=False,
        header_extra={"provider": "anthropic", "modelId": "claude-sonnet-4-5", "thinkingLevel": "off"},
    )
    s.thinking_level = None
    s.user(
        [
            text(
                "Set up a minimal tmux config in this repo: prefix C-a, mouse on, vi copy mode, and splits that keep the current directory. Then stow it."
            )
        ]
    )
    c = call("write", {"path": "tmux/.tmux.conf", "content": TMUX_CONF})
    s.turn([c], [Out(f"Successfully wrote {len(TMUX_CONF.encode())} bytes to tmux/.tmux.conf")])
    c = call("bash", {"command": "stow -v tmux"})
    s.turn([c], [bash_out("LINK: .tmux.conf => dotfiles/tmux/.tmux.conf\n")])
    s.assistant(
        [
            text(
                "Created `tmux/.tmux.conf` and linked it with stow. Highlights:\n\n"
                "- prefix is `C-a` (press it twice to send a literal `C-a`)\n"
                "- `prefix |` and `prefix -` split and keep the current directory\n"
                "- `prefix r` reloads the config"
            )
        ]
    )
    s.thinking_change("medium")
    s.thinking_level = None
    s.user([text("Colors look washed out in nvim inside tmux.")])
    old = "set -sg escape-time 10\n"
    new = 'set -sg escape-time 10\nset -g default-terminal "tmux-256color"\nset -ag terminal-overrides ",xterm-256color:RGB"\n'
    c = call("edit", {"path": "tmux/.tmux.conf", "oldText": old, "newText": new})
    diff, _ = display_diff(TMUX_CONF, TMUX_CONF.replace(old, new))
    s.turn(
        [
            think(
                "tmux doesn't advertise true color by default; nvim with termguicolors then falls back to 256-color approximations."
            ),
            text("tmux isn't passing true color through. Adding the terminal override:"),
            c,
        ],
        [Out("Successfully replaced text in tmux/.tmux.conf.", details={"diff": diff})],
    )
    s.assistant(
        [
            text(
                "Done. Restart the tmux server (`tmux kill-server`) so the new `default-terminal` applies to new sessions."
            )
        ]
    )
    s.model_change(GPT5)
    s.user([text("What was the key to reload the config again?")])
    s.assistant(
        [
            text(
                "`prefix r`, i.e. `C-a` then `r`. It runs `source-file ~/.tmux.conf` and shows *reloaded* in the status line."
            )
        ],
        model=GPT5,
    )
    s.tick(2, 4)
    s._append(
        "compaction",
        {
            "summary": "The user set up tmux in their dotfiles repo (`tmux/.tmux.conf`, linked with stow): prefix C-a, mouse, vi copy mode, "
            "splits that keep the current directory, `prefix r` to reload, and true color for nvim via `terminal-overrides`.",
            "firstKeptEntryIndex": 8,
            "tokensBefore": 18234,
        },
    )
    s.user([text("Thanks, that's all for now.")])
    s.assistant([text("You're welcome. Don't forget to commit `tmux/.tmux.conf` to the dotfiles repo.")], model=GPT5)
    return s
