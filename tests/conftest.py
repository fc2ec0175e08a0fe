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
