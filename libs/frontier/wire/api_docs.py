"""The API reference, ``docs/api-reference.md``, generated from the comments of the contracts.

The protos under ``proto/frontier/v1`` are the contract and their comments its documentation:
every service, RPC, message, field, enum and value carries one.  This module turns them into
one linked Markdown page, so a bot author reads each fact where it is defined and no hand-kept
copy drifts from it.  ``protoc`` (grpc_tools, a dev dependency) parses the files into a
FileDescriptorSet with source info, whose locations hold the comments; the page renders the
``frontier.v1`` files only, and names (or links to the public docs of) the Google types they
import.  One page rather than one per file: a type is found by its name alone, wherever it is
declared, and the links between types stay within the page.  It is rendered here because no
kept protoc documentation plugin installs from the package registries (the common one,
protoc-gen-doc, ships as a Go binary), and the descriptors carry all it needs.

The output depends only on the protos, so ``make api-docs`` rewrites the committed page and
``tests/unit/wire/test_api_docs.py`` fails while it is stale.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from google.protobuf import descriptor_pb2 as pb

from frontier.wire.markdown import anchor, block, cell, comment_lines

PACKAGE_DIR = "frontier/v1/"
DEFAULT_OUT = Path("docs/api-reference.md")

# Numbers of the descriptor fields that make up SourceCodeInfo.Location paths.
_FILE_MESSAGE, _FILE_ENUM, _FILE_SERVICE, _FILE_PACKAGE, _FILE_SYNTAX = 4, 5, 6, 2, 12
_MESSAGE_FIELD, _MESSAGE_NESTED, _MESSAGE_ENUM = 2, 3, 4
_ENUM_VALUE = 2
_SERVICE_METHOD = 2

_FDP = pb.FieldDescriptorProto
_SCALARS = {
    _FDP.TYPE_DOUBLE: "double",
    _FDP.TYPE_FLOAT: "float",
    _FDP.TYPE_INT64: "int64",
    _FDP.TYPE_UINT64: "uint64",
    _FDP.TYPE_INT32: "int32",
    _FDP.TYPE_FIXED64: "fixed64",
    _FDP.TYPE_FIXED32: "fixed32",
    _FDP.TYPE_BOOL: "bool",
    _FDP.TYPE_STRING: "string",
    _FDP.TYPE_BYTES: "bytes",
    _FDP.TYPE_UINT32: "uint32",
    _FDP.TYPE_SFIXED32: "sfixed32",
    _FDP.TYPE_SFIXED64: "sfixed64",
    _FDP.TYPE_SINT32: "sint32",
    _FDP.TYPE_SINT64: "sint64",
}

_PROTOBUF_DOCS = "https://protobuf.dev/reference/protobuf/google.protobuf/"
_GOOGLEAPIS = "https://github.com/googleapis/googleapis/blob/master/"
_SCALAR_DOCS = "https://protobuf.dev/programming-guides/proto3/#scalar"


class ApiDocsError(Exception):
    """The protos do not compile, or two of their names would share one anchor."""


def descriptor_set(proto_root: Path) -> pb.FileDescriptorSet:
    """The ``frontier/v1`` files under ``proto_root`` and all they import, parsed by protoc
    with their comments (source info)."""
    files = sorted(
        p.relative_to(proto_root).as_posix() for p in proto_root.glob("frontier/v1/*.proto")
    )
    if not files:
        raise ApiDocsError(f"no {PACKAGE_DIR}*.proto under {proto_root}")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "descriptors.binpb"
        # `python -m grpc_tools.protoc` adds the bundled google/protobuf include itself.
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "grpc_tools.protoc",
                f"-I{proto_root}",
                f"--descriptor_set_out={out}",
                "--include_source_info",
                "--include_imports",
                *files,
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            raise ApiDocsError(f"protoc failed:\n{done.stderr.strip()}")
        return pb.FileDescriptorSet.FromString(out.read_bytes())


# --- the descriptors -------------------------------------------------------------------------


@dataclass(frozen=True)
class _Comments:
    """The comments of one file, by SourceCodeInfo path."""

    by_path: dict[tuple[int, ...], pb.SourceCodeInfo.Location]

    @classmethod
    def of(cls, file: pb.FileDescriptorProto) -> _Comments:
        return cls({tuple(loc.path): loc for loc in file.source_code_info.location})

    def text(self, path: tuple[int, ...]) -> str:
        """Everything written about the element at ``path``: the comments before it (those
        set apart by a blank line too), then the one after it."""
        loc = self.by_path.get(path)
        if loc is None:
            return ""
        parts = [*loc.leading_detached_comments, loc.leading_comments, loc.trailing_comments]
        return "\n\n".join("\n".join(comment_lines(p)) for p in parts if p.strip())

    def line(self, path: tuple[int, ...]) -> int:
        """The line the element at ``path`` starts on, for file order."""
        loc = self.by_path.get(path)
        return loc.span[0] if loc is not None and loc.span else 0


class _Types:
    """Every type the protos name, for links: ours by anchor, Google's by public docs."""

    def __init__(self, files: Sequence[pb.FileDescriptorProto], package: str) -> None:
        self.package = package
        self.ours: dict[str, str] = {}  # full name -> name within the package
        self.external: dict[str, str] = {}  # full name -> its file
        self.map_entries: dict[str, pb.DescriptorProto] = {}
        for file in files:
            names = []
            for full, message in _walk_messages(file.package, file.message_type):
                if message.options.map_entry:
                    self.map_entries[full] = message
                names.append(full)
            for full in [*names, *_enum_names(file)]:
                if file.name.startswith(PACKAGE_DIR):
                    self.ours[full] = full.removeprefix(package + ".")
                else:
                    self.external[full] = file.name

    def link(self, type_name: str) -> str:
        """Markdown for a reference to the type ``type_name`` (``.pkg.Name``)."""
        full = type_name.lstrip(".")
        if full in self.ours:
            name = self.ours[full]
            return f"[`{name}`](#{anchor(name)})"
        file = self.external.get(full, "")
        if file.startswith("google/protobuf/"):
            return f"[`{full}`]({_PROTOBUF_DOCS}#{full.rsplit('.', 1)[-1].lower()})"
        if file.startswith("google/"):
            return f"[`{full}`]({_GOOGLEAPIS}{file})"
        return f"`{full}`"


