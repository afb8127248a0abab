"""The zsh story (session D): a short, plain session in the dotfiles project with an OpenAI
model, no system message: why a shell starts slowly, measured, profiled and fixed."""

from __future__ import annotations

from tools.demo.blocks import call, text, think
from tools.demo.fs import FS
from tools.demo.models import GPT5
from tools.demo.places import DOTFILES
from tools.demo.session import Session
from tools.demo.truncation import bash_out

ZSHRC = """# ~/.zshrc, managed in ~/dotfiles (stow zsh)

export EDITOR=nvim
export PATH="$HOME/.local/bin:$PATH"

HISTFILE=~/.zsh_history
HISTSIZE=50000
SAVEHIST=50000
setopt share_history hist_ignore_dups

# completion
autoload -Uz compinit
compinit

# node
export NVM_DIR="$HOME/.nvm"
[ -s "$NVM_DIR/nvm.sh" ] && . "$NVM_DIR/nvm.sh"

# python
eval "$(pyenv init -)"

source ~/dotfiles/zsh/aliases.zsh
source ~/dotfiles/zsh/prompt.zsh
"""

DOT_FILES = {
    "zsh/.zshrc": ZSHRC,
    "zsh/aliases.zsh": "alias ll='ls -lah'\nalias gs='git status --short'\nalias v=nvim\n",
    "zsh/prompt.zsh": "autoload -Uz vcs_info\nprecmd() { vcs_info }\nsetopt prompt_subst\nPROMPT='%F{blue}%~%f ${vcs_info_msg_0_} %# '\n",
    "git/.gitconfig": "[user]\n\tname = Demo\n\temail = demo@example.com\n[pull]\n\trebase = true\n",
    "README.md": "# dotfiles\n\nManaged with GNU stow: `stow zsh git tmux`.\n",
}


def build_session_d() -> Session:
    fs = FS(DOT_FILES)
    s = Session(cwd=DOTFILES, start="2026-11-19T21:04:51.730Z", seed=1119, model=GPT5, thinking_level="low")
    s.model_change(GPT5)
    s.thinking_change("low")
    s.user(
        "Opening a new terminal takes almost two seconds since I added a few things to my zshrc. Can you find out why?"
    )
    c = call("bash", {"command": "for i in 1 2 3; do /usr/bin/time -f %es zsh -i -c exit; done"})
    s.turn(
        [think("Measure first, then profile with zprof."), c],
        [bash_out("1.84s\n1.79s\n1.81s\n", duration=(5400, 5800))],
    )
    c = call("bash", {"command": "zsh -c 'zmodload zsh/zprof; source ~/.zshrc; zprof' 2>/dev/null | head -n 8"})
    s.turn(
        [c],
        [
            bash_out(
                """num  calls                time                       self            name
-----------------------------------------------------------------------------------
 1)    1        1038.52  1038.52   58.40%   1038.52  1038.52   58.40%  nvm_auto
 2)    1         391.07   391.07   21.99%    391.07   391.07   21.99%  compinit
 3)    1         143.88   143.88    8.09%    143.88   143.88    8.09%  _pyenv_init
 4)    1          61.20    61.20    3.44%     44.91    44.91    2.53%  nvm
 5)    1          17.34    17.34    0.98%     17.34    17.34    0.98%  vcs_info
 6)    4           9.87     2.47    0.56%      9.87     2.47    0.56%  compdef
""",
                duration=(1900, 2300),
            )
        ],
    )
    c = call("read", {"path": "zsh/.zshrc"})
    s.turn([c], [fs.read("zsh/.zshrc")])
    comp_old = "# completion\nautoload -Uz compinit\ncompinit\n"
    comp_new = (
        "# completion: full security check at most once a day\nautoload -Uz compinit\n"
        "for dump in ~/.zcompdump(N.mh+24); do\n  compinit\ndone\ncompinit -C\n"
    )
    nvm_old = '# node\nexport NVM_DIR="$HOME/.nvm"\n[ -s "$NVM_DIR/nvm.sh" ] && . "$NVM_DIR/nvm.sh"\n'
    nvm_new = (
        "# node: load nvm on first use, it costs ~1 s at startup\n"
        'export NVM_DIR="$HOME/.nvm"\n'
        "nvm node npm npx() {\n"
        "  unset -f nvm node npm npx\n"
        '  [ -s "$NVM_DIR/nvm.sh" ] && . "$NVM_DIR/nvm.sh"\n'
        '  "$0" "$@"\n'
        "}\n"
    )
    c = call(
        "edit",
        {
            "path": "zsh/.zshrc",
            "edits": [{"oldText": comp_old, "newText": comp_new}, {"oldText": nvm_old, "newText": nvm_new}],
        },
    )
    s.turn(
        [
            think(
                "nvm.sh is ~1 s and compinit re-audits every completion file on each start (~0.4 s). Lazy-load nvm behind wrapper "
                "functions; run the full compinit only when the dump is older than a day."
            ),
            c,
        ],
        [fs.edit("zsh/.zshrc", (comp_old, comp_new), (nvm_old, nvm_new))],
    )
    c = call("bash", {"command": "for i in 1 2 3; do /usr/bin/time -f %es zsh -i -c exit; done"})
    s.turn([c], [bash_out("0.23s\n0.21s\n0.21s\n", duration=(700, 900))])
    s.assistant(
        [
            text(
                """Startup went from **~1.8 s to ~0.2 s**. `zprof` showed two culprits:

1. **nvm** (58 %): sourcing `nvm.sh` takes about a second. It now loads on first use of `nvm`, `node`, `npm` or `npx`:

   ```zsh
   nvm node npm npx() {
     unset -f nvm node npm npx
     [ -s "$NVM_DIR/nvm.sh" ] && . "$NVM_DIR/nvm.sh"
     "$0" "$@"
   }
   ```

   The first `node` in a new shell pays the second once; later calls are normal.
2. **compinit** (22 %): it audits every completion file on each start. Now the full check runs only when `~/.zcompdump` is older than 24 h, otherwise `compinit -C` reuses the dump.

`pyenv init` is the next biggest item (~140 ms) if you want to go further."""
            )
        ]
    )
    return s
