"""Machinery of the real-browser test (tests/test_browser.py).

chromium.py finds or apt-installs the OS Chromium; lab.py runs a throwaway
JupyterLab; ui.py drives it like a user; fixture_view.ipynb is a message view
made of plain ipywidgets that checks the machinery against the DOM contract.
"""
