"""Each renderer has a row for every kind of entry: the pane, the HTML export and the
Markdown export each keep a table keyed by the entry types (and one by the message roles),
and the one list of kinds is in core (``pitui.core.read.skeleton``). A kind added to the
list without a row in one renderer fails here, and so does a row for a kind the list does
not have (a misspelt key, never looked up)."""

from __future__ import annotations

import pytest

from pitui.core.export.html_entries import ENTRY_HTML, MESSAGE_HTML
from pitui.core.export.markdown import ENTRY_MD, MESSAGE_MD
from pitui.core.read.skeleton import ENTRY_TYPES, MESSAGE_ROLES
from pitui.ui.pane.entry_drawer import ENTRY_DRAW
from pitui.ui.pane.renderers import MESSAGE_RENDER

ENTRY_TABLES = {"the pane": ENTRY_DRAW, "the HTML export": ENTRY_HTML, "the Markdown export": ENTRY_MD}
ROLE_TABLES = {"the pane": MESSAGE_RENDER, "the HTML export": MESSAGE_HTML, "the Markdown export": MESSAGE_MD}


def test_the_kinds_are_each_named_once():
    assert len(set(ENTRY_TYPES)) == len(ENTRY_TYPES) and len(set(MESSAGE_ROLES)) == len(MESSAGE_ROLES)


@pytest.mark.parametrize("renderer", ENTRY_TABLES)
def test_every_entry_type_has_a_row(renderer):
    table = ENTRY_TABLES[renderer]
    assert sorted(set(ENTRY_TYPES) - table.keys()) == [], f"{renderer} lacks a row"
    assert sorted(table.keys() - set(ENTRY_TYPES)) == [], f"{renderer} has a row for a type core does not know"
    assert all(callable(draw) for draw in table.values())


@pytest.mark.parametrize("renderer", ROLE_TABLES)
def test_every_message_role_has_a_row(renderer):
    table = ROLE_TABLES[renderer]
    assert sorted(set(MESSAGE_ROLES) - table.keys()) == [], f"{renderer} lacks a row"
    assert sorted(table.keys() - set(MESSAGE_ROLES)) == [], f"{renderer} has a row for a role core does not know"
    assert all(callable(draw) for draw in table.values())
