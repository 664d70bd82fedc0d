"""ImagePropertiesWeigher: pack or spread instances by their images'
properties."""

import numpy as np

from nova_lite.conf import CONF
from nova_lite.scheduler import utils
from nova_lite.scheduler.weighers import rules


def _pairs(properties):
    # Values may be lists (unhashable) or typed; compare their text.
    return {(key, str(value)) for key, value in (properties or {}).items()
            if value is not None}


def requested_pairs(spec_obj):
    """{(property, value as text)} of the request's image."""
    props = utils.image_props(spec_obj)
    if props is None:
        return set()
    to_dict = getattr(props, 'to_dict', None)
    return _pairs(to_dict() if to_dict else props)


class ImagePropertiesWeigher(rules.AggregateMultiplier):
    """Weighs a host by how many of the request image's properties the
    images of its instances (``host_state.instances[...]
    .image_properties``) share, summed over the instances.

    With ``image_props_weight_setting`` empty each shared property counts
    1; otherwise only the properties it lists count, each by its ratio
    ("os_distro=10, os_secure_boot=1, os_require_quiesce=0"). A positive
    ``image_props_weight_multiplier`` packs like images together, a
    negative one spreads them; the default 0.0 turns the weigher off
    (nothing is computed while every host's multiplier is 0.0).
    """

    multiplier_key = 'image_props_weight_multiplier'

    @staticmethod
    def _setting():
        return dict(utils.parse_options(
            CONF.filter_scheduler.image_props_weight_setting,
            converter=float,
            name='[filter_scheduler] image_props_weight_setting'))

    def weight_objects(self, weighed_obj_list, weight_properties):
        if not any(self.weight_multiplier(w.obj) for w in weighed_obj_list):
            # Off by default, and costly: skip it unless some host's
            # multiplier (the option or its aggregates') turns it on.
            return [0.0] * len(weighed_obj_list)
        wanted = requested_pairs(weight_properties)
        setting = self._setting()
        return [self._weigh(w.obj, wanted, setting) for w in weighed_obj_list]

    def weigh_population(self, population, spec_obj, among=None):
        multiplier = self.multiplier_population(population)
        if among is None:
            among = population.mask()
        if not np.any(multiplier if np.ndim(multiplier) == 0
                      else multiplier[among]):
            return 0.0
        # Weighed host by host (weigh_objects) when turned on.
        return None

    def _weigh_object(self, host_state, weight_properties):
        return self._weigh(host_state, requested_pairs(weight_properties),
                           self._setting())

    @staticmethod
    def _weigh(host_state, wanted, setting):
        if not wanted:
            return 0.0
        weight = 0.0
        instances = getattr(host_state, 'instances', None) or {}
        for instance in instances.values():
            shared = wanted & _pairs(getattr(instance, 'image_properties',
                                             None))
            if setting:
                weight += sum(setting.get(key, 0.0) for key, _v in shared)
            else:
                weight += len(shared)
        return weight
