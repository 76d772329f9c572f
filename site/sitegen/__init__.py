"""gpuplan's documentation-site generator (`make site`, through site/gen_site.py).

Layout (imports only go downwards in this list, so there is no import circle):
  format.py  numbers and markdown pieces, language-neutral (SI units at the edge, as the CLI prints)
  cli.py     runs the gpuplan CLI (refusing a binary whose embedded catalog differs from data/)
  facts.py   data/ read directly, the catalog as the CLI reports it, prices and their ages
  render.py  renders a page fragment from its English and Chinese templates (pages/templates/)
  pages/     one module per site page: it computes the numbers, the templates hold the prose
  main.py    the command line: generate the fragments, stage the pages, run mkdocs --strict
"""

import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LANGS = ("en", "zh")


class BuildError(Exception):
    """Something the site cannot be built without; main() prints it and exits 1."""
