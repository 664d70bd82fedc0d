"""nova_lite's exceptions.

Each class carries a ``msg_fmt`` filled from its keyword arguments and an
HTTP ``code`` the API answers with when the exception reaches it. Errors
are data: add a class here rather than raising a bare message.
"""

import logging

LOG = logging.getLogger(__name__)


class NovaLiteException(Exception):
    msg_fmt = 'An unknown error occurred.'
    code = 500
    headers = {}
    safe = False

    def __init__(self, message=None, **kwargs):
        self.kwargs = kwargs
        self.kwargs.setdefault('code', self.code)
        if not message:
            try:
                message = self.msg_fmt % kwargs
            except (KeyError, TypeError, ValueError):
                LOG.exception('Bad arguments %r for %s', kwargs,
                              type(self).__name__)
                message = self.msg_fmt
        self.message = message
        super().__init__(message)

    def format_message(self):
        return self.args[0]


# 4xx: the caller asked for something wrong.

class Invalid(NovaLiteException):
    msg_fmt = 'Invalid input: %(reason)s'
    code = 400


class ValidationError(Invalid):
    msg_fmt = '%(detail)s'


class InvalidInput(Invalid):
    msg_fmt = 'Invalid input: %(reason)s'


class InvalidRequest(Invalid):
    msg_fmt = 'The request is invalid: %(reason)s'


class AmbiguousHostnameForMultipleInstances(Invalid):
    msg_fmt = ('Unable to allocate a single hostname to multiple instances: '
               'give a hostname only with max_count 1')


class ImageNotFoundForBuild(Invalid):
    msg_fmt = 'Image %(image_id)s could not be found.'


class FlavorNotFoundForBuild(Invalid):
    msg_fmt = 'Flavor %(flavor_id)s could not be found.'


class InstanceInvalidState(Invalid):
    msg_fmt = ('Instance %(instance_uuid)s in %(attr)s %(state)s. Cannot '
               '%(method)s while the instance is in this state.')
    code = 409


class NotAuthorized(NovaLiteException):
    msg_fmt = 'Not authorized.'
    code = 403


class PolicyNotAuthorized(NotAuthorized):
    msg_fmt = 'Policy does not allow %(action)s to be performed.'


class Forbidden(NotAuthorized):
    msg_fmt = 'Forbidden: %(reason)s'


class NotFound(NovaLiteException):
    msg_fmt = 'Resource could not be found.'
    code = 404


class FlavorNotFound(NotFound):
    msg_fmt = 'Flavor %(flavor_id)s could not be found.'


class FlavorAccessNotFound(NotFound):
    msg_fmt = ('Project %(project_id)s has no access to flavor '
               '%(flavor_id)s to remove.')


class FlavorAccessListOfPublicFlavor(NotFound):
    msg_fmt = ('Flavor %(flavor_id)s is public: it has no access list.')


class ImageNotFound(NotFound):
    msg_fmt = 'Image %(image_id)s could not be found.'


class ShareNotFound(NotFound):
    msg_fmt = ('Share %(share_id)s could not be found: nova_lite has no '
               'share service.')


class ShareMappingNotFound(NotFound):
    msg_fmt = 'Share %(share_id)s is not attached to server %(server_id)s.'


class InstanceNotFound(NotFound):
    msg_fmt = 'Instance %(instance_id)s could not be found.'


class ServiceNotFound(NotFound):
    msg_fmt = 'Service %(service_id)s could not be found.'


class VolumeTypeNotFound(Invalid):
    # A 400 at server create, as Nova answers it.
    msg_fmt = 'Volume type %(id_or_name)s could not be found.'


class ComputeHostNotFound(NotFound):
    msg_fmt = 'Compute host %(host)s could not be found.'


class ComputeNodeNotFound(NotFound):
    msg_fmt = 'Compute node %(node)s could not be found.'


class HypervisorNotFoundForPattern(NotFound):
    msg_fmt = 'No hypervisor matching %(pattern)s could be found.'


class ResourceProviderNotFound(NotFound):
    msg_fmt = 'Resource provider %(uuid)s could not be found.'


