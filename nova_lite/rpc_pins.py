"""RPC pins: what a client may send to a service during a rolling upgrade.

``[upgrade_levels] <service>`` is unset (send the newest), a version
("1.0"), a release name from ``releases.json`` ("acorn"), or ``auto``: the
newest version the oldest running service of that kind understands, found
from the services table through ``SERVICE_VERSION_HISTORY`` and read again
every ``report_interval`` seconds, so lifting a pin needs no SIGHUP (Nova
caches it until one). When that minimum cannot be read (the database or
the conductor is unreachable), ``auto`` sends at the oldest supported
release and asks again on the next message: it fails closed, and that
answer is never cached.

A pin gives two things: the RPC version cap, and the object versions of the
release that cap belongs to. Objects are sent at those versions, so an old
service that cannot ask a conductor to backport (a scheduler, which has its
own database access) still understands what it receives.
"""

import re
import threading
import time

from oslo_log import log as logging
from oslo_utils import versionutils

from nova_lite.conf import CONF
from nova_lite import exception
from nova_lite import releases

LOG = logging.getLogger(__name__)

_VERSION = re.compile(r'^\d+\.\d+$')
BINARIES = {'conductor': 'nova-lite-conductor',
            'scheduler': 'nova-lite-scheduler',
            'compute': 'nova-lite-compute'}


def _v(version):
    return versionutils.convert_version_to_tuple(version)


def release_for_rpc(service, version):
    """The oldest release that speaks ``version`` of ``service``'s RPC API
    (or newer), or None if none does.

    A pin to a version says the peers speak at least that much; the oldest
    release that does is the one whose objects they surely understand.
    """
    for release in releases.all_releases():
        if _v(release['rpc'][service]) >= _v(version):
            return release
    return None


def release_for_service_version(service_version):
    """The newest release whose service version is <= ``service_version``
    (what a service of that version is), or None."""
    found = None
    for release in releases.all_releases():
        if release['service_version'] <= service_version:
            found = release
    return found


class Pin:
    """The current pin for messages to ``service`` ('conductor', ...)."""

    def __init__(self, service):
        self.service = service
        self._lock = threading.Lock()
        self._auto = None          # (cap, objects)
        self._auto_expires = 0.0
        self._looking_up = threading.local()

    def resolve(self):
        """(version cap or None, {object: version} or None)."""
        value = getattr(CONF.upgrade_levels, self.service)
        if not value:
            return None, None
        if value == 'auto':
            return self._resolve_auto()
        if value in releases.names():
            release = releases.get(value)
            return release['rpc'][self.service], release['objects']
        if not _VERSION.match(value):
            raise exception.ConfigInvalid(
                reason='[upgrade_levels] %s = %s is not a version like '
                       '"1.0", a release (%s) or "auto"' % (
                           self.service, value, ', '.join(releases.names())))
        release = release_for_rpc(self.service, value)
        return value, (release['objects'] if release else None)

    def _resolve_auto(self):
        if getattr(self._looking_up, 'active', False):
            # The lookup itself sends a message (a compute asks the
            # conductor for the minimum version): it goes out at the
            # version it names, which every release speaks, unpinned.
            return self._auto or (None, None)
        with self._lock:
            if time.monotonic() < self._auto_expires:
                return self._auto
            try:
                resolved = self._compute_auto()
            except Exception:
                # Fail closed, and ask again on the next message: the
                # oldest supported release is understood by every service
                # this code may run beside, while "newest" or a stale
                # answer could be refused by an old one.
                LOG.exception('Cannot read the minimum %s version; sending '
                              'at the oldest supported release until it '
                              'can be read', self.service)
                return self.oldest_supported()
            if resolved != self._auto:
                LOG.info('[upgrade_levels] %s = auto now sends RPC version '
                         '%s', self.service, resolved[0] or 'newest')
            self._auto = resolved
            self._auto_expires = time.monotonic() + CONF.report_interval
            return resolved

    def oldest_supported(self):
        """(cap, objects) of the oldest release this code runs beside."""
        release = releases.oldest_supported()
        return release['rpc'][self.service], release['objects']

    def _compute_auto(self):
        """(cap, objects) for the oldest running service; raises when the
        minimum version cannot be read."""
        # Imported here: objects need the RPC layer that imports us.
        from nova_lite import context as nl_context
        from nova_lite import objects
        from nova_lite.objects import service as service_obj
        self._looking_up.active = True
        try:
            minimum = objects.Service.get_minimum_version(
                nl_context.get_admin_context(), BINARIES[self.service])
        finally:
            self._looking_up.active = False
        if not minimum or minimum >= service_obj.SERVICE_VERSION:
            return None, None
        history = service_obj.SERVICE_VERSION_HISTORY[minimum]
        cap = history['%s_rpc' % self.service]
        release = release_for_service_version(minimum)
        return cap, (release['objects'] if release else None)
