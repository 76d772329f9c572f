"""The command line of the site generator (site/gen_site.py calls main()).

  1. runs the CLI (and gpuplan-probe, when it was built) and reads data/ (facts.Catalog),
  2. writes markdown fragments into WORK/snippets, one per language where they hold prose; the
     hand-written pages in site/docs (English) and site/docs/zh (Chinese) include them with
     pymdownx.snippets (`--8<-- "name.en.md"`),
  3. stages site/docs plus the built calculator (build/wasm/site -> calculator/) in WORK/docs,
  4. runs `mkdocs build --strict` into OUT.

Nothing it writes goes into git: WORK defaults to site/build/ and OUT to build/site/.
"""

import argparse
import datetime as dt
import os
import shutil
import subprocess
import sys
import traceback

from . import ROOT, BuildError
from .cli import Cli
from .facts import Catalog
from .pages import PAGES
from .render import Fragments


class Site:
    """What every page module shares: the arguments, the CLI, the catalog, the fragment writer,
    and results one page computes for another (the validation rows, the guide's 100B config)."""

    def __init__(self, args):
        self.args = args
        self.cli = Cli(args.cli)
        self.cat = Catalog(self.cli, args.data)
        self.build_date = args.date
        self.snippets = os.path.join(args.work, "snippets")
        self.out = Fragments(self.snippets)
        self.revision = git_revision()
        self.validation = None

    def generate(self):
        unknown = set(self.args.page) - {name for name, _ in PAGES}
        if unknown:
            raise BuildError(f"--page: no page named {', '.join(sorted(unknown))}")
        for name, build in PAGES:
            if not self.args.page or name in self.args.page:
                build(self)


def git_revision():
    rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT)
    if rev.returncode != 0:
        return "unknown"
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], capture_output=True,
                           text=True, cwd=ROOT)
    return rev.stdout.strip() + (" with uncommitted changes" if dirty.stdout.strip() else "")


def stage(site, args):
    """site/docs and the calculator into WORK/docs; a calculator folder without index.html stops."""
    docs = os.path.join(args.work, "docs")
    if os.path.exists(docs):
        shutil.rmtree(docs)
    shutil.copytree(os.path.join(ROOT, "site", "docs"), docs)
    if not os.path.exists(os.path.join(args.web, "index.html")):
        raise BuildError(f"the calculator is not built: {args.web}/index.html is missing (run make wasm)")
    calc = os.path.join(docs, "calculator")
    os.makedirs(calc)
    for name in os.listdir(args.web):
        if os.path.isfile(os.path.join(args.web, name)):
            shutil.copy2(os.path.join(args.web, name), calc)
    return docs


def run_mkdocs(site, args, docs):
    env = dict(os.environ, GPUPLAN_SITE_DOCS=os.path.abspath(docs), GPUPLAN_SITE_OUT=os.path.abspath(args.out),
               GPUPLAN_SITE_SNIPPETS=os.path.abspath(site.snippets),
               PYTHONWARNINGS="ignore::DeprecationWarning")
    cmd = [args.mkdocs, "build", "--strict", "--quiet", "-f", os.path.join(ROOT, "site", "mkdocs.yml")]
    p = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if p.returncode != 0:
        raise BuildError("mkdocs build --strict failed:\n" + p.stdout + p.stderr)
    if not os.environ.get("GPUPLAN_SITE_URL"):
        # Without a site URL mkdocs writes a sitemap of "None" entries: leave it out.
        for name in ("sitemap.xml", "sitemap.xml.gz"):
            if os.path.exists(os.path.join(args.out, name)):
                os.remove(os.path.join(args.out, name))


def parse_args(argv):
    ap = argparse.ArgumentParser(description="Builds gpuplan's documentation site (make site).")
    ap.add_argument("--cli", default=os.path.join(ROOT, "build", "native", "tools", "cli", "gpuplan"))
    ap.add_argument("--web", default=os.path.join(ROOT, "build", "wasm", "site"), help="the built calculator")
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "site"))
    ap.add_argument("--work", default=os.path.join(ROOT, "site", "build"), help="staging folder (not in git)")
    ap.add_argument("--data", default=os.path.join(ROOT, "data"))
    ap.add_argument("--benchmarks", default=None, help="probe files to list (default: DATA/benchmarks)")
    ap.add_argument("--probe", default=None, help="gpuplan-probe binary (default: found under build/native)")
    ap.add_argument("--mkdocs", default=shutil.which("mkdocs") or "mkdocs")
    ap.add_argument("--date", default=None, help="build date YYYY-MM-DD (default: SOURCE_DATE_EPOCH or today, UTC)")
    ap.add_argument("--fragments-only", action="store_true", help="write the generated fragments, skip mkdocs")
    ap.add_argument("--page", action="append", default=[],
                    help="with --fragments-only: only this page module's fragments (repeatable; e.g. benchmarks)")
    args = ap.parse_args(argv)
    if args.page and not args.fragments_only:
        ap.error("--page needs --fragments-only (a site is built from every page)")
    if args.date:
        args.date = dt.date.fromisoformat(args.date)
    elif os.environ.get("SOURCE_DATE_EPOCH"):
        args.date = dt.datetime.fromtimestamp(int(os.environ["SOURCE_DATE_EPOCH"]), dt.timezone.utc).date()
    else:
        args.date = dt.datetime.now(dt.timezone.utc).date()
    return args


def main(argv=None):
    args = parse_args(argv)
    try:
        site = Site(args)
        site.generate()
        if not args.fragments_only:
            run_mkdocs(site, args, stage(site, args))
    except BuildError as e:
        print(f"gen_site: {e}", file=sys.stderr)
        return 1
    except (KeyError, TypeError, ValueError) as e:
        traceback.print_exc()
        print(f"gen_site: unexpected data ({type(e).__name__}: {e}); has the CLI's JSON output or a data/ "
              f"format changed? Update the page module in site/sitegen/pages/ to match.", file=sys.stderr)
        return 1
    if not args.fragments_only:
        print(f"gen_site: site built in {args.out} (serve it: python3 -m http.server -d {args.out} 8000)")
    return 0
