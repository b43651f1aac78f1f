"""Themes load from the installed package and from the user's config directory."""

from __future__ import annotations

import json
from importlib.resources import files

from tests.helpers.app_helpers import SIZE, conversations_shown, make_app, wait_for
from tui.app.themes import load_themes


def test_the_bundled_themes_are_package_data(tmp_path):
    names = sorted(entry.name for entry in files("tui._themes").iterdir())
    assert "ohtui-dark.json" in names and "ohtui-light.json" in names
    themes, problems = load_themes(tmp_path)
    assert {theme.name for theme in themes} == {"ohtui-dark", "ohtui-light"} and problems == []


def test_user_themes_add_to_and_replace_the_bundled_ones(tmp_path):
    (tmp_path / "mine.json").write_text(json.dumps({"name": "mine", "primary": "#336699"}))
    (tmp_path / "dark.json").write_text(
        json.dumps({"name": "ohtui-dark", "primary": "#123456", "dark": True})
    )
    themes, problems = load_themes(tmp_path)
    by_name = {theme.name: theme for theme in themes}
    assert problems == []
    assert by_name["mine"].primary == "#336699"
    assert by_name["ohtui-dark"].primary == "#123456"  # the user's copy wins
    assert "ohtui-light" in by_name


def test_a_broken_user_theme_is_reported_not_fatal(tmp_path):
    (tmp_path / "a.json").write_text("{ not json")
    (tmp_path / "b.json").write_text(json.dumps({"name": "b", "primary": "not a colour"}))
    (tmp_path / "c.json").write_text(json.dumps(["no", "name"]))
    themes, problems = load_themes(tmp_path)
    assert [p.split(":")[0].rsplit("/", 1)[-1] for p in problems] == ["a.json", "b.json", "c.json"]
    assert {"ohtui-dark", "ohtui-light"} <= {theme.name for theme in themes}


async def test_the_app_starts_and_says_which_theme_it_could_not_load(
    demo_server, tmp_path, monkeypatch
):
    (tmp_path / "themes").mkdir()
    (tmp_path / "themes" / "bad.json").write_text("{")
    monkeypatch.setattr("tui.paths.config_dir", lambda: tmp_path)
    notes: list[str] = []
    app = make_app(demo_server.base_url)
    app.notify = lambda message, **kw: notes.append(str(message))  # type: ignore[method-assign]
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        assert any("Theme not loaded" in note and "bad.json" in note for note in notes)
        assert app.theme == "ohtui-dark"
