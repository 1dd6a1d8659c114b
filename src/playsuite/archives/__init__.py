"""Game archives: safe extraction (:mod:`.extract`) and the safety scan (:mod:`.triage`).

Both game acquisition (runtimes) and catalog curation open untrusted archives, so they share this
one implementation below them.
"""
