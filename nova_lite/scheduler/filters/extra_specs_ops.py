"""The operators of extra spec values (seed 000, ComputeCapabilitiesFilter).

A requirement is "<op> <operand>..." matched against a capability value
(a string). Without a known operator the whole requirement must equal
the value (string equality, the ``s==`` default):

==========  =============================================================
``=``       as numbers, value >= operand (like vcpus: "at least")
``==``      as numbers, equal
``!=``      as numbers, not equal
``>=``      as numbers, value >= operand
``<=``      as numbers, value <= operand
``s==``     as strings, equal (``s!=``, ``s>=``, ``s>``, ``s<=``, ``s<``
            compare likewise)
``<in>``    operand is a substring of value
``<all-in>``  every operand is a substring of value
``<or>``    value equals one of the operands: "<or> a <or> b <or> c"
==========  =============================================================

    match('4096', '>= 2048')            -> True
    match('x86_64', '<or> arm <or> x86_64') -> True
"""

import operator


def _numbers(compare):
    def check(value, operand):
        try:
            return compare(float(value), float(operand))
        except ValueError:
            # A capability that is not a number never satisfies a
            # numeric requirement (Nova raises here and fails the host).
            return False
    return check


_OPS = {
    '=': _numbers(operator.ge),
    '==': _numbers(operator.eq),
    '!=': _numbers(operator.ne),
    '>=': _numbers(operator.ge),
    '<=': _numbers(operator.le),
    's==': operator.eq,
    's!=': operator.ne,
    's>=': operator.ge,
    's>': operator.gt,
    's<=': operator.le,
    's<': operator.lt,
    '<in>': lambda value, operand: operand in value,
}


def _match_or(value, words):
    # words: "a <or> b <or> c" once the leading <or> is removed; every
    # other word is an alternative.
    return value in words[::2]


def match(value, req):
    """True when capability ``value`` (a string, or None) meets ``req``.

    None never meets a requirement that has an operator.
    """
    words = req.split()
    op = words.pop(0) if words else None
    if op not in _OPS and op not in ('<or>', '<all-in>'):
        return value == req
    if value is None or not words:
        return False
    if op == '<or>':
        return _match_or(value, words)
    if op == '<all-in>':
        return all(word in value for word in words)
    return _OPS[op](value, words[0])