def _walk_messages(
    prefix: str, messages: Sequence[pb.DescriptorProto]
) -> Iterator[tuple[str, pb.DescriptorProto]]:
    for message in messages:
        full = f"{prefix}.{message.name}" if prefix else message.name
        yield full, message
        yield from _walk_messages(full, message.nested_type)


def _enum_names(file: pb.FileDescriptorProto) -> Iterator[str]:
    prefix = file.package
    yield from (f"{prefix}.{e.name}" if prefix else e.name for e in file.enum_type)
    for full, message in _walk_messages(prefix, file.message_type):
        yield from (f"{full}.{e.name}" for e in message.enum_type)


# --- the page --------------------------------------------------------------------------------

_INTRO = """\
Every service, message and enum of the `{package}` contracts, with each field's number,
type, label and comment, generated from the comments of
[`proto/frontier/v1/`](../proto/frontier/v1/) by `make api-docs`: edit the comments there,
never this page. How a bot uses them is in [bots.md](bots.md).

Reading the tables: a field without a label holds one value, and proto3 gives an unset field
its zero value (`0`, `""`, `false`, the enum's `*_UNSPECIFIED`, an empty message);
`optional` tells unset apart from zero; `repeated` is a list; `oneof NAME` fields share one
slot, so at most one of them is set. Scalar types are protobuf's own
([scalar value types]({scalars}))."""


