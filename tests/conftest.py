"""Shared fixtures: an offline client per test, a workspace in tmp_path."""

from __future__ import annotations

import pytest

from offline import OfflineModel, offline_client


@pytest.fixture
def model():
    return OfflineModel()


@pytest.fixture
def client(model):
    return offline_client(model, max_retries=0)


@pytest.fixture
def ctrl_c():
    """Ctrl-C raises KeyboardInterrupt here and in the children started meanwhile, as in a terminal.

    A shell without job control starts background commands (`pytest ... &` in a script or a CI step)
    with SIGINT ignored, and every child inherits that: an interrupt test would then see nothing.
    """
    import signal

    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, before)


@pytest.fixture
def workspace(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    return ws


# Property tests transform long histories: no per-example deadline. `make test` draws 25 examples
# per property ("kit"); `make test-slow` runs every property again with 200 ("thorough").
from hypothesis import HealthCheck, settings  # noqa: E402

_QUIET = [HealthCheck.too_slow, HealthCheck.data_too_large]
settings.register_profile("kit", deadline=None, max_examples=25, suppress_health_check=_QUIET)
settings.register_profile("thorough", deadline=None, max_examples=200, suppress_health_check=_QUIET)


def pytest_configure(config):
    """The "kit" profile unless --hypothesis-profile names another."""
    if not config.getoption("hypothesis_profile", None):
        settings.load_profile("kit")

# Fixture notebooks for the browser test are data, not lessons: nbval must not collect them.
collect_ignore_glob = ["browser/*.ipynb"]


SLOW_BY_THEMSELVES = ("browser", "backends", "hub")


def pytest_collection_modifyitems(items):
    """The browser, backends and hub suites and the Chinese lessons are slow: `make test` leaves them to
    make test-slow (which also runs every test marked slow: each over half a second on 2 cores)."""
    for item in items:
        if any(item.get_closest_marker(name) for name in SLOW_BY_THEMSELVES) or item.nodeid.startswith("lessons/zh/"):
            item.add_marker(pytest.mark.slow)


def pytest_xdist_make_scheduler(config, log):
    """A notebook's cells share one kernel: one worker runs them all, in order. Tests go out one test
    function at a time (its parameters together), so both cores stay busy to the end of the run;
    whole files (`--dist loadfile`) left one core idle behind the last long file."""
    from xdist.scheduler import LoadScopeScheduling

    class NotebooksWhole(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            path, _, rest = nodeid.partition("::")
            return path if path.endswith(".ipynb") else f"{path}::{rest.split('[', 1)[0]}"

    return NotebooksWhole(config, log)


_DESELECTED: set[str] = set()


def pytest_deselected(items):
    """Files left out on purpose (-m, -k) were still collected: remember them for the check below."""
    _DESELECTED.update(item.nodeid.split("::", 1)[0] for item in items)


def pytest_collection_finish(session):
    """A whole-suite run must collect every lesson notebook and every test file, or fail.

    pytest already exits 5 when it collects nothing; this also catches a partial
    collection (nbval not active, a notebook or test module silently skipped).
    """
    config = session.config
    if config.args_source != config.ArgsSource.TESTPATHS:  # a chosen file or folder: no check
        return
    root = config.rootpath
    expected = {p.relative_to(root).as_posix() for p in (root / "lessons").glob("*.ipynb")}
    expected |= {p.relative_to(root).as_posix() for p in (root / "lessons").glob("*/*.ipynb")}
    expected |= {p.relative_to(root).as_posix() for p in (root / "tests").glob("test_*.py")}
    collected = {item.nodeid.split("::", 1)[0] for item in session.items} | _DESELECTED
    missing = sorted(expected - collected)
    if missing:
        raise pytest.UsageError(f"not collected: {', '.join(missing)} (is nbval installed and active?)")
