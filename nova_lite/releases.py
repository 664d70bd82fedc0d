"""The releases of nova_lite, as data (``releases.json`` beside this file).

    releases.get('acorn')['rpc']['conductor']   -> '1.0'
    releases.rpc_aliases('compute')             -> {'acorn': '1.0', ...}

A rolling upgrade goes from one release to the next: ``[upgrade_levels]``
takes these names, ``nova-lite-status upgrade check`` compares running
services against them, and ``tools/upgrade-drill`` rehearses the upgrade.
"""

import functools
import json
import os

_PATH = os.path.join(os.path.dirname(__file__), 'releases.json')


@functools.lru_cache(maxsize=1)
def all_releases():
    """Every release, oldest first (a list of dicts)."""
    with open(_PATH) as data:
        return json.load(data)['releases']


def get(name):
    """The release called ``name``; KeyError if there is none."""
    for release in all_releases():
        if release['name'] == name:
            return release
    raise KeyError(name)


def names():
    return [release['name'] for release in all_releases()]


def rpc_aliases(service):
    """{release name: RPC version} of ``service`` ('conductor', ...)."""
    return {release['name']: release['rpc'][service]
            for release in all_releases()}


def oldest_supported():
    """The oldest release the running code can be upgraded from: the one
    before the newest (releases are upgraded one at a time)."""
    releases = all_releases()
    return releases[-2] if len(releases) > 1 else releases[0]