class RequestSpecNotFound(NotFound):
    msg_fmt = 'RequestSpec for instance %(instance_uuid)s not found.'


class Conflict(NovaLiteException):
    msg_fmt = 'Conflict: %(reason)s'
    code = 409


class ServiceHasServers(Conflict):
    msg_fmt = ('Unable to delete compute service that is hosting '
               'instances. Migrate or delete the instances first.')


class ServiceHasMoves(Conflict):
    msg_fmt = ('Unable to delete compute service that has in-progress '
               'migrations. Complete the migrations or delete the '
               'instances first.')


class FlavorExists(Conflict):
    msg_fmt = 'Flavor with %(field)s %(value)s already exists.'


class FlavorAccessExists(Conflict):
    msg_fmt = ('Project %(project_id)s already has access to flavor '
               '%(flavor_id)s.')


class FlavorAccessOfPublicFlavor(Conflict):
    msg_fmt = ('Flavor %(flavor_id)s is public: every project has access, '
               'none can be added.')


class ServiceExists(Conflict):
    msg_fmt = 'Service %(binary)s on host %(host)s already exists.'


class TooManyInstances(NotAuthorized):
    msg_fmt = ('Quota exceeded for %(overs)s: Requested %(req)s, but '
               'already used %(used)s of %(allowed)s %(overs)s.')


# 5xx and internal: something on our side.

class NoValidHost(NovaLiteException):
    msg_fmt = 'No valid host was found. %(reason)s'


class MaxRetriesExceeded(NoValidHost):
    msg_fmt = 'Exceeded maximum number of retries. %(reason)s'


class ClaimConflict(NovaLiteException):
    """A provider's generation moved under a claim: refresh and retry."""
    msg_fmt = ('Resource provider %(uuid)s changed while claiming '
               '(generation %(generation)s).')


class ComputeResourcesUnavailable(NovaLiteException):
    msg_fmt = 'Insufficient compute resources: %(reason)s'


class BuildAbortException(NovaLiteException):
    msg_fmt = 'Build of instance %(instance_uuid)s aborted: %(reason)s'


class RescheduledException(NovaLiteException):
    msg_fmt = ('Build of instance %(instance_uuid)s was re-scheduled: '
               '%(reason)s')


class InstanceDeployFailure(NovaLiteException):
    msg_fmt = 'Failed to deploy instance %(instance_uuid)s: %(reason)s'


class HypervisorUnavailable(NovaLiteException):
    msg_fmt = 'Connection to the hypervisor is broken on host %(host)s.'


class DBNotAllowed(NovaLiteException):
    msg_fmt = ('%(binary)s attempted direct database access, which is not '
               'allowed: computes reach the database only through the '
               'conductor.')


class ObjectActionError(NovaLiteException):
    msg_fmt = 'Object action %(action)s failed because: %(reason)s'


class OrphanedObjectError(NovaLiteException):
    msg_fmt = 'Cannot call %(method)s on orphaned %(objtype)s object.'


class UnsupportedRPCVersion(NovaLiteException):
    msg_fmt = ('Cannot send %(method)s to the %(service)s: it needs RPC '
               'version %(needed)s but the client is pinned to %(pin)s by '
               '[upgrade_levels] %(service)s.')


class ConfigInvalid(NovaLiteException):
    msg_fmt = 'Invalid configuration: %(reason)s'


class PolicyInitError(NovaLiteException):
    msg_fmt = 'Failed to initialize policy %(policy)s: %(reason)s'


class UnexpectedTaskStateError(Conflict):
    msg_fmt = ('Conflict updating instance %(instance_uuid)s. Expected: '
               '%(expected)s. Actual: %(actual)s')


class MarkerNotFound(NotFound):
    msg_fmt = 'Marker %(marker)s could not be found.'
    code = 400


class InvalidInventory(Invalid):
    msg_fmt = 'Invalid inventory for %(resource_class)s: %(reason)s'


class InventoryInUse(Conflict):
    msg_fmt = ('Inventory for %(resource_classes)s on resource provider '
               '%(uuid)s in use.')


class InvalidTrait(Invalid):
    msg_fmt = ('%(name)s is not a trait: use an os-traits name or '
               'CUSTOM_ followed by capital letters, digits and '
               'underscores.')


