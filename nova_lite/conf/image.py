"""Options of the image service: ``[image]``.

Which image backend serves every image look-up (boots, rebuilds,
unshelves, snapshots and the API's /images)::

    [image]
    backend = glance      # the [glance] section then says where it is
"""

from oslo_config import cfg

image_group = cfg.OptGroup('image', title='Image service options',
                           help='Where nova_lite finds its images.')

image_opts = [
    cfg.StrOpt('backend', default='registry',
               choices=[('registry', "nova_lite's embedded image registry "
                                     '(images registered with '
                                     '"nova-lite-manage image create"; '
                                     'snapshots are rows of its database)'),
                        ('glance', 'a Glance v2 image service, reached '
                                   "with the caller's token as the "
                                   '[glance] options say')],
               help='The image backend, loaded by name from the '
                    'nova_lite.image.backends entry points. Every process '
                    'that looks images up (API, conductor) must use the '
                    'same one.'),
]


def register_opts(conf):
    conf.register_group(image_group)
    conf.register_opts(image_opts, group=image_group)


def list_opts():
    return {image_group: image_opts}
