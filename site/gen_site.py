#!/usr/bin/env python3
"""Builds gpuplan's documentation site (`make site`); the generator is the package site/sitegen/.

usage: gen_site.py [--cli GPUPLAN] [--web DIR] [--out DIR] [--work DIR] [--date YYYY-MM-DD]
                   [--probe GPUPLAN_PROBE] [--data DIR] [--benchmarks DIR] [--mkdocs MKDOCS]
                   [--fragments-only]
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from sitegen.main import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