class InsufficientCapacity(Conflict):
    msg_fmt = ('Resource provider %(uuid)s cannot take %(amount)d '
               '%(resource_class)s: %(free)d free of %(capacity)d.')


class BuildTimedOut(NovaLiteException):
    msg_fmt = ('Build did not finish within %(timeout)d seconds; it was '
               'last at task state %(task_state)s on host %(host)s.')


class BuildHostDown(NovaLiteException):
    msg_fmt = ('Build stopped at task state %(task_state)s: its compute '
               '%(host)s is down (no heartbeat within service_down_time).')


class TaskHostDown(NovaLiteException):
    msg_fmt = ('Instance %(instance_uuid)s was in task_state %(task_state)s '
               'when its compute %(host)s went down (no heartbeat within '
               'service_down_time): reset by the conductor.')
    code = 500


class MoveConductorGone(NovaLiteException):
    msg_fmt = ('The move of instance %(instance_uuid)s stopped before a '
               'compute took it up: its conductor (%(owner)s) is gone; '
               'undone by another conductor.')
    code = 500


class MoveHostRestarted(NovaLiteException):
    msg_fmt = ('The move of instance %(instance_uuid)s stopped in task '
               'state %(task_state)s: its compute %(host)s restarted '
               'during that step and lost it; settled by the conductor.')
    code = 500


class MoveHostDown(NovaLiteException):
    msg_fmt = ('The move of instance %(instance_uuid)s stopped in task '
               'state %(task_state)s: its compute %(host)s is down (no '
               'heartbeat within service_down_time); settled by the '
               'conductor.')
    code = 500


class BuildCastLost(NovaLiteException):
    msg_fmt = ('Build was cast to compute %(host)s, which did not '
               'acknowledge it within %(grace)d s, and cannot be cast '
               'again: %(reason)s.')


class ComputeNodeIdentityConflict(NovaLiteException):
    msg_fmt = ('Node %(node)s of compute host %(host)s cannot be reported: '
               '%(reason)s')


class BuildFailedOnHost(NovaLiteException):
    msg_fmt = ('Build of instance %(instance_uuid)s failed on host %(host)s '
               'node %(node)s: %(reason)s')


# The compute API (nova_lite/api): request-level errors.

class InvalidAPIVersionString(Invalid):
    msg_fmt = ('API Version String %(version)s is of invalid format. Must '
               'be of format MajorNum.MinorNum.')


class InvalidGlobalAPIVersion(NovaLiteException):
    msg_fmt = ('Version %(req_ver)s is not supported by the API. Minimum '
               'is %(min_ver)s and maximum is %(max_ver)s.')
    code = 406


class MalformedRequestBody(Invalid):
    msg_fmt = 'Malformed request body'


class MalformedRequestURL(Invalid):
    msg_fmt = ("Malformed request URL: URL's project_id '%(project_id)s' "
               "doesn't match Context's project_id "
               "'%(context_project_id)s'")


class InvalidContentType(NovaLiteException):
    msg_fmt = 'Unsupported Content-Type %(content_type)s'
    code = 415


class RequestTooLarge(NovaLiteException):
    msg_fmt = 'Request is too large.'
    code = 413


class NotAuthenticated(NovaLiteException):
    msg_fmt = 'Authentication required: %(reason)s'
    code = 401


class FlavorMemoryTooSmall(Invalid):
    msg_fmt = ("Flavor's memory is too small for requested image: the "
               "image needs %(min_ram)s MB.")


class FlavorDiskTooSmall(Invalid):
    msg_fmt = ("Flavor's disk is too small for requested image: the image "
               "needs %(min_disk)s GB.")


class ImageNotActive(Invalid):
    msg_fmt = 'Image %(image_id)s is not active.'


class ImageExists(Conflict):
    msg_fmt = 'Image %(image_id)s already exists.'


class SchedulerHostFilterNotFound(ConfigInvalid):
    msg_fmt = ('Scheduler host filter %(name)s could not be loaded: '
               '%(reason)s')


