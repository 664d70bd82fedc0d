"""Schemas of /os-availability-zone (no parameters at 2.1)."""

INDEX_QUERY = {
    'type': 'object',
    'additionalProperties': True,
}
