"""Options of the Glance image backend: ``[glance]``.

Used when ``[image] backend = glance``. Glance is found either at a fixed
endpoint or in the Keystone service catalog of the caller's token::

    [image]
    backend = glance

    [glance]
    # either a fixed endpoint ...
    endpoint_override = http://glance.example.org:9292
    # ... or a catalog look-up (the default when no endpoint is set)
    region_name = RegionOne
    valid_interfaces = internal,public
"""

from oslo_config import cfg

glance_group = cfg.OptGroup('glance', title='Glance options',
                            help='How the glance image backend reaches a '
                                 'Glance v2 API.')

glance_opts = [
    cfg.URIOpt('endpoint_override', schemes=['http', 'https'],
               help='The Glance API root URL (without /v2). When unset '
                    'the endpoint of service type service_type is taken '
                    "from the Keystone catalog of the caller's token, in "
                    'region_name, by the first of valid_interfaces found.'),
    cfg.StrOpt('service_type', default='image',
               help='The catalog service type of Glance.'),
    cfg.StrOpt('region_name',
               help='The catalog region to take Glance from; unset takes '
                    'the first region that has one.'),
    cfg.ListOpt('valid_interfaces', default=['internal', 'public'],
                help='Catalog interfaces to use, in order of preference.'),
    cfg.FloatOpt('timeout', default=30.0, min=0.1,
                 help='Seconds to wait for an answer from Glance before '
                      'the request fails (the API then answers 503).'),
    cfg.IntOpt('connect_retries', default=1, min=0,
                 help='How many times a failed connection to Glance is '
                      'retried before the request fails.'),
    cfg.IntOpt('cache_ttl', default=10, min=0,
               help="Seconds an image read from Glance (per token) is "
                    'reused for further look-ups of the same image: a '
                    'boot looks its image up several times. 0 disables '
                    'the cache. A write or delete through nova_lite '
                    'forgets the image at once.'),
    cfg.IntOpt('cache_size', default=1024, min=1,
               help='At most this many images are kept in the cache; the '
                    'oldest are dropped first.'),
    cfg.BoolOpt('insecure', default=False,
                help='Do not verify the TLS certificate of Glance.'),
    cfg.StrOpt('cafile',
               help='PEM bundle of CAs to verify the TLS certificate of '
                    'Glance with; unset uses the system CAs.'),
]


def register_opts(conf):
    conf.register_group(glance_group)
    conf.register_opts(glance_opts, group=glance_group)


def list_opts():
    return {glance_group: glance_opts}
