"""Microversions: which versions of the API this server speaks.

A client asks for one with ``OpenStack-API-Version: compute X.Y`` (or the
legacy ``X-OpenStack-Nova-API-Version: X.Y``); ``latest`` means the newest
here, and no header means the oldest, 2.1. Every response says which
version answered, and ``Vary`` tells caches the headers matter.

A new microversion is a line in ``VERSIONS`` with what changed, plus the
handler code that checks ``req.api_version_request.matches(...)``.
"""

import re

from nova_lite import exception

SERVICE_TYPE = 'compute'
HEADER = 'OpenStack-API-Version'
LEGACY_HEADER = 'X-OpenStack-Nova-API-Version'
VARY = '%s, %s' % (HEADER, LEGACY_HEADER)

# The table in doc/microversions.rst says the same for users. Raise the
# maximum only past versions whose changes to the resources nova_lite
# serves are all implemented.
VERSIONS = [
    # 2.1: the base of the v2.1 API in Nova's 2.1 shapes: servers,
    #      flavors (with extra specs and access), images (the proxy view),
    #      os-services, os-hypervisors, os-aggregates, os-server-groups,
    #      quota sets and classes, limits, os-availability-zone,
    #      os-simple-tenant-usage and os-hosts.
    '2.1',
    # 2.2: keypair types (ssh only here) and os-keypairs status codes
    #      (create 201, delete 204).
    '2.2',
    # 2.3: servers show administrators more extended attributes
    #      (reservation_id, launch_index, hostname, kernel_id, ramdisk_id,
    #      root_device_name, user_data).
    '2.3',
    # 2.4: reserved in os-fixed-ips (no networks here: no change).
    '2.4',
    # 2.5: everyone may filter servers by ip6 (none has an address here,
    #      so it matches nothing, as ip always did).
    '2.5',
    # 2.6: remote consoles (no consoles here: no change).
    '2.6',
    # 2.7: addTenantAccess to a public flavor is 409 (here at every
    #      version).
    '2.7',
    # 2.8: MKS consoles (no consoles here: no change).
    '2.8',
    # 2.9: servers show "locked" (show, list detail, update, rebuild).
    '2.9',
    # 2.10: administrators name another user's key pairs (user_id in
    #       the create body, ?user_id= on list, show and delete).
    '2.10',
    # 2.11: services show forced_down; PUT /os-services/force-down.
    '2.11',
    # 2.12: os-virtual-interfaces net_id (no networks here: no change).
    '2.12',
    # 2.13: server groups show project_id and user_id.
    '2.13',
    # 2.14: evacuate without onSharedStorage, answering no adminPass.
    '2.14',
    # 2.15: the soft-affinity and soft-anti-affinity group policies
    #       (400 before).
    '2.15',
    # 2.16: servers show host_status (policy servers:show:host_status)
    #       in show and list detail.
    '2.16',
    # 2.17: the trigger_crash_dump server action (compute RPC 1.6).
    '2.17',
    # 2.18: the project id in the URL is optional (it always was here).
    '2.18',
    # 2.19: server description at create, update and rebuild, shown in
    #       every server view.
    '2.19',
    # 2.20: volume attach/detach of shelved servers (no volumes here: no
    #       change).
    '2.20',
    # 2.21: os-instance-actions of a deleted server.
    '2.21',
    # 2.22: force_complete of a running live migration.
    '2.22',
    # 2.23: GET /servers/{id}/migrations[/{id}] in the server-migration
    #       view; os-migrations shows migration_type and links.
    '2.23',
    # 2.24: DELETE /servers/{id}/migrations/{id} aborts a live migration.
    '2.24',
    # 2.25: os-migrateLive: block_migration may be "auto", no
    #       disk_over_commit.
    '2.25',
    # 2.26: server tags (/servers/{id}/tags), "tags" in show, list detail,
    #       update and rebuild, and the tags/tags-any/not-tags/
    #       not-tags-any list filters.
    '2.26',
    # 2.27: the OpenStack-API-Version header (accepted at every version
    #       here, as the legacy one: no change).
    '2.27',
    # 2.28: hypervisors show cpu_info as an object, not JSON text.
    '2.28',
    # 2.29: evacuate takes force (accepted; the filters still check a
    #       named host).
    '2.29',
    # 2.30: os-migrateLive takes force (likewise).
    '2.30',
    # 2.31: serial console URLs (no consoles here: no change).
    '2.31',
    # 2.32: device tags in networks and block_device_mapping_v2 at
    #       create (accepted; nothing here shows them).
    '2.32',
    # 2.33: os-hypervisors and /detail page (limit, marker).
    '2.33',
    # 2.34: os-migrateLive answers before the scheduler and the
    #       destination checked (a failure there no longer a 400).
    '2.34',
    # 2.35: os-keypairs pages (limit, marker; ignored before).
    '2.35',
    # 2.36: the proxy APIs are gone: /images is 404, quota sets lose
    #       the network resources and limits their network fields.
    '2.36',
    # 2.37: networks is required at create and may be "auto" or "none"
    #       (no network service here: both boot without ports, as a list
    #       does); a network's uuid must be a UUID, and its tag is 400
    #       until 2.42.
    '2.37',
    # 2.38: a server list filtered on no status Nova knows is a 400.
    '2.38',
    # 2.39: absolute limits lose maxImageMeta, and createImage no longer
    #       counts its metadata against metadata_items (the image
    #       metadata proxy it also removes was never served here).
    '2.39',
    # 2.40: os-simple-tenant-usage pages (limit, marker) with next links.
    '2.40',
    # 2.41: aggregates show their uuid.
    '2.41',
    # 2.42: device tags at create again: in networks (lost at 2.37) and
    #       block_device_mapping_v2 (lost at 2.33).
    '2.42',
    # 2.43: os-hosts is gone (404).
    '2.43',
    # 2.44: the network proxy's server actions (addFixedIp,
    #       removeFixedIp, addFloatingIp, removeFloatingIp) are 404;
    #       before they name nothing that exists here. os-virtual-
    #       interfaces was never served.
    '2.44',
    # 2.45: createImage answers {"image_id"} instead of a Location
    #       (createBackup is not served here).
    '2.45',
    # 2.46: X-OpenStack-Request-ID beside X-Compute-Request-ID (both
    #       answered at every version here: no change).
    '2.46',
    # 2.47: servers show the flavor they were built with (vcpus, ram,
    #       disk, ephemeral, swap, original_name; extra_specs to callers
    #       allowed to list them), not its id and link.
    '2.47',
    # 2.48: standard server diagnostics (Nova's fields, not the
    #       driver's own dict).
    '2.48',
    # 2.49: tagged interface and volume attach (no networks or volumes
    #       here: no change).
    '2.49',
    # 2.50: quota class sets lose the network resources (and show
    #       server_groups and server_group_members, as they always did
    #       here).
    '2.50',
    # 2.51: instance action events are shown to every reader of the
    #       server (administrators only before), tracebacks still to
    #       administrators only. (The volume-extended external event:
    #       no volumes here.)
    '2.51',
    # 2.52: tags at server create.
    '2.52',
    # 2.53: services and hypervisors are named by uuid (their "id");
    #       PUT /os-services/{id} replaces the enable, disable,
    #       disable-log-reason and force-down actions; os-hypervisors
    #       lists take hypervisor_hostname_pattern and with_servers (show
    #       too), and {pattern}/search and /servers are gone.
    '2.53',
    # 2.54: rebuild takes key_name (null unsets it) and answers it.
    '2.54',
    # 2.55: flavors have a description (create, PUT /flavors/{id}, shown
    #       in every flavor view).
    '2.55',
    # 2.56: migrate takes an optional host (400 before).
    '2.56',
    # 2.57: personality (file injection) is gone at create and rebuild;
    #       rebuild takes user_data; quota sets, quota class sets and
    #       limits lose the injected-file resources.
    '2.57',
    # 2.58: instance actions show updated_at; their list pages (limit,
    #       marker, changes-since) with a next link.
    '2.58',
    # 2.59: migrations show their uuid; os-migrations pages (limit,
    #       marker, changes-since) with a next link.
    '2.59',
    # 2.60: multiattach volumes (no volumes here: no change).
    '2.60',
    # 2.61: flavors' detailed views show extra_specs to callers allowed
    #       to list them.
    '2.61',
    # 2.62: instance action events show hostId, and host to callers
    #       allowed the events rule.
    '2.62',
    # 2.63: trusted_image_certificates at create and rebuild, shown in
    #       the server views (kept, not checked: no image signature
    #       verification here, as Nova with it disabled).
    '2.63',
    # 2.64: server groups are created with one policy and rules, and
    #       show policy and rules in place of policies and metadata.
    '2.64',
    # 2.65: DELETE /servers/{id}/migrations/{id} also aborts a live
    #       migration still queued or preparing (it is cancelled before
    #       its copy starts).
    '2.65',
    # 2.66: changes-before on GET /servers(/detail), os-instance-actions
    #       and os-migrations (400 if earlier than changes-since).
    '2.66',
    # 2.67: block_device_mapping_v2 volume_type (no volumes here: a named
    #       type is not found, 400).
    '2.67',
    # 2.68: evacuate and os-migrateLive lose force (400).
    '2.68',
    # 2.69: partial results of down cells (no cells here: no change).
    '2.69',
    # 2.70: device tags in os-interface and os-volume_attachments (not
    #       served here: no change).
    '2.70',
    # 2.71: server_groups in show, update and rebuild answers.
    '2.71',
    # 2.72: ports with resource requests (no networks here: no change).
    '2.72',
    # 2.73: locked_reason in every server view; the locked list filter
    #       and sort key.
    '2.73',
    # 2.74: host and hypervisor_hostname at create (administrators;
    #       still checked by the scheduler's filters).
    '2.74',
    # 2.75: strict servers list query; update and rebuild answer the
    #       view of show; flavors show swap 0, not ""; hypervisors with
    #       servers always show "servers".
    '2.75',
    # 2.76: the power-update external event (os-server-external-events
    #       is not served here: no change).
    '2.76',
    # 2.77: unshelve of an offloaded server takes availability_zone.
    '2.77',
    # 2.78: GET /servers/{id}/topology, the server's NUMA topology (host
    #       details to administrators).
    '2.78',
    # 2.79: delete_on_termination of volume attachments (no volumes
    #       here: no change).
    '2.79',
    # 2.80: migrations show user_id and project_id (os-migrations and
    #       /servers/{id}/migrations); os-migrations filters on them.
    '2.80',
    # 2.81: POST /os-aggregates/{id}/images asks the aggregate's computes
    #       to cache images (compute RPC 1.9).
    '2.81',
    # 2.82: the accelerator-request-bound external event (no
    #       accelerators here: no change).
    '2.82',
    # 2.83: more server list filters for non-administrators
    #       (availability_zone, config_drive, key_name, created_at,
    #       launched_at, terminated_at, power_state, task_state,
    #       vm_state, progress, user_id).
    '2.83',
    # 2.84: instance action events show details (why a failed one
    #       failed).
    '2.84',
    # 2.85: volume attachment update (no volumes here: no change).
    '2.85',
    # 2.86: flavor extra specs are validated: an unknown key in a known
    #       namespace, or a bad value, is a 400.
    '2.86',
    # 2.87: rescue of volume-backed servers (no rescue here: no change).
    '2.87',
    # 2.88: hypervisors lose their resource figures and cpu_info; show
    #       answers uptime; /os-hypervisors/statistics and
    #       /os-hypervisors/{id}/uptime are 404.
    '2.88',
    # 2.89: volume attachments show attachment_id and bdm_uuid (no
    #       volumes here: no change).
    '2.89',
    # 2.90: hostname at create, update and rebuild (not with several
    #       instances), and OS-EXT-SRV-ATTR:hostname shown to everyone.
    '2.90',
    # 2.91: unshelve to an administrator's host, and a null
    #       availability_zone unpins the server.
    '2.91',
    # 2.92: os-keypairs create needs public_key (no more generated
    #       keys); names may carry '@' and '.'.
    '2.92',
    # 2.93: rebuild of volume-backed servers (no volumes here: no
    #       change).
    '2.93',
    # 2.94: hostname may be a fully qualified domain name (up to 255).
    '2.94',
    # 2.95: an evacuated server lands stopped (SHUTOFF).
    '2.95',
    # 2.96: servers show pinned_availability_zone.
    '2.96',
    # 2.97: /servers/{id}/shares (no share service here: none attached,
    #       attaching finds no share).
    '2.97',
    # 2.98: the server's image shows its properties.
    '2.98',
    # 2.99: spice direct consoles (no consoles here: no change).
    '2.99',
    # 2.100: servers show their scheduler_hints.
    '2.100',
]

