"""The fixture notebook here is opened by tests/test_browser.py, never collected by nbval."""

collect_ignore_glob = ["*.ipynb"]
