"""Memory page sizes: what a request asks for, what a host cell offers.

A request asks with ``hw:mem_page_size``: ``small`` (the cell's smallest
page size), ``large`` (any but the smallest), ``any``, or an explicit
size ("2048" KiB, "2MB", "1GiB"). The image's ``hw_mem_page_size`` may
only narrow a flavor's ``large`` or ``any``; on its own, or against an
explicit flavor size, it is refused.

A host cell reports its page pools as ``mempages``: [{'size_kb',
'total', 'used', 'reserved'}] (counts of pages).
"""

from oslo_utils import strutils

SMALL, LARGE, ANY = -1, -2, -3
_NAMED = {'small': SMALL, 'large': LARGE, 'any': ANY}


def _size(text):
    text = str(text).strip()
    if text in _NAMED:
        return _NAMED[text]
    if text.isdigit():
        return int(text)
    try:
        return strutils.string_to_bytes(text, return_int=True) // 1024
    except ValueError:
        raise ValueError('%r is not a memory page size' % text) from None


def requested_size(flavor_value, image_value):
    """The page size marker or KiB asked for, or None."""
    if not flavor_value:
        if image_value:
            raise ValueError('the image may not ask for page size %s when '
                             'the flavor asks for none' % image_value)
        return None
    size = _size(flavor_value)
    if not image_value:
        return size
    if size in (ANY, LARGE):
        return _size(image_value)
    raise ValueError('the image page size %s conflicts with the flavor '
                     '%s' % (image_value, flavor_value))


def free_kb(pool):
    return ((pool['total'] - pool.get('used', 0) - pool.get('reserved', 0))
            * pool['size_kb'])


def fits(mempages, size_kb, memory_kb, use_free=True):
    """Whether ``memory_kb`` fits whole pages of ``size_kb`` (free pages,
    or all pages with ``use_free`` False). None when the cell has no
    pool of that size."""
    for pool in mempages:
        if pool['size_kb'] == size_kb:
            room = free_kb(pool) if use_free else (
                pool['total'] * pool['size_kb'])
            return memory_kb <= room and memory_kb % size_kb == 0
    return None


class PageSizeUnsupported(Exception):
    """The cell has no pool of an explicitly requested page size."""


def choose(mempages, wanted, memory_mb):
    """The page size (KiB) a guest cell of ``memory_mb`` takes on a host
    cell with ``mempages``, or None when none fits; raises
    PageSizeUnsupported for an explicit size the cell lacks."""
    sizes = sorted((pool['size_kb'] for pool in mempages), reverse=True)
    if wanted == SMALL:
        candidates = sizes[-1:]
    elif wanted == LARGE:
        candidates = sizes[:-1]
    elif wanted == ANY:
        candidates = sizes
    else:
        candidates = [wanted]
    memory_kb = memory_mb * 1024
    for size in candidates:
        answer = fits(mempages, size, memory_kb)
        if answer is None:
            raise PageSizeUnsupported(size)
        if answer:
            return size
    return None


def smallest(mempages):
    return min(pool['size_kb'] for pool in mempages)
