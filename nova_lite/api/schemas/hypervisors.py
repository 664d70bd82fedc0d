"""Schemas of /os-hypervisors (2.1 takes no parameters)."""

INDEX_QUERY = {
    'type': 'object',
    'additionalProperties': True,
}
