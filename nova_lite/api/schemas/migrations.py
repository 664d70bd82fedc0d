"""Schemas of GET /os-migrations (2.59 pages the list, 2.66 adds
changes-before, 2.80 filters on the user and the project)."""

import copy

from nova_lite.api.schemas import parameter_types as types


def _one(item_schema):
    """A query parameter given at most once."""
    return {'type': 'array', 'items': item_schema, 'maxItems': 1}


INDEX_QUERY = {
    'type': 'object',
    'properties': {
        name: types.multi(types.query_string)
        for name in ('hidden', 'host', 'instance_uuid', 'source_compute',
                     'status', 'migration_type')},
    'additionalProperties': True,
}

# From 2.59: paging, and nothing unknown.
INDEX_QUERY_V259 = copy.deepcopy(INDEX_QUERY)
INDEX_QUERY_V259['properties'].update({
    'limit': _one(types.query_non_negative_int),
    'marker': _one({'type': 'string', 'maxLength': 36}),
    'changes-since': _one({'type': 'string'}),
})
INDEX_QUERY_V259['additionalProperties'] = False

# From 2.66: changes-before too.
INDEX_QUERY_V266 = copy.deepcopy(INDEX_QUERY_V259)
INDEX_QUERY_V266['properties']['changes-before'] = _one({'type': 'string'})
# From 2.80: the user and project that own the migration.
INDEX_QUERY_V280 = copy.deepcopy(INDEX_QUERY_V266)
INDEX_QUERY_V280['properties'].update({
    'user_id': _one(types.query_string),
    'project_id': _one(types.query_string),
})
