"""Release metadata agrees with itself: version, changelog, citation, license and the typing marker."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import zipfile
from importlib import metadata
from pathlib import Path

import pytest
import yaml
from packaging.version import Version

import rummy_env

ROOT = Path(__file__).resolve().parents[1]
RELEASE_HEADING = re.compile(r"^## \[(?P<version>\d[^\]]*)\] - (?P<date>\d{4}-\d{2}-\d{2})\s*$", re.MULTILINE)

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    tomllib = pytest.importorskip("tomli")


def pyproject() -> dict:
    """The parsed pyproject.toml."""
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def project_version() -> str:
    """The version pyproject.toml declares."""
    return pyproject()["project"]["version"]


def released_versions() -> list[tuple[str, str]]:
    """(version, date) of every released section of CHANGELOG.md, top first."""
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    return [(m.group("version"), m.group("date")) for m in RELEASE_HEADING.finditer(text)]


def citation() -> dict:
    """The parsed CITATION.cff."""
    return yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))


def test_version_matches_pyproject():
    assert rummy_env.__version__ == project_version(), (
        "the installed metadata is stale: reinstall with `.venv/bin/python -m pip install --no-deps -e .`"
    )
    assert "__version__" in rummy_env.__all__


def test_version_without_installed_metadata_comes_from_pyproject(monkeypatch):
    def not_installed(name: str) -> str:
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(metadata, "version", not_installed)
    assert rummy_env._version() == project_version()


def test_version_is_pep440_and_follows_the_changelog():
    version = Version(project_version())
    released = released_versions()
    assert released, "CHANGELOG.md has no released section"
    top = Version(released[0][0])
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    if version.is_devrelease or version.is_prerelease:
        assert "## [Unreleased]" in text, "a development version needs an [Unreleased] section"
        assert Version(version.base_version) > top, f"{version} does not lead on from the released {top}"
    else:
        assert version == top, f"pyproject says {version}, the changelog's latest release is {top}"


def test_changelog_releases_are_newest_first():
    versions = [Version(v) for v, _ in released_versions()]
    assert versions == sorted(versions, reverse=True)
    assert len(set(versions)) == len(versions)
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert text.index("## [Unreleased]") < text.index(f"## [{versions[0]}]")


def test_citation_names_the_latest_release():
    cff = citation()
    version, date = released_versions()[0]
    assert cff["cff-version"] == "1.2.0"
    assert {"message", "title", "authors"} <= cff.keys()
    assert str(cff["version"]) == version
    assert str(cff["date-released"]) == date
    assert cff["license"] == pyproject()["project"]["license"] == "MIT"


def test_readme_cites_the_latest_release():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    cite = readme[readme.index("## Cite this") :]
    assert f"version = {{{released_versions()[0][0]}}}" in cite
    assert "(CITATION.cff)" in cite


def test_license_is_the_declared_mit_license():
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License\n")
    assert "Copyright (c) 2026 the rummy-env authors" in text
    assert pyproject()["project"]["license"] == "MIT"


def test_py_typed_is_declared_as_package_data():
    assert (ROOT / "rummy_env" / "py.typed").is_file()
    assert "py.typed" in pyproject()["tool"]["setuptools"]["package-data"]["rummy_env"]


@pytest.mark.slow
def test_wheel_ships_py_typed_and_license(tmp_path):
    pytest.importorskip("setuptools", minversion="77", reason="the build backend pyproject.toml names")
    source = tmp_path / "src"
    source.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, source / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for package in ("rummy_env", "agents", "experiments"):
        shutil.copytree(ROOT / package, source / package, ignore=ignore)
    command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(tmp_path)]
    subprocess.run([*command, str(source)], check=True, timeout=300)
    (wheel,) = tmp_path.glob("rummy_env-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "rummy_env/py.typed" in names
    assert any(re.fullmatch(r"rummy_env-[^/]+\.dist-info/licenses/LICENSE", n) for n in names)
    assert wheel.name.startswith(f"rummy_env-{project_version()}-")
