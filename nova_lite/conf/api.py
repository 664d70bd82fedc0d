"""Options of the compute API service (``nova-lite-api``)."""

from oslo_config import cfg

api_group = cfg.OptGroup('api', title='API options',
                         help='Options of the compute API and its pipeline.')

listen_opts = [
    cfg.HostAddressOpt('osapi_compute_listen',
                       default='127.0.0.1',
                       help='Address the compute API listens on.'),
    cfg.PortOpt('osapi_compute_listen_port',
                default=8774,
                help='Port the compute API listens on.'),
]

api_opts = [
    cfg.StrOpt('auth_strategy',
               default='noauth2',
               choices=[('noauth2', 'X-Auth-Token "user:project"; the user '
                                    '"admin" is an administrator. For labs '
                                    'and tests only.'),
                        ('keystone', 'keystonemiddleware authtoken, then '
                                     'keystonecontext; configure '
                                     '[keystone_authtoken].')],
               help='How API requests are authenticated. Picks the '
                    'pipeline in api-paste.ini together with rate_limit.'),
    cfg.StrOpt('api_paste_config',
               default='api-paste.ini',
               help='The paste.deploy file that defines the pipeline. A '
                    'relative name is looked up next to the config files, '
                    'then in the installed etc/nova_lite.'),
    cfg.BoolOpt('rate_limit',
                default=True,
                help='Keep the per-user leaky-bucket rate limiter in the '
                     'pipeline. False drops it, like the seed\'s '
                     '"keystone_nolimit" pipeline.'),
    cfg.StrOpt('rate_limits',
               default='(POST, *, .*, 120, MINUTE);'
                       '(POST, */servers, ^/servers, 120, MINUTE);'
                       '(PUT, *, .*, 120, MINUTE);'
                       '(GET, *changes-since*, .*changes-since.*, 120, '
                       'MINUTE);'
                       '(DELETE, *, .*, 120, MINUTE)',
               help='Default limits for every user: a semicolon-separated '
                    'list of "(VERB, human URI, URI regex, count, UNIT)" '
                    'groups, UNIT being SECOND, MINUTE, HOUR or DAY. Each '
                    'group is a leaky bucket of the given capacity per '
                    'user. An empty string means no limits.'),
    cfg.MultiStrOpt('user_rate_limits',
                    default=[],
                    help='Per-user limits that replace rate_limits for one '
                         'user, as "USER_ID=LIMITS" with LIMITS in the '
                         'rate_limits grammar. Repeat for several users.'),
    cfg.IntOpt('max_request_body_size',
               default=114688, min=1,
               help='Largest request body, in bytes, the API accepts; a '
                    'larger one gets 413.'),
    cfg.IntOpt('max_header_line',
               default=16384, min=256,
               help='Longest request header line, in bytes, that '
                    'nova-lite-api\'s own server (cheroot) reads; a longer '
                    'one, or headers beyond max_request_header_size in '
                    'all, gets 431. Raise it for large Keystone tokens (PKI '
                    'tokens with big catalogs). Not used under another '
                    'WSGI server, which has its own limits.'),
    cfg.IntOpt('max_request_header_size',
               default=65536, min=1024,
               help='Most bytes of request line and headers together that '
                    'nova-lite-api\'s own server reads before it answers '
                    '431; at least max_header_line.'),
    cfg.BoolOpt('use_forwarded_for',
                default=False,
                help='Take the client address from X-Forwarded-For. Only '
                     'behind a proxy that sets it.'),
    cfg.IntOpt('max_limit',
               default=1000, min=1,
               help='Most items one list request returns; a larger '
                    '"limit" is cut to this.'),
    cfg.IntOpt('backlog',
               default=4096, min=1,
               help='Connections the kernel queues for the API before it '
                    'accepts them (the listen backlog). Too small a value '
                    'makes a burst of clients see connection resets; the '
                    'kernel caps it at net.core.somaxconn.'),
    cfg.IntOpt('write_attempt_timeout', mutable=True,
               default=5, min=1,
               help='Seconds each attempt at one of the API\'s writes that '
                    'can be sent again (an instance, migration or instance '
                    'action save) waits for the conductor\'s answer. An '
                    'unanswered one (a conductor killed while it held '
                    'the call, a lost reply) is read back where it is '
                    'conditional and sent again, up to write_attempts '
                    'times, so a killed conductor costs a request seconds '
                    'and never leaves a server in a task nothing will '
                    'do. Other writes are sent once and wait '
                    'write_attempt_timeout times write_attempts.'),
    cfg.IntOpt('write_attempts', mutable=True,
               default=3, min=1,
               help='Attempts at a write that can be sent again (see '
                    'write_attempt_timeout) before the request is answered '
                    '503 with Retry-After.'),
    cfg.IntOpt('provision_attempt_timeout', mutable=True,
               default=15, min=1,
               help='Seconds each attempt at a server create waits for the '
                    'conductor to write its records. Unanswered (a conductor '
                    'killed while it held the call, a lost reply), the '
                    'create is sent again under the same request key, which '
                    'returns the servers of an attempt that did commit '
                    'instead of making more; after write_attempts attempts '
                    'the request is answered 503 with Retry-After. While a '
                    'conductor older than RPC 1.7 may take the call it is '
                    'sent once and waits rpc_response_timeout. Raise it if '
                    'creates of very many servers at once time out.'),
    cfg.IntOpt('server_threads',
               default=32, min=1,
               help='Worker threads of the API\'s WSGI server (cheroot): '
                    'requests served at once by one nova-lite-api process.'),
    cfg.IntOpt('workers',
               default=1, min=1,
               help='nova-lite-api worker processes, forked once the '
                    'configuration is loaded and the listening socket is '
                    'made; they accept from that one socket, each with its '
                    'own server_threads, database pool and RPC connection, '
                    'so the API can use more than one core (the threads of '
                    'one process share one interpreter lock). The service '
                    'tells systemd it is ready once every worker listens; '
                    'a worker that dies is restarted while the others '
                    'serve, and SIGTERM stops them all. Up to the number '
                    'of cores is useful.'),
]


def register_opts(conf):
    conf.register_opts(listen_opts)
    conf.register_group(api_group)
    conf.register_opts(api_opts, group=api_group)


def list_opts():
    return {'DEFAULT': listen_opts, api_group: api_opts}
