"""Building blocks shared by the resource schemas (as Nova's)."""

# The largest value of the database's integer columns (a signed 32-bit
# INTEGER on every backend): any integer that reaches a column or a
# comparison with one is bounded by it, or the driver overflows (a 500).
MAX_INT = 2147483647

# A name: 1-255 printable characters (the ``name`` format, see
# validation.py), no leading or trailing whitespace.
name = {
    'type': 'string', 'minLength': 1, 'maxLength': 255,
    'pattern': r'^\S(.*\S)?$', 'format': 'name',
}

# An integer >= 1, also given as a string of digits (Nova accepts both).
# validation.py applies minimum and maximum to the strings too.
positive_integer = {
    'type': ['integer', 'string'],
    'pattern': r'^[1-9][0-9]*$', 'minimum': 1, 'maximum': MAX_INT,
}

non_negative_integer = {
    'type': ['integer', 'string'],
    'pattern': r'^[0-9]*$', 'minimum': 0, 'minLength': 1,
    'maximum': MAX_INT,
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

# A UUID (validation.py's ``uuid`` format: with or without dashes, as
# oslo.utils' is_uuid_like).
uuid = {'type': 'string', 'format': 'uuid'}

# Trusted image certificate ids (2.63): null, or 1 to 50 distinct
# non-empty strings.
trusted_certs = {
    'type': ['array', 'null'], 'minItems': 1, 'maxItems': 50,
    'uniqueItems': True, 'items': {'type': 'string', 'minLength': 1},
}

# An IPv4 or IPv6 address.
ip_address = {'type': 'string',
              'oneOf': [{'format': 'ipv4'}, {'format': 'ipv6'}]}

# Query-string parameters arrive as lists of strings.


def multi(item_schema):
    """A query parameter that may repeat, each value matching the schema."""
    return {'type': 'array', 'items': item_schema}


def single(item_schema):
    """A query parameter of which only the last value counts."""
    return {'type': 'array', 'items': item_schema, 'minItems': 1}


query_non_negative_int = {'type': 'string', 'pattern': r'^[0-9]+$',
                          'maximum': MAX_INT}
query_string = {'type': 'string'}
query_sort_dir = {'type': 'string', 'enum': ['asc', 'desc']}

# A server's hostname (2.90): a bare host name of 2-63 letters, digits,
# hyphens and underscores (underscores occur in real systems).
hostname = {'type': 'string', 'minLength': 2, 'maxLength': 63,
            'pattern': r'^[a-zA-Z0-9_-]*$'}

# From 2.94 a hostname may be a fully qualified domain name: dots
# allowed, up to 255 characters.
fqdn = {'type': 'string', 'minLength': 2, 'maxLength': 255,
        'pattern': r'^[a-zA-Z0-9._-]*$'}

# The links of a resource or of a page of a list, in answers.
links = {
    'type': 'array',
    'items': {
        'type': 'object',
        'properties': {'rel': {'type': 'string'},
                       'href': {'type': 'string'}},
        'required': ['rel', 'href'],
    },
}
