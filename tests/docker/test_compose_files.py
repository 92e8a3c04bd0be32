"""The compose files and image recipes agree with the pins (no Docker needed)."""

from __future__ import annotations

import re

from .support import FRONTIER_VERSION, HOSTNET_PORTS, NATS_VERSION, ROOT


def _services(text: str) -> dict[str, str]:
    """Service name -> its block, for the compose files' own simple layout."""
    body = text.split("\nservices:\n", 1)[1].split("\nvolumes:\n", 1)[0]
    names = re.findall(r"^  ([a-z0-9-]+):$", body, re.MULTILINE)
    blocks = re.split(r"^  [a-z0-9-]+:$", body, flags=re.MULTILINE)[1:]
    return dict(zip(names, blocks, strict=True))


def test_the_compose_file_uses_the_pinned_image_tags() -> None:
    text = (ROOT / "docker-compose.yml").read_text()
    assert f"image: frontier:${{FRONTIER_TAG:-{FRONTIER_VERSION}}}" in text
    assert f"image: frontier-nats:${{NATS_TAG:-{NATS_VERSION}}}" in text


def test_the_base_image_tag_is_the_same_everywhere() -> None:
    makefile = (ROOT / "Makefile").read_text()
    found = re.search(r"^BASE_IMAGE\s+\?= (frontier-base:bookworm-\d{8})$", makefile, re.M)
    assert found is not None
    tag = found.group(1)
    for dockerfile in ("deploy/Dockerfile", "deploy/nats/Dockerfile"):
        assert f"ARG BASE_IMAGE={tag}\n" in (ROOT / dockerfile).read_text(), dockerfile
    assert f"`{tag}`" in (ROOT / "README.md").read_text()


def test_the_host_network_override_covers_every_service_with_its_own_port() -> None:
    base = _services((ROOT / "docker-compose.yml").read_text())
    override = _services((ROOT / "deploy/docker-compose.hostnet.yml").read_text() + "\n")
    assert set(base) == set(override)
    assert len(base) == 11
    for name, block in override.items():
        assert "network_mode: host" in block, name
    ports = [int(p) for p in re.findall(r'FRONTIER_PORT: "(\d+)"', "".join(override.values()))]
    nats = re.findall(r'NATS(?:_HTTP)?_PORT: "(\d+)"', override["nats"])
    ports += [int(p) for p in nats]
    assert len(ports) == len(set(ports)) == 10  # eight services, NATS client and monitoring
    assert sorted(ports) == sorted(HOSTNET_PORTS.values())
