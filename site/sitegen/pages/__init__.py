"""One module per site page (or group of pages): each has build(site), which computes the page's
numbers with the CLI and the catalog and renders its fragments from templates/{en,zh}/.
Order matters where a page uses another's result (guide uses method's validation rows)."""

from . import benchmarks, data, guide, home, method, probe

# (name, builder): a page's fragments, or one section of a page; `gen_site --page NAME` builds
# only the named ones.
PAGES = (
    ("home", home.build),
    ("method", method.build),
    ("data", data.build),
    ("probe", probe.build),
    ("benchmarks", benchmarks.build),
    ("benchmarks-published", benchmarks.published),
    ("benchmarks-bands", benchmarks.bands),
    ("guide", guide.build),
)
