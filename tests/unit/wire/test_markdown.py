"""Proto comments as Markdown: literal text, with their paragraphs and lists kept."""

from __future__ import annotations

import pytest

from frontier.wire.markdown import anchor, block, cell, escape_inline


@pytest.mark.parametrize(
    ("text", "escaped"),
    [
        ("a <tag> here", "a \\<tag> here"),
        ("*stars* and [brackets](x)", "\\*stars\\* and \\[brackets](x)"),
        ("snake_case stays, _edges_ do not", "snake_case stays, \\_edges\\_ do not"),
        ("a back\\slash", "a back\\\\slash"),
        ("code `*_UNSPECIFIED <x>` kept", "code `*_UNSPECIFIED <x>` kept"),
    ],
)
def test_markup_is_escaped_outside_code_spans(text: str, escaped: str) -> None:
    assert escape_inline(text) == escaped


def test_a_block_keeps_lines_and_lists_but_starts_no_heading_quote_or_rule() -> None:
    comment = " First line.\n # not a heading\n > nor a quote\n ---\n\n  1. item\n     more\n * it"
    assert block(comment) == (
        "First line.\n\\# not a heading\n\\> nor a quote\n\\---\n\n 1. item\n    more\n* it"
    )


def test_a_cell_is_one_line_with_breaks_for_paragraphs_and_list_items() -> None:
    comment = " One paragraph\n wrapped | piped.\n\n Another.\n - a list item\n 2. numbered"
    assert cell(comment) == (
        "One paragraph wrapped \\| piped.<br><br>Another.<br>- a list item<br>2. numbered"
    )


def test_anchors_are_githubs() -> None:
    assert anchor("`GreetRequest.Inner`") == "greetrequestinner"
    assert anchor("`game_data.proto`") == "game_dataproto"
    assert anchor("API reference") == "api-reference"
