"""``python -m pitui.cli``: the same as the ``pitui`` command."""

import sys

from . import main

sys.exit(main())
