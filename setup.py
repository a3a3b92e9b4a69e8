"""Packaging beside pyproject.toml: the top-level resources/ folder ships as
the package ``reviewer.resources`` (pyproject alone cannot map one package
to a folder outside the tree that packages.find searches)."""

from setuptools import find_packages, setup

setup(
    packages=find_packages(include=["reviewer", "reviewer.*"]) + ["reviewer.resources"],
    package_dir={"reviewer.resources": "resources"},
)