class SchedulerWeigherNotFound(ConfigInvalid):
    msg_fmt = 'Scheduler weigher %(name)s could not be loaded: %(reason)s'


class FlavorExtraSpecsNotFound(NotFound):
    msg_fmt = 'Flavor %(flavor_id)s has no extra specs with key %(key)s.'


class ServiceTooOld(NovaLiteException):
    msg_fmt = ('Refusing to start: %(binary)s on host %(host)s runs service '
               'version %(version)s, older than the oldest this release can '
               'run beside (%(oldest)s, release %(release)s). Upgrade or '
               'remove that service first; for a fast-forward upgrade set '
               '[upgrade_levels] skip_service_version_check.')


# Quotas (nova_lite/quota).

class OverQuota(TooManyInstances):
    """A reservation that does not fit. ``requested``, ``used`` and
    ``limits`` ({resource: number}) say why, resource by resource."""
    msg_fmt = 'Quota exceeded for %(overs)s: %(details)s.'


class MetadataLimitExceeded(NotAuthorized):
    msg_fmt = ('Quota exceeded for metadata_items: %(requested)d metadata '
               'items requested, at most %(allowed)d allowed.')


class QuotaResourceUnknown(Invalid):
    msg_fmt = 'Unknown quota resources %(unknown)s.'


class QuotaLimitBelowUsage(Invalid):
    msg_fmt = ('Quota limit %(limit)s for %(resource)s must be greater '
               'than or equal to already used and reserved %(minimum)s.')


class QuotaLimitAboveProject(Invalid):
    msg_fmt = ('Quota limit %(limit)s for %(resource)s must be less than '
               'or equal to %(maximum)s (the project\'s limit).')


class ReservationExpired(Conflict):
    msg_fmt = ('Quota reservation %(uuid)s expired before the request '
               'completed; nothing was created. Try again.')


# Scheduler filters and weighers (nova_lite/scheduler).

class PciInvalidAlias(ConfigInvalid):
    msg_fmt = 'Invalid [pci] alias definition: %(reason)s'


class ComputeHostMetricNotFound(NovaLiteException):
    msg_fmt = ('Metric %(name)s not found on compute host %(host)s node '
               '%(node)s: enable MetricsFilter or set [metrics] required '
               'to false.')


# Host aggregates, availability zones and server groups.

class AggregateNotFound(NotFound):
    msg_fmt = 'Aggregate %(aggregate_id)s could not be found.'


class AggregateNameExists(Conflict):
    msg_fmt = 'Aggregate %(aggregate_name)s already exists.'


class AggregateHostExists(Conflict):
    msg_fmt = 'Aggregate %(aggregate_id)s already has host %(host)s.'


class AggregateHostNotFound(NotFound):
    msg_fmt = 'Aggregate %(aggregate_id)s has no host %(host)s.'


class InvalidAggregateAction(Invalid):
    msg_fmt = ('Unacceptable parameters: cannot perform %(action)s on '
               'aggregate %(aggregate_id)s: %(reason)s')


class InvalidAggregateActionAdd(InvalidAggregateAction):
    msg_fmt = 'Cannot add host to aggregate %(aggregate_id)s: %(reason)s'


class InvalidAggregateActionDelete(InvalidAggregateAction):
    msg_fmt = 'Cannot remove aggregate %(aggregate_id)s: %(reason)s'


class InvalidAggregateActionUpdate(InvalidAggregateAction):
    msg_fmt = 'Cannot update aggregate %(aggregate_id)s: %(reason)s'


class InvalidAggregateActionUpdateMeta(InvalidAggregateAction):
    msg_fmt = ('Cannot update metadata of aggregate %(aggregate_id)s: '
               '%(reason)s')


class InstanceGroupNotFound(NotFound):
    msg_fmt = 'Instance group %(group_uuid)s could not be found.'


class InstanceGroupHintInvalid(Invalid):
    msg_fmt = ('Server group %(group)s given as scheduler hint "group" '
               'could not be found.')


class HostBinaryNotFound(NotFound):
    msg_fmt = 'Could not find binary %(binary)s on host %(host)s.'


# 503: a backend the API needs is unreachable; the client may retry.

