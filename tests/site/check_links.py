#!/usr/bin/env python3
"""Checks every internal link and anchor of the built documentation site.

mkdocs --strict checks markdown links between pages; this checks what the browser will see, in
every generated HTML file: each href/src that stays inside the site must name a file that exists,
each #fragment must name an id (or name) in the target page, and no link may start with "/" (it
would break when the site is served from a sub-path such as https://USER.github.io/REPO/).
Fragments on the calculator page are its URL state (#model=...&batch=...), not anchors.

The one exception is 404.html: a server shows it for any missing path, at any depth, so mkdocs
writes its links absolute, starting with site_url's path ("/" when site_url is unset). Its links
must start with --base (default: the path of $GPUPLAN_SITE_URL, else "/") and are checked from the
site's root.

usage: check_links.py [--base /REPO/] SITE_DIR      exit 0: all good; 1: problems listed on stderr
"""

import os
import sys
from html.parser import HTMLParser
from urllib.parse import unquote, urlsplit

LINK_ATTRS = {"a": "href", "link": "href", "script": "src", "img": "src", "iframe": "src", "source": "src"}
EXTERNAL_SCHEMES = ("http", "https", "mailto", "data", "javascript", "tel")
STATE_PAGES = ("calculator/index.html",)  # whose fragment is application state


class Page(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.ids = set()
        self.links = []  # (tag, url, line)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for key in ("id", "name"):
            if a.get(key):
                self.ids.add(a[key])
        attr = LINK_ATTRS.get(tag)
        if attr and a.get(attr) is not None:
            self.links.append((tag, a[attr], self.getpos()[0]))


def parse(path):
    p = Page()
    with open(path, encoding="utf-8", errors="replace") as f:
        p.feed(f.read())
    return p


def resolve(site, page_rel, url):
    """The site-relative file a relative URL points to, or None when it leaves the site."""
    base = os.path.dirname(page_rel)
    target = os.path.normpath(os.path.join(base, unquote(url))) if url else page_rel
    if target.startswith(".."):
        return None
    full = os.path.join(site, target)
    if url.endswith("/") or os.path.isdir(full):
        target = os.path.join(target, "index.html")
    return os.path.normpath(target)


def check(site, base="/"):
    pages, problems, checked = {}, [], 0
    for root, _, files in os.walk(site):
        for name in files:
            if name.endswith(".html"):
                rel = os.path.relpath(os.path.join(root, name), site)
                pages[rel] = parse(os.path.join(site, rel))
    if "index.html" not in pages:
        return [f"{site}/index.html is missing"], 0
    for rel, page in sorted(pages.items()):
        for tag, url, line in page.links:
            parts = urlsplit(url)
            if parts.scheme in EXTERNAL_SCHEMES or parts.netloc:
                continue
            checked += 1
            where = f"{rel}:{line} <{tag}> {url!r}"
            if parts.scheme:
                problems.append(f"{where}: unexpected URL scheme")
                continue
            path = parts.path
            if not path:
                target = rel
            elif rel == "404.html":
                if not path.startswith(base):
                    problems.append(f"{where}: 404.html links must start with the base path {base!r}")
                    continue
                path = path[len(base):] or "./"
                target = resolve(site, "index.html", path)
            elif path.startswith("/"):
                problems.append(f"{where}: root-relative link breaks under a sub-path")
                continue
            else:
                target = resolve(site, rel, path)
            if target is None:
                problems.append(f"{where}: points outside the site")
                continue
            if not os.path.isfile(os.path.join(site, target)):
                problems.append(f"{where}: {target} does not exist")
                continue
            frag = unquote(parts.fragment)
            if frag and target.endswith(".html") and not target.endswith(STATE_PAGES):
                ids = pages[target].ids if target in pages else parse(os.path.join(site, target)).ids
                if frag not in ids:
                    problems.append(f"{where}: no id '{frag}' in {target}")
    return problems, checked


def main(argv):
    args = argv[1:]
    base = urlsplit(os.environ.get("GPUPLAN_SITE_URL", "")).path or "/"
    base = base if base.endswith("/") else base + "/"
    if len(args) == 3 and args[0] == "--base":
        base = args[1] if args[1].endswith("/") else args[1] + "/"
        args = args[2:]
    if len(args) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    problems, checked = check(args[0], base)
    for p in problems:
        print("broken: " + p, file=sys.stderr)
    print(f"check_links: {checked} internal links checked, {len(problems)} broken")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
