"""One module per kind of source that :func:`playsuite.runtimes.acquire.acquire` fetches from
(Debian, PyPI/npm/local, catalog archives), over :mod:`.common`; the entry point picks one by the
row's ``source``."""