# Seconds a client is told to wait (Retry-After): about what a broker or
# database failover, or a conductor restart, takes.
RETRY_AFTER = 5


class ServiceUnavailable(NovaLiteException):
    msg_fmt = ('%(what)s cannot be reached at the moment; retry in a few '
               'seconds.')
    code = 503
    safe = True
    headers = {'Retry-After': str(RETRY_AFTER)}


class HypervisorUptimeNotAvailable(NovaLiteException):
    msg_fmt = ('The compute of hypervisor %(hypervisor_id)s does not report '
               'its uptime: %(reason)s')
    code = 501
    safe = True


class ComputeServiceUnavailable(Invalid):
    """Nova's 400 for a question to a compute that is down."""
    msg_fmt = ('The compute service of host %(host)s is down; it cannot '
               'be asked at this time.')


class InstanceNotReady(Conflict):
    msg_fmt = ('Instance %(instance_id)s is not ready: it has no host yet.')


class DiagnosticsNotSupported(NovaLiteException):
    msg_fmt = ('The compute of server %(instance_uuid)s cannot report its '
               'diagnostics: %(reason)s')
    code = 501
    safe = True


class ComputeTooOldForDiagnostics(Invalid):
    """Nova's 400 when a compute cannot give 2.48's standardized
    diagnostics during an upgrade."""
    msg_fmt = ('The computes are pinned ([upgrade_levels] compute) below '
               'RPC version %(version)s, which standardized diagnostics '
               '(microversion 2.48) need; complete the upgrade first.')


class HostActionNotSupported(NovaLiteException):
    msg_fmt = ('The compute on %(host)s cannot do %(action)s: its driver '
               'has no such call.')
    code = 501
    safe = True


# A server's life: actions, key pairs, migrations (issue 9).

class InstanceActionInvalidState(Conflict):
    """An action the server's state forbids (the API's form of
    InstanceInvalidState, in Nova's words)."""
    msg_fmt = ("Cannot '%(action)s' instance %(instance_uuid)s while it is "
               "in %(attr)s %(state)s")


class InstanceIsLocked(Conflict):
    msg_fmt = 'Instance %(instance_uuid)s is locked'


class InstanceUnknownAction(Invalid):
    msg_fmt = 'There is no such action: %(action)s'


class NetworkNotFound(NotFound):
    msg_fmt = 'Network %(network_id)s could not be found.'


class FloatingIpNotFoundForAddress(NotFound):
    msg_fmt = 'Floating IP not found for address %(address)s.'


class FixedIpNotFoundForInstance(Invalid):
    msg_fmt = ('Instance %(instance_uuid)s does not have fixed IP '
               '%(address)s.')


class InstanceActionNotFound(NotFound):
    msg_fmt = ('Action for request_id %(request_id)s on instance '
               '%(instance_uuid)s not found')


class InstanceActionEventNotFound(NotFound):
    msg_fmt = 'Event %(event)s not found for action id %(action_id)s'


class KeypairNotFound(NotFound):
    msg_fmt = 'Keypair %(name)s not found for user %(user_id)s'


class KeyPairExists(Conflict):
    msg_fmt = "Key pair '%(key_name)s' already exists."


class InvalidKeypair(Invalid):
    msg_fmt = 'Keypair data is invalid: %(reason)s'


class MigrationNotFound(NotFound):
    msg_fmt = 'Migration %(migration_id)s could not be found.'


class MigrationNotFoundByStatus(MigrationNotFound):
    msg_fmt = ('Migration not found for instance %(instance_id)s with '
               'status %(status)s.')


class InstanceOperationFailed(NovaLiteException):
    msg_fmt = '%(operation)s of instance %(instance_uuid)s failed: %(reason)s'


class InstanceTaskTimedOut(NovaLiteException):
    msg_fmt = ('Instance %(instance_uuid)s was in task_state %(task_state)s '
               'for more than %(timeout)d seconds (host %(host)s): reset '
               'by the conductor.')
    code = 500


class ComputeTooOldForAction(Conflict):
    msg_fmt = ("Cannot '%(action)s' instance %(instance_uuid)s: the "
               "computes are pinned ([upgrade_levels] compute) below RPC "
               "version %(version)s, which that action needs; finish the "
               "upgrade first.")


