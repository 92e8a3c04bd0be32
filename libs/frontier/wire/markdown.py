"""Proto comments as Markdown text, for the generated API reference.

A comment is plain text written for people; Markdown would read some of it as markup (``*``
as emphasis, ``<name>`` as an HTML tag, a line starting with ``#`` as a heading).  These
helpers keep every character literal, code spans in backticks aside, and keep the comment's
paragraphs and lists: as lines in a block, or joined with ``<br>`` in a table cell.
"""

from __future__ import annotations

import re
import textwrap

_CODE_SPAN = re.compile(r"(`+)(.+?)\1")
_LIST_ITEM = re.compile(r"\s*(?:[*+-]|\d+[.)])\s")
# Characters that Markdown would read as markup in running text (emphasis, HTML, a link):
# backslash escapes keep them literal.  An underscore inside a word is never markup.
_MARKUP = re.compile(r"[\\*<\[]|(?<![0-9A-Za-z])_|_(?![0-9A-Za-z])")


def anchor(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")


def escape_inline(text: str) -> str:
    """``text`` with its Markdown markup escaped, code spans (in backticks) kept as written."""
    out, last = [], 0
    for span in _CODE_SPAN.finditer(text):
        out.append(_MARKUP.sub(lambda m: "\\" + m.group(0), text[last : span.start()]))
        out.append(span.group(0))
        last = span.end()
    out.append(_MARKUP.sub(lambda m: "\\" + m.group(0), text[last:]))
    return "".join(out)


def _escape_line(line: str) -> str:
    """One comment line as Markdown text: a list item stays one; nothing else may start a
    heading, a quote, a rule or an HTML block."""
    item = _LIST_ITEM.match(line)
    head = item.group(0) if item else ""
    rest = escape_inline(line[len(head) :])
    if not head and re.match(r"\s*[#>=+-]", rest):
        stripped = rest.lstrip()
        rest = rest[: len(rest) - len(stripped)] + "\\" + stripped
    return head + rest


def comment_lines(text: str) -> list[str]:
    """A protoc comment's lines without the space after ``//`` (the common indent), with
    no blank lines around them."""
    return textwrap.dedent(text.rstrip()).strip("\n").splitlines()


def block(text: str) -> str:
    """A comment as Markdown paragraphs (line breaks and lists kept)."""
    return "\n".join(_escape_line(line) if line.strip() else "" for line in comment_lines(text))


def cell(text: str) -> str:
    """A comment as the text of one table cell: a paragraph's lines joined with spaces,
    list items and paragraphs on lines of their own (``<br>``)."""
    parts: list[str] = []
    gap = False
    for line in comment_lines(text):
        if not line.strip():
            gap = True
            continue
        item = _LIST_ITEM.match(line)
        # a cell holds inline text only: no heading, quote or list can start in it
        piece = escape_inline(line.strip()).replace("|", "\\|")
        if not parts:
            parts.append(piece)
        elif gap:
            parts.append("<br><br>" + piece)
        elif item:
            parts.append("<br>" + piece)
        else:
            parts.append(" " + piece)
        gap = False
    return "".join(parts)
