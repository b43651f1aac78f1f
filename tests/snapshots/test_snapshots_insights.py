"""The insights view as people see it: the demo's long session at 80×24 and 160×48, in both
themes (the summary and the timeline), and the tables that open events."""

from __future__ import annotations

import pytest

from tests.helpers.app_helpers import conversations_shown, make_app, settled, tree_ready, wait_for
from tui.app.screens import insights as insights_screen
from tui.app.screens.conversation import ConversationScreen
from tui.app.screens.insights import InsightsScreen
from tui.server import Store, load_demo

IDS = load_demo(Store())


@pytest.fixture(autouse=True)
def fresh_cache():
    insights_screen.CACHE.clear()
    yield
    insights_screen.CACHE.clear()


def shown(tab: str, name: str = "long"):
    async def run_before(pilot):
        app = pilot.app
        app.animation_level = "none"
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        app.open_conversation(IDS[name])
        await wait_for(lambda: isinstance(app.screen, ConversationScreen), pilot=pilot)
        await wait_for(lambda: tree_ready(app.screen), pilot=pilot)
        await pilot.press("i")
        await wait_for(
            lambda: isinstance(app.screen, InsightsScreen) and app.screen.insights is not None,
            pilot=pilot,
        )
        app.screen.query_one("#insights-tabs").active = tab
        await settled(pilot)

    return run_before


@pytest.mark.parametrize("theme", ["ohtui-dark", "ohtui-light"])
@pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=["80x24", "160x48"])
@pytest.mark.parametrize("tab", ["summary", "timeline"])
def test_insights_summary_and_timeline(snap_compare, demo_server, tab, size, theme):
    app = make_app(demo_server.base_url, theme=theme)
    assert snap_compare(app, run_before=shown(tab), terminal_size=size)


@pytest.mark.parametrize("tab", ["tools", "slowest", "steps", "failures"])
def test_insights_tables_at_80x24(snap_compare, demo_server, tab):
    app = make_app(demo_server.base_url)
    assert snap_compare(app, run_before=shown(tab), terminal_size=(80, 24))


def test_insights_models_of_a_live_run_with_response_times(snap_compare, demo_server):
    """The hello conversation at the default size: small, and every table in reach."""
    app = make_app(demo_server.base_url)
    assert snap_compare(app, run_before=shown("models", "hello"), terminal_size=(160, 48))
