"""The real documents of benchmarks/bench_import_realdocs.py: French manuals that Debian ships with their HTML
source (benchmarks/realdocs/SOURCES.md lists them with their licences), fetched with `apt-get download` and
unpacked with `dpkg -x` into the cache folder (default var/realdocs/, gitignored). No game's documentation.

A document is one HTML page of a multi-page manual (a chapter or a section), printed on its own.
"""

import subprocess
from dataclasses import dataclass
from pathlib import Path

# package: (folder inside the package, [pages])
PACKAGES: dict[str, tuple[str, list[str]]] = {
    "maint-guide-fr": ("usr/share/doc/maint-guide-fr/html", [
        "index.fr.html", "start.fr.html", "first.fr.html", "modify.fr.html", "dreq.fr.html", "dother.fr.html",
        "build.fr.html", "checkit.fr.html", "upload.fr.html", "update.fr.html", "advanced.fr.html"]),
    "developers-reference-fr": ("usr/share/developers-reference/fr", [
        "scope.html", "new-maintainer.html", "developer-duties.html", "resources.html", "pkgs.html",
        "best-pkging-practices.html", "beyond-pkging.html", "l10n.html", "tools.html"]),
    "debian-reference-fr": ("usr/share/debian-reference", [
        "ch03.fr.html", "ch04.fr.html", "ch05.fr.html", "ch06.fr.html", "ch07.fr.html", "ch08.fr.html"]),
    "debian-handbook": ("usr/share/doc/debian-handbook/html/fr-FR", [
        "apt.html", "sect.apt-get.html", "sect.apt-frontends.html", "sect.package-authentication.html",
        "sect.dist-upgrade.html", "basic-configuration.html", "sect.config-misc.html",
        "sect.installation-steps.html", "sect.apt-cache.html", "sect.regular-upgrades.html",
        "sect.automatic-upgrades.html", "sect.searching-packages.html", "sect.manipulating-packages-with-dpkg.html",
        "sect.package-meta-information.html", "sect.network-config.html", "sect.user-group-databases.html"]),
    "installation-guide-amd64": ("usr/share/doc/installation-guide-amd64/fr", [
        "ch02s01.html", "ch03s03.html", "ch03s06.html", "ch05s01.html", "ch05s03.html", "ch06s03.html",
        "ch08s04.html"]),
    "aptitude-doc-fr": ("usr/share/doc/aptitude/html/fr", [
        "ch01s02.html", "ch02s01s02.html", "ch02s04s05.html", "ch02s05s05.html", "ch03.html"]),
}
SHORT = {"maint-guide-fr": "maint", "developers-reference-fr": "devref", "debian-reference-fr": "debref",
         "debian-handbook": "handbook", "installation-guide-amd64": "install", "aptitude-doc-fr": "aptitude"}


@dataclass(frozen=True)
class RealDoc:
    name: str  # e.g. maint-first
    package: str
    html: Path


def _version(deb: Path) -> str:
    return deb.name.split("_")[1]


def fetch(cache: Path) -> dict[str, str]:
    """Downloads and unpacks each package once; returns {package: version}."""
    debs, root = cache / "debs", cache / "root"
    debs.mkdir(parents=True, exist_ok=True)
    versions = {}
    for package in PACKAGES:
        found = sorted(debs.glob(f"{package}_*.deb"))
        if not found:
            subprocess.run(["apt-get", "download", package], cwd=debs, check=True, capture_output=True)
            found = sorted(debs.glob(f"{package}_*.deb"))
        marker = root / f".{found[-1].name}.unpacked"
        if not marker.exists():
            root.mkdir(parents=True, exist_ok=True)
            subprocess.run(["dpkg", "-x", str(found[-1]), str(root)], check=True)
            marker.touch()
        versions[package] = _version(found[-1])
    return versions


def documents(cache: Path) -> list[RealDoc]:
    out = []
    for package, (folder, pages) in PACKAGES.items():
        for page in pages:
            stem = page.split(".")[0] if not page.startswith("sect.") else page.split(".")[1]
            out.append(RealDoc(f"{SHORT[package]}-{stem}", package, cache / "root" / folder / page))
    return out
