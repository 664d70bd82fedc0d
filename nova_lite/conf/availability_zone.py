"""Options of availability zones (``[DEFAULT]``, Nova's names).

An availability zone is the ``availability_zone`` metadata of a host
aggregate: a compute host is in the zone of its aggregates, or in
``default_availability_zone`` when none of them names one.
"""

from oslo_config import cfg

az_opts = [
    cfg.StrOpt('default_availability_zone',
               default='nova',
               help='Availability zone of compute hosts that are in no '
                    'aggregate with availability_zone metadata. Requests '
                    'for this zone are not narrowed by the zone '
                    'prefilter (no aggregate defines it), so they may '
                    'land on any host, as in Nova.'),
    cfg.StrOpt('internal_service_availability_zone',
               default='internal',
               help='Zone shown for the services that are not computes '
                    '(conductor, scheduler). No aggregate may use this '
                    'name as its availability zone.'),
]


def register_opts(conf):
    conf.register_opts(az_opts)


def list_opts():
    return {'DEFAULT': az_opts}
