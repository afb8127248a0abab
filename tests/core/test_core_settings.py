"""pitui's settings file (core/settings.py): read as untrusted data, written privately and
whole. The app's use of it is in tests/ui/test_ui_layout.py."""

from __future__ import annotations

import os
import stat
import threading

import pytest

from pitui.core import paths, settings
from pitui.core.settings import Layout, Settings


def test_the_file_is_in_the_config_folder_the_environment_names(tmp_path, monkeypatch):
    monkeypatch.setenv("PITUI_CONFIG_DIR", str(tmp_path / "conf"))
    assert settings.settings_path() == tmp_path / "conf" / "settings.json"


def test_the_config_folder_is_platformdirs_without_the_override(monkeypatch):
    from platformdirs import user_config_dir

    monkeypatch.delenv("PITUI_CONFIG_DIR", raising=False)
    assert str(settings.config_dir()) == user_config_dir("pitui", appauthor=False)


def test_a_missing_file_gives_the_defaults(tmp_path):
    assert settings.load(tmp_path / "none.json") == Settings()
    # the sidebar shown in a wide terminal, hidden in a narrow one (the pane keeps its room)
    assert Settings() == Settings(narrow=Layout(sidebar_hidden=True, sidebar_width=None, tree_share=None),
                                  wide=Layout(sidebar_hidden=False, sidebar_width=None, tree_share=None))


def test_saved_settings_read_back_the_same(tmp_path):
    f = tmp_path / "conf" / "settings.json"
    chosen = Settings(narrow=Layout(sidebar_hidden=False, tree_share=30.0),
                      wide=Layout(sidebar_hidden=True, sidebar_width=25.5, tree_share=60.0))
    assert settings.save(chosen, f)
    assert settings.load(f) == chosen


def test_each_size_class_keeps_its_own_layout(tmp_path):
    f = tmp_path / "settings.json"
    s = Settings()
    s = s.with_layout("narrow", s.layout("narrow").but(sidebar_hidden=False))
    assert s.layout("wide") == Layout() and s.layout("narrow") == Layout(sidebar_hidden=False)
    settings.save(s, f)
    import json

    assert json.loads(f.read_text()) == {
        "narrow": {"sidebar_hidden": False, "sidebar_width": None, "tree_share": None},
        "wide": {"sidebar_hidden": False, "sidebar_width": None, "tree_share": None}}


def test_an_older_flat_file_is_the_wide_layout(tmp_path):
    f = tmp_path / "settings.json"
    f.write_text('{"sidebar_hidden": true, "sidebar_width": 30, "tree_share": null}')
    assert settings.load(f) == Settings(wide=Layout(sidebar_hidden=True, sidebar_width=30.0))


def test_the_file_and_its_folder_are_private_and_written_whole(tmp_path):
    folder = tmp_path / "conf"
    f = folder / "settings.json"
    settings.save(Settings(wide=Layout(sidebar_hidden=True)), f)
    settings.save(Settings(wide=Layout(sidebar_width=30.0)), f)
    assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(f).st_mode) == 0o600
    assert sorted(p.name for p in folder.iterdir()) == ["settings.json"]  # (no temporary file left)


@pytest.mark.parametrize("content", [
    b"",
    b"{",
    b"\xff\xfe not utf-8",
    b"[1, 2, 3]",
    b'"a string"',
    b"null",
    b"[" * 5000 + b"]" * 5000,  # deeper than any parser should follow
    b'{"sidebar_hidden": NaN}',
])
def test_a_damaged_file_gives_the_defaults(tmp_path, content):
    f = tmp_path / "settings.json"
    f.write_bytes(content)
    assert settings.load(f) == Settings()


@pytest.mark.parametrize("data, expected", [
    # wrong types: that setting's default, the others kept
    ({"sidebar_hidden": "yes", "sidebar_width": 30}, Layout(sidebar_width=30.0)),
    ({"sidebar_hidden": 1, "tree_share": 40.25}, Layout(tree_share=40.25)),
    ({"sidebar_hidden": True, "sidebar_width": "30", "tree_share": [50]}, Layout(sidebar_hidden=True)),
    ({"sidebar_width": True, "tree_share": None}, Layout()),
    # out of range: kept inside it
    ({"sidebar_width": -5, "tree_share": 1e308}, Layout(sidebar_width=settings.SIDEBAR_WIDTH_RANGE[0],
                                                        tree_share=settings.TREE_SHARE_RANGE[1])),
    ({"sidebar_width": 10**400}, None),  # (a number no float holds: orjson refuses the file)
    # other keys: ignored
    ({"sidebar_hidden": True, "__class__": "os.system", "x": {"y": 1}}, Layout(sidebar_hidden=True)),
])
def test_wrong_values_give_their_defaults_or_are_kept_in_range(tmp_path, data, expected):
    import json

    f = tmp_path / "settings.json"
    f.write_text(json.dumps({"narrow": data, "wide": data}))
    want = Settings() if expected is None else Settings(
        narrow=expected if "sidebar_hidden" in data and isinstance(data["sidebar_hidden"], bool)
        else expected.but(sidebar_hidden=True), wide=expected)
    assert settings.load(f) == want
    f.write_text(json.dumps({"narrow": [1], "wide": "x"}))  # (a class that is no object: its defaults)
    assert settings.load(f) == Settings()