class _Page:
    """The Markdown being written, with the anchors of its headings (which must not repeat:
    a link would reach only the first)."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.anchors: dict[str, str] = {}

    def heading(self, level: int, title: str) -> None:
        key = anchor(title)
        if key in self.anchors:
            raise ApiDocsError(f"headings {self.anchors[key]!r} and {title!r} share #{key}")
        self.anchors[key] = title
        self.add(f"{'#' * level} {title}")

    def add(self, *lines: str) -> None:
        self.lines.extend(lines)
        self.lines.append("")

    def table(self, header: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
        self.add(
            "\n".join(
                [
                    "| " + " | ".join(header) + " |",
                    "|" + "---|" * len(header),
                    *("| " + " | ".join(c or " " for c in row) + " |" for row in rows),
                ]
            )
        )

    def text(self) -> str:
        return "\n".join(self.lines).rstrip("\n") + "\n"


@dataclass(frozen=True)
class _Section:
    """One service, message or enum of a file, where it is declared."""

    line: int
    kind: str  # "service", "message" or "enum"
    name: str  # relative to the package
    path: tuple[int, ...]
    proto: pb.ServiceDescriptorProto | pb.DescriptorProto | pb.EnumDescriptorProto


def _message_sections(
    name: str, path: tuple[int, ...], message: pb.DescriptorProto, comments: _Comments
) -> Iterator[_Section]:
    """A message's section, then those of the enums and messages nested in it (map entries
    left out: a map field shows its key and value types)."""
    yield _Section(comments.line(path), "message", name, path, message)
    for i, enum in enumerate(message.enum_type):
        sub = (*path, _MESSAGE_ENUM, i)
        yield _Section(comments.line(sub), "enum", f"{name}.{enum.name}", sub, enum)
    for i, nested in enumerate(message.nested_type):
        if not nested.options.map_entry:
            sub = (*path, _MESSAGE_NESTED, i)
            yield from _message_sections(f"{name}.{nested.name}", sub, nested, comments)


def _sections(file: pb.FileDescriptorProto, comments: _Comments) -> list[_Section]:
    """The file's services, messages and enums in the order they are declared, each nested
    type right after the message that holds it."""
    groups: list[list[_Section]] = []
    for i, service in enumerate(file.service):
        path = (_FILE_SERVICE, i)
        groups.append([_Section(comments.line(path), "service", service.name, path, service)])
    for i, enum in enumerate(file.enum_type):
        path = (_FILE_ENUM, i)
        groups.append([_Section(comments.line(path), "enum", enum.name, path, enum)])
    for i, message in enumerate(file.message_type):
        path = (_FILE_MESSAGE, i)
        groups.append(list(_message_sections(message.name, path, message, comments)))
    return [s for group in sorted(groups, key=lambda g: g[0].line) for s in group]


def _field_type(field: pb.FieldDescriptorProto, types: _Types) -> tuple[str, str]:
    """(type, label) of a field as the tables show them."""
    if field.type_name.lstrip(".") in types.map_entries:
        entry = types.map_entries[field.type_name.lstrip(".")]
        key, value = (_field_type(f, types)[0] for f in entry.field)
        return f"map<{key}, {value}>", ""
    if field.type in (_FDP.TYPE_MESSAGE, _FDP.TYPE_ENUM):
        shown = types.link(field.type_name)
    else:
        shown = f"`{_SCALARS.get(field.type, 'unknown')}`"
    if field.label == _FDP.LABEL_REPEATED:
        return shown, "repeated"
    if field.proto3_optional:
        return shown, "optional"
    return shown, ""


def _reserved(ranges: Sequence[tuple[int, int]], names: Sequence[str]) -> str:
    """The numbers and names a message or enum keeps unused, as one sentence (or "")."""
    numbers = [str(a) if a == b else f"{a}-{b}" for a, b in ranges]
    parts = []
    if numbers:
        parts.append("numbers " + ", ".join(numbers))
    if names:
        parts.append("names " + ", ".join(f"`{n}`" for n in names))
    return f"Reserved (never to be used again): {'; '.join(parts)}." if parts else ""


def _deprecated(options: pb.FieldOptions | pb.EnumValueOptions | pb.MethodOptions) -> str:
    return "**Deprecated.** " if options.deprecated else ""


def _message(
    page: _Page, section: _Section, message: pb.DescriptorProto, types: _Types, cm: _Comments
) -> None:
    rows = []
    for i, field in enumerate(message.field):
        shown, label = _field_type(field, types)
        if field.HasField("oneof_index") and not field.proto3_optional:
            label = f"oneof `{message.oneof_decl[field.oneof_index].name}`"
        text = cell(cm.text((*section.path, _MESSAGE_FIELD, i)))
        rows.append(
            [f"`{field.name}`", str(field.number), shown, label, _deprecated(field.options) + text]
        )
    if rows:
        page.table(["Field", "Number", "Type", "Label", "Description"], rows)
    else:
        page.add("No fields.")
    reserved = _reserved(
        [(r.start, r.end - 1) for r in message.reserved_range], message.reserved_name
    )
    if reserved:
        page.add(reserved)


def _enum(page: _Page, section: _Section, enum: pb.EnumDescriptorProto, cm: _Comments) -> None:
    rows = []
    for i, value in enumerate(enum.value):
        text = cell(cm.text((*section.path, _ENUM_VALUE, i)))
        rows.append([f"`{value.name}`", str(value.number), _deprecated(value.options) + text])
    page.table(["Value", "Number", "Description"], rows)
    reserved = _reserved([(r.start, r.end) for r in enum.reserved_range], enum.reserved_name)
    if reserved:
        page.add(reserved)


def _service(
    page: _Page, section: _Section, service: pb.ServiceDescriptorProto, types: _Types, cm: _Comments
) -> None:
    rows = []
    for i, method in enumerate(service.method):
        request = ("stream " if method.client_streaming else "") + types.link(method.input_type)
        response = ("stream " if method.server_streaming else "") + types.link(method.output_type)
        text = cell(cm.text((*section.path, _SERVICE_METHOD, i)))
        rows.append([f"`{method.name}`", request, response, _deprecated(method.options) + text])
    page.table(["Method", "Request", "Response", "Description"], rows)


def _file(page: _Page, file: pb.FileDescriptorProto, types: _Types) -> None:
    """One file's section: its own comment, then its services, messages and enums."""
    cm = _Comments.of(file)
    page.heading(2, f"`{Path(file.name).name}`")
    intro = "\n\n".join(t for t in (cm.text((_FILE_SYNTAX,)), cm.text((_FILE_PACKAGE,))) if t)
    if intro:
        page.add(block(intro))
    for section in _sections(file, cm):
        page.heading(3, f"`{section.name}`")
        page.add(f"*{section.kind}* `{types.package}.{section.name}`")
        text = cm.text(section.path)
        if text:
            page.add(block(text))
        if isinstance(section.proto, pb.ServiceDescriptorProto):
            _service(page, section, section.proto, types, cm)
        elif isinstance(section.proto, pb.DescriptorProto):
            _message(page, section, section.proto, types, cm)
        else:
            _enum(page, section, section.proto, cm)


