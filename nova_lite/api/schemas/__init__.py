"""JSON schemas of request bodies and query strings, one module per
resource (named like its handler module)."""