_FORMAT = re.compile(r'^([1-9]\d*)\.([1-9]\d*|0)$')


class APIVersionRequest:
    """A version "X.Y", comparable with others."""

    def __init__(self, version_string):
        match = _FORMAT.match(version_string or '')
        if not match:
            raise exception.InvalidAPIVersionString(version=version_string)
        self.ver_major = int(match.group(1))
        self.ver_minor = int(match.group(2))

    def _key(self):
        return (self.ver_major, self.ver_minor)

    def __eq__(self, other):
        return self._key() == other._key()

    def __lt__(self, other):
        return self._key() < other._key()

    def __le__(self, other):
        return self._key() <= other._key()

    def __gt__(self, other):
        return self._key() > other._key()

    def __ge__(self, other):
        return self._key() >= other._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        return 'APIVersionRequest(%s)' % self

    def __str__(self):
        return '%d.%d' % self._key()

    def matches(self, min_version=None, max_version=None):
        """True if this version is within [min_version, max_version]."""
        if min_version and self < APIVersionRequest(min_version):
            return False
        if max_version and self > APIVersionRequest(max_version):
            return False
        return True


def min_version():
    return APIVersionRequest(VERSIONS[0])


def max_version():
    return APIVersionRequest(VERSIONS[-1])


def requested_version_string(headers):
    """The compute version a request's headers ask for, or None."""
    value = headers.get(HEADER)
    if value:
        for item in value.split(','):
            parts = item.strip().split(None, 1)
            if len(parts) == 2 and parts[0].lower() == SERVICE_TYPE:
                return parts[1].strip()
    legacy = headers.get(LEGACY_HEADER)
    return legacy.strip() if legacy else None


def from_headers(headers):
    """The APIVersionRequest to serve a request with.

    Raises InvalidAPIVersionString (400) for a malformed version and
    InvalidGlobalAPIVersion (406) for one outside [min, max].
    """
    requested = requested_version_string(headers)
    if requested is None:
        return min_version()
    if requested.lower() == 'latest':
        return max_version()
    version = APIVersionRequest(requested)
    if not min_version() <= version <= max_version():
        raise exception.InvalidGlobalAPIVersion(
            req_ver=requested, min_ver=str(min_version()),
            max_ver=str(max_version()))
    return version


def add_headers(response, version):
    """Say which version answered (none if negotiation failed)."""
    if version is not None:
        response.headers[HEADER] = '%s %s' % (SERVICE_TYPE, version)
        response.headers[LEGACY_HEADER] = str(version)
    response.headers['Vary'] = VARY
    return response
