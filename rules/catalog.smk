# Catalog curation: ingest platform dumps, filter, classify genres, triage archives.