class MetadataItemNotFound(NotFound):
    msg_fmt = 'Metadata item %(key)s was not found'


# Resize and cold migration (issue 9).

class CannotResizeToSameFlavor(Invalid):
    msg_fmt = 'When resizing, instances must change flavor!'


class CannotResizeDisk(Invalid):
    msg_fmt = 'Server disk was unable to be resized because: %(reason)s'


class CannotMigrateToSameHost(Invalid):
    msg_fmt = ('Cannot migrate to the host where the server exists: '
               '%(host)s.')


class InstanceNotResized(Invalid):
    msg_fmt = 'Instance %(instance_uuid)s has not been resized.'


# Rebuild and evacuate (issue 9).

class ComputeServiceInUse(Invalid):
    """Evacuate from a compute whose service is up (Nova answers 400)."""
    msg_fmt = 'Compute service of %(host)s is still in use.'


class EvacuateToSameHost(Invalid):
    msg_fmt = "The target host can't be the same one."


class EvacuateHostNotFound(NotFound):
    msg_fmt = 'Compute host %(host)s not found.'


class EvacuatePasswordOnSharedStorage(Invalid):
    msg_fmt = "admin password can't be changed on existing disk"


class EvacuateForceWithoutHost(Invalid):
    msg_fmt = "Can't force to a non-provided destination"


class RebuildImageNotFound(Invalid):
    msg_fmt = 'Cannot find requested image %(image_id)s.'
class UnshelveImageNotFound(NotFound):
    msg_fmt = ('Cannot unshelve instance %(instance_uuid)s: its shelved '
               'image %(image_id)s is gone.')


class UnshelveInstanceInvalidState(Conflict):
    msg_fmt = ('Specifying an availability zone or a host when unshelving '
               'server %(instance_uuid)s with status %(state)s is not '
               'supported. The server status must be SHELVED_OFFLOADED.')


class ImageMetadataLimitExceeded(NotAuthorized):
    msg_fmt = ('Quota exceeded for metadata_items: the image would have '
               '%(requested)d metadata items, at most %(allowed)d allowed.')


class UnshelveHostNotInAZ(Conflict):
    msg_fmt = ('Host "%(host)s" is not in the availability zone '
               '"%(availability_zone)s".')
class MigrationPreCheckError(NovaLiteException):
    msg_fmt = 'Migration pre-check error: %(reason)s'


class UnableToMigrateToSelf(Invalid):
    msg_fmt = ('Unable to migrate instance (%(instance_id)s) to current '
               'host (%(host)s).')


class LiveMigrationAborted(NovaLiteException):
    msg_fmt = 'The live migration of instance %(instance_uuid)s was aborted.'


class NoActiveLiveMigration(NovaLiteException):
    msg_fmt = 'No live migration of instance %(instance_uuid)s is running.'


class MigrationNotFoundForInstance(MigrationNotFound):
    msg_fmt = ('Migration %(migration_id)s not found for instance '
               '%(instance_id)s')


class InvalidMigrationState(Invalid):
    msg_fmt = ('Migration %(migration_id)s state of instance '
               '%(instance_uuid)s is %(state)s. Cannot %(method)s while the '
               'migration is in this state.')


class LiveMigrationNotInProgress(NotFound):
    msg_fmt = ('In-progress live migration %(migration_id)s is not found '
               'for server %(instance_uuid)s.')


class LiveMigrationNotPossible(Invalid):
    """The API's form (400, before 2.34) of a live migration that found
    no destination or whose destination refused it."""
    msg_fmt = '%(reason)s'


class ImageServiceUnavailable(NovaLiteException):
    msg_fmt = 'The image service is unavailable: %(reason)s'
    code = 503
    safe = True


# Server tags (compute API 2.26).
class InstanceTagNotFound(NotFound):
    msg_fmt = "Server %(server_id)s has no tag '%(tag)s'"


class TooManyInstanceTags(Invalid):
    msg_fmt = 'The number of tags exceeded the per-server limit %(limit)d'
