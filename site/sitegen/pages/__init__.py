"""One module per site page (or group of pages): each has build(site), which computes the page's
numbers with the CLI and the catalog and renders its fragments from templates/{en,zh}/.
Order matters where a page uses another's result (guide uses method's validation rows)."""

from . import benchmarks, data, guide, home, method, probe

PAGES = (home, method, data, probe, benchmarks, guide)
