"""Page fragments: numbers computed by pages/*.py, laid out by the English and Chinese templates
in pages/templates/{en,zh}/ (Jinja2, which mkdocs itself depends on).

Every fragment is wrapped in `<div class="gp-generated" markdown>`, so tests can compare the
numbers a page generates with those of its twin in the other language."""

import glob
import os
import re

import jinja2

from . import LANGS, format as fmt

TEMPLATES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "pages", "templates")
MARK_OPEN = '<div class="gp-generated" markdown>\n\n'
MARK_CLOSE = "\n\n</div>\n"


def environment(trim=True):
    """trim: drop the newline after a block tag (fragments laid out line by line, such as tables);
    prose modules keep it, so that a sentence after an `{% endif %}` stays a separate word."""
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), undefined=jinja2.StrictUndefined,
                             keep_trailing_newline=True, trim_blocks=trim, lstrip_blocks=trim,
                             autoescape=False)
    for name in ("sig", "gb", "tflops", "duration", "usd", "cny", "pct", "times", "cell", "tbody", "table",
                 "link", "code_block"):
        env.globals[name] = getattr(fmt, name)
    return env


class Fragments:
    """Writes fragments into `folder`, where pymdownx.snippets finds them (`--8<-- "name.en.md"`)."""

    def __init__(self, folder):
        self.folder = folder
        self.env = environment()
        self.prose_env = environment(trim=False)
        self.texts = {}
        os.makedirs(folder, exist_ok=True)
        for old in glob.glob(os.path.join(folder, "*.md")):
            os.remove(old)

    def write(self, name, text):
        """A fragment shared by both languages (command output, JSON) or already per language."""
        self.texts[name] = text
        with open(os.path.join(self.folder, name), "w", encoding="utf-8") as f:
            f.write(MARK_OPEN + text.strip("\n") + MARK_CLOSE)

    def render(self, name, template=None, **ctx):
        """pages/templates/<lang>/<template or name>.md with ctx, written as <name>.<lang>.md for
        each language."""
        for lang in LANGS:
            text = self.env.get_template(f"{lang}/{template or name}.md").render(ctx)
            self.write(f"{name}.{lang}.md", text)

    def module(self, lang, name, **ctx):
        """A template's top-level `{% set %}` values (title, quote, reason, ...), rendered with ctx."""
        return self.prose_env.get_template(f"{lang}/{name}.md").make_module(ctx)


# Between two CJK characters or punctuation marks a line break is no space.
_CJK = "\u3000-\u303f\u4e00-\u9fff\uff00-\uffef"
_CJK_GAP = re.compile(f"(?<=[{_CJK}]) (?=[{_CJK}])")


def one_paragraph(text):
    """Template prose as one line: whitespace runs become one space, none between CJK text."""
    return _CJK_GAP.sub("", " ".join(text.split()))
