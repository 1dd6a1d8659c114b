"""Catalog: corpus tables, game acquisition, curation filters, genres and archive triage."""
