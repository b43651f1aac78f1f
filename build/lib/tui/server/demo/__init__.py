"""Demo content: the dataset ``ohtui`` opens on, the simulated agent, generated logs.

Why deterministic: screenshots, snapshot tests and bug reports must see the same data on
every run, so the dataset comes from one seeded ``random.Random`` and a fixed base time
(never the wall clock). What ``ohtui`` shows is the exception (``live_demo.py``): the same
dataset moved to the time the demo starts, and live runs on the wall clock.

- ``dataset.py``: :func:`build_demo` / :func:`load_demo` (the stories in ``stories.py``,
  ``stopped_stories.py``, ``long_story.py``);
- ``events_builder.py``, ``conversation_builder.py``, ``ids.py``: events shaped like a real
  agent server's;
- ``agent_scripts.py``, ``script_steps.py``, ``live_builder.py``: what the simulated agent of
  a live run plays (``tui.server.live`` runs it); ``session_script.py``, the long session
  the demo loops;
- ``generated.py``: logs of any length for tests and benchmarks.
"""

from .dataset import BASE_TIME, DEMO_SEED, PROFILES, SPECS, DemoDataset, build_demo, load_demo
from .generated import add_state_update_stretch, generate_conversation, generate_events
from .live_demo import DEMO_PACE, LIVE_TITLE, add_live_demo, load_live_demo

__all__ = [
    "BASE_TIME",
    "DEMO_PACE",
    "DEMO_SEED",
    "LIVE_TITLE",
    "PROFILES",
    "SPECS",
    "DemoDataset",
    "add_live_demo",
    "add_state_update_stretch",
    "build_demo",
    "generate_conversation",
    "generate_events",
    "load_demo",
    "load_live_demo",
]
