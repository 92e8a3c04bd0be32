"""The generated API reference: current with the protos, complete, linked and literal.

The committed ``docs/api-reference.md`` must be what ``make api-docs`` writes now, so a proto
edit without the regenerated page fails here.  The rest checks the generator on a small
contract written for the purpose: every kind of field, label, link and comment it must
render, and the Markdown it must not produce by accident (a heading, HTML, emphasis).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from frontier.wire import api_docs
from tests.unit.test_repository_hygiene import heading_anchors

ROOT = Path(__file__).resolve().parents[3]

SAMPLE = """\
// The sample contract: what the file is for.
syntax = "proto3";

package frontier.v1;

import "google/protobuf/timestamp.proto";
import "google/rpc/detail.proto";

// Says hello.
service Greeter {
  // One greeting, then a stream of them.
  rpc Greet(GreetRequest) returns (stream GreetResponse);
}

// A colour, with <angle> brackets, a | pipe and *stars*.
enum Color {
  // Not set.
  COLOR_UNSPECIFIED = 0;
  COLOR_RED = 1; // Red, from a trailing comment.
  reserved 5 to 7;
}

// Asks for a greeting.
message GreetRequest {
  // Who is greeted: see `a|b` and ERROR_REASON_ (the prefix).
  // A second line of the same paragraph.
  //
  // A second paragraph.
  //  1. a list item
  //  2. another
  string name = 1;
  // Every colour.
  repeated Color colors = 2;
  // A colour per name.
  map<string, Color> by_name = 3;
  // Unset means no check.
  optional int64 version = 4;
  oneof choice {
    // A time.
    google.protobuf.Timestamp at = 5;
    // A detail of another package.
    google.rpc.Detail detail = 6;
  }
  // The nested message.
  Inner inner = 7;
  // # not a heading
  // --- nor a rule
  // > nor a quote
  message Inner {
    // Old.
    Color color = 1 [deprecated = true];
  }
  reserved 9, 11 to 12;
  reserved "old";
}

message GreetResponse {}
"""

DETAIL = """\
syntax = "proto3";

package google.rpc;

