"""Sphinx configuration of treelab's documentation.

Build it with ``sphinx-build -b html docs docs/_build/html`` from the
repository root (``-D plot_gallery=0`` skips running the example gallery).
The cross-links to scikit-learn, NumPy and river's API need their
``objects.inv`` inventories from the network: set ``TREELAB_DOCS_INTERSPHINX=1``
to fetch them; without it the build is offline and links to those projects
stay plain text.
"""
from __future__ import annotations

import os
import sys
import warnings
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(DOCS / "_ext"))

import treelab  # noqa: E402

project = "treelab"
author = "treelab developers"
copyright = "treelab developers"
release = treelab.__version__
version = ".".join(release.split(".")[:2])

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.intersphinx",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "numpydoc",
    "myst_parser",
    "sphinxarg.ext",
    "sphinx_gallery.gen_gallery",
    "treelab_parameters",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
templates_path = ["_templates"]
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store", "auto_examples/*.ipynb",
                    "auto_examples/*.py", "auto_examples/*.zip", "auto_examples/*.md5",
                    "auto_examples/*.json"]

# Markdown pages (MyST)
myst_enable_extensions = ["colon_fence", "deflist", "dollarmath"]
myst_heading_anchors = 3

# API reference: autosummary pages from the numpydoc docstrings
autosummary_generate = True
autosummary_imported_members = True
autodoc_default_options = {"members": False}
autodoc_typehints = "none"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
numpydoc_attributes_as_param_list = True

# intersphinx: opt-in (the inventories are downloaded)
if os.environ.get("TREELAB_DOCS_INTERSPHINX", "") not in ("", "0"):
    intersphinx_mapping = {
        "python": ("https://docs.python.org/3", None),
        "numpy": ("https://numpy.org/doc/stable", None),
        "sklearn": ("https://scikit-learn.org/stable", None),
        "river": ("https://riverml.xyz/latest", None),
    }
else:
    intersphinx_mapping = {}
    intersphinx_disabled_reftypes = ["*"]

# Example gallery: examples/ -> docs/auto_examples (generated, not in git)
sphinx_gallery_conf = {
    "examples_dirs": str(ROOT / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    "image_scrapers": ("matplotlib",),
    "matplotlib_animations": False,
    "show_memory": False,
    "min_reported_time": 1000,
    "backreferences_dir": None,
}

# HTML
html_theme = "pydata_sphinx_theme"
html_title = f"treelab {release}"
html_static_path = []
html_show_sourcelink = False
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "header_links_before_dropdown": 7,
    "secondary_sidebar_items": ["page-toc"],
}
html_sidebars = {"index": [], "parameters": []}

warnings.filterwarnings("ignore", category=UserWarning,
                        message="Matplotlib is currently using agg")


def _class_signature(app, what, name, obj, options, signature, return_annotation):
    """Estimators take their parameters in ``__init__``; the shared ``__new__``
    (which reports renamed parameters) has ``*args, **kwargs``: show the former."""
    import inspect
    if what == "class" and signature and "*args" in signature:
        try:
            return str(inspect.signature(obj)), return_annotation
        except (TypeError, ValueError):
            return signature, return_annotation
    return signature, return_annotation


def setup(app):
    app.connect("autodoc-process-signature", _class_signature)
