"""Shared fixtures: an offline client per test, a workspace in tmp_path."""

from __future__ import annotations

import pytest

from lessonkit.offline import OfflineModel, offline_client


@pytest.fixture
def model():
    return OfflineModel()


@pytest.fixture
def client(model):
    return offline_client(model, max_retries=0)


@pytest.fixture
def workspace(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    return ws


# Property tests transform long histories: no per-example deadline; enough examples to matter.
from hypothesis import HealthCheck, settings  # noqa: E402

settings.register_profile("kit", deadline=None, max_examples=200,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.load_profile("kit")

# Fixture notebooks for the browser test are data, not lessons: nbval must not collect them.
collect_ignore_glob = ["browser/*.ipynb"]