// Not ours: named, never documented here.
message Detail {
  string text = 1;
}
"""


def _contract(root: Path, sample: str = SAMPLE) -> Path:
    (root / "frontier" / "v1").mkdir(parents=True)
    (root / "google" / "rpc").mkdir(parents=True)
    (root / "frontier" / "v1" / "sample.proto").write_text(sample)
    (root / "google" / "rpc" / "detail.proto").write_text(DETAIL)
    return root


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> str:
    root = _contract(tmp_path_factory.mktemp("proto"))
    return api_docs.render(api_docs.descriptor_set(root))


def test_the_committed_reference_is_what_make_api_docs_writes(tmp_path: Path) -> None:
    out = tmp_path / "api-reference.md"
    assert api_docs.main(["--proto-root", str(ROOT / "proto"), "--out", str(out)]) == 0
    committed = ROOT / "docs" / "api-reference.md"
    assert committed.exists(), "docs/api-reference.md is missing: run make api-docs"
    assert committed.read_text() == out.read_text(), (
        "docs/api-reference.md is stale (the protos changed): run make api-docs"
    )


def test_the_real_contracts_render_every_file_service_message_and_enum() -> None:
    descriptors = api_docs.descriptor_set(ROOT / "proto")
    text = api_docs.render(descriptors)
    for file in descriptors.file:
        if not file.name.startswith("frontier/v1/"):
            assert f"## `{Path(file.name).name}`" not in text
            continue
        assert f"## `{Path(file.name).name}`" in text
        names = [s.name for s in file.service]
        names += [m.name for m in file.message_type] + [e.name for e in file.enum_type]
        for name in names:
            assert f"### `{name}`" in text
    assert "| `Play` | stream [`PlayRequest`](#playrequest) |" in text


def test_a_service_lists_its_rpcs_with_streaming_and_links(page: str) -> None:
    assert "### `Greeter`\n\n*service* `frontier.v1.Greeter`\n\nSays hello." in page
    assert (
        "| `Greet` | [`GreetRequest`](#greetrequest) | stream [`GreetResponse`](#greetresponse)"
        " | One greeting, then a stream of them. |"
    ) in page


def test_each_field_shows_number_type_label_and_comment(page: str) -> None:
    rows = {
        "colors": "| `colors` | 2 | [`Color`](#color) | repeated | Every colour. |",
        "by_name": "| `by_name` | 3 | map<`string`, [`Color`](#color)> |   | A colour per name. |",
        "version": "| `version` | 4 | `int64` | optional | Unset means no check. |",
        "inner": "| `inner` | 7 | [`GreetRequest.Inner`](#greetrequestinner) |   |",
    }
    for name, row in rows.items():
        assert row in page, name
    assert "| `color` | 1 | [`Color`](#color) |   | **Deprecated.** Old. |" in page


def test_google_types_link_to_their_public_docs_and_get_no_section(page: str) -> None:
    assert (
        "| `at` | 5 | [`google.protobuf.Timestamp`]"
        "(https://protobuf.dev/reference/protobuf/google.protobuf/#timestamp) | oneof `choice` |"
    ) in page
    assert (
        "[`google.rpc.Detail`](https://github.com/googleapis/googleapis/blob/master/"
        "google/rpc/detail.proto) | oneof `choice` |"
    ) in page
    assert "detail.proto`](#" not in page
    assert "### `Detail`" not in page
    assert "Not ours" not in page


def test_definitions_follow_the_file_order_with_nested_types_after_their_parent(
    page: str,
) -> None:
    headings = re.findall(r"^### `([\w.]+)`", page, flags=re.MULTILINE)
    assert headings == ["Greeter", "Color", "GreetRequest", "GreetRequest.Inner", "GreetResponse"]
    assert "- [`sample.proto`](#sampleproto): [`Greeter`](#greeter), [`Color`](#color)," in page
    assert "## Contents\n\nServices: [`Greeter`](#greeter).\n" in page


def test_enums_list_values_with_leading_and_trailing_comments_and_reserved_numbers(
    page: str,
) -> None:
    assert "| `COLOR_UNSPECIFIED` | 0 | Not set. |" in page
    assert "| `COLOR_RED` | 1 | Red, from a trailing comment. |" in page
    assert "Reserved (never to be used again): numbers 5-7." in page
    assert "Reserved (never to be used again): numbers 9, 11-12; names `old`." in page


def test_a_field_comment_becomes_one_cell_with_its_paragraphs_and_list_items(page: str) -> None:
    assert (
        "| `name` | 1 | `string` |   | Who is greeted: see `a\\|b` and ERROR_REASON\\_"
        " (the prefix). A second line of the same paragraph.<br><br>A second paragraph."
        "<br>1. a list item<br>2. another |"
    ) in page


def test_comments_stay_literal_text_in_markdown(page: str) -> None:
    md = MarkdownIt("commonmark").enable("table")
    html = md.render(page)
    assert "&lt;angle&gt; brackets, a | pipe and *stars*." in html
    assert "<p># not a heading\n--- nor a rule\n&gt; nor a quote</p>" in html
    emitted = [line for line in page.splitlines() if line.startswith("#")]
    assert len(emitted) == sum(1 for t in md.parse(page) if t.type == "heading_open")
    assert set(re.findall(r"<(\w+)", html)) <= {
        *("h1", "h2", "h3", "p", "em", "strong", "code", "a", "ul", "ol", "li", "br"),
        *("table", "thead", "tbody", "tr", "th", "td"),
    }
    assert html.count("<em>") == html.count("<h3>"), "only the kind line is emphasised"


def test_every_link_within_the_page_reaches_one_of_its_headings(page: str) -> None:
    targets = set(re.findall(r"\]\(#([^)]+)\)", page))
    assert targets
    assert targets <= heading_anchors(page)


def test_rendering_is_deterministic(tmp_path: Path) -> None:
    root = _contract(tmp_path)
    assert api_docs.render(api_docs.descriptor_set(root)) == api_docs.render(
        api_docs.descriptor_set(root)
    )


def test_two_names_with_one_anchor_are_refused(tmp_path: Path) -> None:
    clash = 'syntax = "proto3";\npackage frontier.v1;\nmessage A { message B {} }\nmessage AB {}\n'
    root = _contract(tmp_path, clash)
    with pytest.raises(api_docs.ApiDocsError, match="share #ab"):
        api_docs.render(api_docs.descriptor_set(root))


def test_a_proto_that_does_not_compile_is_a_clear_error_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _contract(tmp_path / "proto", 'syntax = "proto3";\npackage frontier.v1;\nmessage {')
    out = tmp_path / "api.md"
    assert api_docs.main(["--proto-root", str(root), "--out", str(out)]) == 1
    assert "protoc failed" in capsys.readouterr().err
    assert not out.exists()


def test_main_says_when_the_page_is_already_current(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _contract(tmp_path / "proto")
    out = tmp_path / "docs" / "api.md"
    assert api_docs.main(["--proto-root", str(root), "--out", str(out)]) == 0
    assert api_docs.main(["--proto-root", str(root), "--out", str(out)]) == 0
    assert capsys.readouterr().out.splitlines() == [f"wrote {out}", f"{out} is up to date"]