def _contents(page: _Page, files: Sequence[pb.FileDescriptorProto]) -> None:
    """The services first (where a client starts), then one line per file: a link to it,
    then to each of its services, messages and enums."""
    page.heading(2, "Contents")
    services = sorted(s.name for f in files for s in f.service)
    if services:
        page.add("Services: " + ", ".join(f"[`{n}`](#{anchor(n)})" for n in services) + ".")
    lines = []
    for file in files:
        name = Path(file.name).name
        links = [f"[`{s.name}`](#{anchor(s.name)})" for s in _sections(file, _Comments.of(file))]
        lines.append(f"- [`{name}`](#{anchor(name)}): " + ", ".join(links))
    page.add(*lines)


def render(descriptors: pb.FileDescriptorSet) -> str:
    """The reference page for the ``frontier/v1`` files of ``descriptors``, in file-name
    order, each file's definitions in the order they are declared."""
    ours = sorted(
        (f for f in descriptors.file if f.name.startswith(PACKAGE_DIR)), key=lambda f: f.name
    )
    if not ours:
        raise ApiDocsError(f"the descriptor set holds no {PACKAGE_DIR} file")
    package = ours[0].package
    types = _Types(descriptors.file, package)
    page = _Page()
    page.heading(1, "API reference")
    page.add(_INTRO.format(package=package, scalars=_SCALAR_DOCS))
    _contents(page, ours)
    for file in ours:
        _file(page, file, types)
    return page.text()


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m frontier.wire.api_docs [--proto-root DIR] [--out FILE]``: (re)write the
    reference page; says whether it changed."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--proto-root", type=Path, default=Path("proto"))
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    try:
        text = render(descriptor_set(args.proto_root))
    except ApiDocsError as exc:
        print(f"api-docs: {exc}", file=sys.stderr)
        return 1
    if args.out.exists() and args.out.read_text() == text:
        print(f"{args.out} is up to date")
        return 0
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