def test_an_oversized_file_is_not_read(tmp_path):
    f = tmp_path / "settings.json"
    f.write_bytes(b'{"sidebar_hidden": true, "pad": "' + b"x" * settings.MAX_BYTES + b'"}')
    assert settings.load(f) == Settings()


def test_a_fifo_is_not_waited_on(tmp_path):
    f = tmp_path / "settings.json"
    os.mkfifo(f)
    got = []
    t = threading.Thread(target=lambda: got.append(settings.load(f)), daemon=True)
    t.start()
    t.join(5)
    assert got == [Settings()]


def test_a_folder_where_the_file_should_be_gives_the_defaults(tmp_path):
    (tmp_path / "settings.json").mkdir()
    assert settings.load(tmp_path / "settings.json") == Settings()


def test_a_file_that_cannot_be_written_is_said_once_and_never_raises(tmp_path):
    paths._forget_notices()
    blocker = tmp_path / "conf"
    blocker.write_text("a file where the folder should be")
    assert settings.save(Settings(), blocker / "settings.json") is False
    notes = paths.take_notices()
    assert len(notes) == 1 and "settings folder" in notes[0] and "settings not saved" in notes[0]
    (tmp_path / "conf2").mkdir()
    (tmp_path / "conf2" / "settings.json").mkdir()  # (the rename over it fails)
    assert settings.save(Settings(), tmp_path / "conf2" / "settings.json") is False
    assert "the settings cannot be saved" in paths.take_notices()[0]


def test_but_keeps_widths_in_range():
    s = Layout().but(sidebar_width=99.0, tree_share=-1.0)
    assert (s.sidebar_width, s.tree_share) == (settings.SIDEBAR_WIDTH_RANGE[1], settings.TREE_SHARE_RANGE[0])
    assert Layout().but(sidebar_width=float("nan")).sidebar_width is None


def test_the_pi_command_is_kept_and_split(tmp_path):
    from pitui.core.settings import Settings, load, pi_command, save

    path = tmp_path / "settings.json"
    path.write_text('{"wide": {"sidebar_hidden": true}, "pi_command": "npx @earendil-works/pi-coding-agent"}')
    got = load(path)
    assert got.pi_command == "npx @earendil-works/pi-coding-agent" and got.wide.sidebar_hidden
    assert pi_command(got, {}) == ["npx", "@earendil-works/pi-coding-agent"]
    assert pi_command(got, {"PITUI_PI_COMMAND": "'/opt/my pi' --x"}) == ["/opt/my pi", "--x"]
    assert pi_command(Settings(), {}) == ["pi"]
    save(got.with_layout("wide", got.wide.but(sidebar_hidden=False)), path)
    assert load(path).pi_command == "npx @earendil-works/pi-coding-agent"  # (kept when the layout is saved)
    path.write_text('{"pi_command": 7}')
    assert load(path).pi_command is None


def test_costs_in_the_sidebar_are_kept_only_once_chosen_and_only_as_true(tmp_path):
    f = tmp_path / "settings.json"
    settings.save(Settings(sidebar_costs=True), f)
    assert settings.load(f).sidebar_costs is True
    assert '"sidebar_costs": true' in f.read_text()
    settings.save(Settings(), f)
    assert "sidebar_costs" not in f.read_text()
    for wrong in ('"yes"', "1", "null", "[true]"):
        f.write_text('{"sidebar_costs": %s}' % wrong)
        assert settings.load(f).sidebar_costs is False


def test_the_notifications_chosen_on_the_board_are_kept_and_bad_values_are_off(tmp_path):
    f = tmp_path / "settings.json"
    settings.save(Settings(notify_bell=True, notify_desktop="osc777"), f)
    assert settings.load(f) == Settings(notify_bell=True, notify_desktop="osc777")
    import json

    assert {k: v for k, v in json.loads(f.read_text()).items() if k.startswith("notify")} == {
        "notify_bell": True, "notify_desktop": "osc777"}
    f.write_text('{"notify_bell": "yes", "notify_desktop": "\\u001b]9;x"}')
    assert settings.load(f) == Settings()
