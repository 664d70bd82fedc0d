"""Building blocks shared by the resource schemas (as Nova's)."""

# A name: 1-255 characters, no leading or trailing whitespace.
name = {
    'type': 'string', 'minLength': 1, 'maxLength': 255,
    'pattern': r'^\S(.*\S)?$',
}

# An integer >= 1, also given as a string of digits (Nova accepts both).
positive_integer = {
    'type': ['integer', 'string'],
    'pattern': r'^[1-9][0-9]*$', 'minimum': 1,
}

non_negative_integer = {
    'type': ['integer', 'string'],
    'pattern': r'^[0-9]*$', 'minimum': 0, 'minLength': 1,
}

boolean = {
    'type': ['boolean', 'string'],
    'enum': [True, 'True', 'TRUE', 'true', '1', 'ON', 'On', 'on',
             'YES', 'Yes', 'yes',
             False, 'False', 'FALSE', 'false', '0', 'OFF', 'Off', 'off',
             'NO', 'No', 'no'],
}

metadata = {
    'type': 'object',
    'patternProperties': {
        r'^[a-zA-Z0-9-_:. ]{1,255}$': {'type': 'string', 'maxLength': 255},
    },
    'additionalProperties': False,
}

# Query-string parameters arrive as lists of strings.


def multi(item_schema):
    """A query parameter that may repeat, each value matching the schema."""
    return {'type': 'array', 'items': item_schema}


def single(item_schema):
    """A query parameter of which only the last value counts."""
    return {'type': 'array', 'items': item_schema, 'minItems': 1}


query_non_negative_int = {'type': 'string', 'pattern': r'^[0-9]+$'}
query_string = {'type': 'string'}
query_sort_dir = {'type': 'string', 'enum': ['asc', 'desc']}
