"""Options of the quota engine ([quota]).

Limits: a project's limit of a resource comes from, in order, a per-user
override (``os-quota-sets`` with ``user_id``), a per-project override
(``os-quota-sets``), the quota class ``default`` (``os-quota-class-sets``)
and finally these options. -1 means unlimited everywhere.
"""

from oslo_config import cfg

quota_group = cfg.OptGroup('quota', title='Quota options', help="""
Quota limits, reservations and the refresh of recorded usage.
""")

limit_opts = [
    cfg.IntOpt('instances',
               default=10, min=-1,
               help='Servers a project may have (any state but deleted). '
                    '-1 means unlimited. Used when neither the project, '
                    'the user nor the quota class "default" sets one.'),
    cfg.IntOpt('cores',
               default=20, min=-1,
               help='VCPUs, summed over the flavors of a project\'s '
                    'servers. -1 means unlimited.'),
    cfg.IntOpt('ram',
               default=50 * 1024, min=-1,
               help='Megabytes of RAM of a project\'s servers: each '
                    'flavor\'s memory_mb plus its video RAM (extra spec '
                    'hw_video:ram_max_mb). -1 means unlimited.'),
    cfg.IntOpt('metadata_items',
               default=128, min=-1,
               help='Metadata key/value pairs one server may carry. An '
                    'absolute limit, checked per request; -1 means '
                    'unlimited.'),
    cfg.IntOpt('server_groups',
               default=10, min=-1,
               help='Server groups a project may have. -1 means '
                    'unlimited.'),
    cfg.IntOpt('key_pairs',
               default=100, min=-1,
               help='Key pairs one user may have. Counted when a key pair '
                    'is created or imported; -1 means unlimited.'),
    cfg.IntOpt('server_group_members',
               default=10, min=-1,
               help='Servers one server group may hold. Counted when '
                    'servers join a group; -1 means unlimited.'),
]

reservation_opts = [
    cfg.IntOpt('reservation_expire',
               default=86400, min=1,
               help='Seconds a quota reservation lives. The conductor '
                    'commits a boot\'s reservation once the server '
                    'records exist; one left behind (a conductor killed '
                    'in between) is rolled back by a conductor periodic '
                    'task once this old, freeing the quota it held. Keep '
                    'it well above rpc_response_timeout. A reservation '
                    'nobody commits is usually rolled back much sooner, '
                    'after reservation_commit_timeout.'),
    cfg.IntOpt('reservation_commit_timeout',
               default=45, min=1,
               help='Seconds a reservation may wait for its commit. The '
                    'conductor that reserved commits within the request '
                    'that reserved (milliseconds, normally); one still '
                    'uncommitted after this long belongs to a conductor '
                    'that died, or to a request whose caller already gave '
                    'up (the API waits rpc_response_timeout), and the '
                    'expiry task rolls it back then, so a killed conductor '
                    'holds quota for about a minute rather than until '
                    'reservation_expire. A request that does reach its '
                    'commit later fails cleanly (nothing is written). '
                    'Keep it above the time the largest multi-create '
                    'takes to write its records.'),
    cfg.IntOpt('reservation_expire_check_interval',
               default=15, min=1,
               help='Seconds between runs of the conductor periodic task '
                    'that rolls back expired reservations (see '
                    'reservation_expire and reservation_commit_timeout).'),
    cfg.IntOpt('until_refresh',
               default=0, min=0,
               help='Recount a project\'s usage from its servers after '
                    'this many reservations touched a usage record. 0 '
                    'never recounts on this account (see max_age; usage '
                    'is also recounted whenever it is unknown, and before '
                    'any request is refused).'),
    cfg.IntOpt('max_age',
               default=0, min=0,
               help='Recount a project\'s usage at its next reservation '
                    'once the last count is at least this many seconds '
                    'old (whole seconds; days count). 0 disables it.'),
    cfg.BoolOpt('flush_reservations',
                default=False,
                help='PostgreSQL: whether the transaction that reserves '
                     'quota waits for its WAL flush before it returns '
                     '(synchronous_commit). It waits with its project\'s '
                     'usage rows locked, and its project\'s reservations '
                     'queue on those rows, so false (the default) lets '
                     'one project reserve about twice as fast. Nothing '
                     'inexact can come of it: the usage and the '
                     'reservation\'s rows are one transaction, and '
                     'everything that commits it or builds on it flushes '
                     'it first, so a database crash can only lose a '
                     'reservation nobody committed yet (its boot then '
                     'fails as if it had expired). Commits, rollbacks '
                     'and releases always wait for their flush. Other '
                     'backends ignore it.'),
    cfg.IntOpt('reservation_commit_delay',
               default=0, min=0,
               help='Fault injection for tests, never for production: '
                    'seconds the conductor sleeps after reserving quota '
                    'for a boot and before writing its records and '
                    'committing the reservation, so a test can kill it '
                    'in between. 0 (the default) does not sleep.'),
]

ALL_OPTS = limit_opts + reservation_opts


def register_opts(conf):
    conf.register_group(quota_group)
    conf.register_opts(ALL_OPTS, group=quota_group)


def list_opts():
    return {quota_group: ALL_OPTS}
