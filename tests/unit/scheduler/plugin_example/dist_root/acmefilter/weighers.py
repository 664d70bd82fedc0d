"""Custom weighers written as seed 000 describes ("writing your own
weigher"): one with ``weight_multiplier`` and ``_weigh_object``, one with
``weight_objects`` only. Nova-style code, nova_lite imports."""

from nova_lite.scheduler import weighers


class AcmeWeigher(weighers.BaseHostWeigher):
    """Prefers hosts with the highest ``acme_score`` stat."""

    def weight_multiplier(self, host_state):
        return 2.0

    def _weigh_object(self, host_state, weight_properties):
        return float(host_state.stats.get('acme_score', 0))


class AcmeRackWeigher(weighers.BaseHostWeigher):
    """Prefers hosts in the rack holding the fewest of the candidates:
    it needs every host to weigh one, so it overrides weight_objects."""

    def weight_objects(self, weighed_obj_list, weight_properties):
        racks = [w.obj.host.split('-')[0] for w in weighed_obj_list]
        return [-racks.count(rack) for rack in racks]
