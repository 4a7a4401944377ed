"""whoosh imported without the modules memctl never calls, and those still work when called."""

from __future__ import annotations

import subprocess
import sys

CHECK = """
import sys
import memctl.search.keyword
print("urllib.request" in sys.modules, "whoosh.lang.morph_en" in sys.modules)
from whoosh.query import terms
print("running" in terms.variations("run"), type(sys.modules["whoosh.lang.morph_en"].variations).__name__)
import urllib.request
print(hasattr(urllib.request, "Request"))
"""


def test_whoosh_loads_without_urllib_or_morph_en_and_both_work_on_first_call() -> None:
    out = subprocess.run([sys.executable, "-c", CHECK], capture_output=True, text=True, check=True)
    assert out.stdout.split("\n")[:3] == ["False False", "True function", "True"]
