"""How to start an acquired npm game: the page of the unpacked package.

``npm pack`` unpacks a package under ``package/``, and a browser game is a page in it. The
manifest does not say which page (``main`` is the module a bundler imports, usually a ``.js``
file), so the page is looked for the way a person would: ``package/index.html``, else the
shallowest ``index.html`` when it is the only one at its depth (``package/dist/index.html``,
``package/public/index.html``), else the package's only ``.html`` file. Pages under
``node_modules``, tests, documentation and examples are not the game's. Several candidates are
ambiguous: the entry is then unknown (``""``) and the launch check says so ("no entry point
known"), rather than playing a page that may be a demo of one part.
"""

from __future__ import annotations

from pathlib import Path

#: Folders whose pages are not the package's game.
SKIPPED = frozenset(
    {"node_modules", "test", "tests", "__tests__", "spec", "docs", "doc", "example", "examples"}
)
ROOT = "package"


def _pages(files: Path) -> list[Path]:
    """Every ``.html`` file of the package, as paths relative to ``files``, outside SKIPPED."""
    root = files / ROOT
    if not root.is_dir():
        return []
    found = []
    for path in root.rglob("*"):
        rel = path.relative_to(files)
        if path.suffix.lower() not in (".html", ".htm") or not path.is_file():
            continue
        if any(part.lower() in SKIPPED for part in rel.parts[1:-1]):
            continue
        found.append(rel)
    return sorted(found)


def npm_entry(files: Path) -> str:
    """The page of an unpacked npm package (a path under ``files``, such as
    ``package/index.html``); ``""`` when there is none or it is ambiguous."""
    if (files / ROOT / "index.html").is_file():
        return f"{ROOT}/index.html"
    pages = _pages(files)
    index = [p for p in pages if p.name.lower() == "index.html"]
    if index:
        depth = min(len(p.parts) for p in index)
        top = [p for p in index if len(p.parts) == depth]
        if len(top) == 1:
            return top[0].as_posix()
        return ""
    return pages[0].as_posix() if len(pages) == 1 else ""
