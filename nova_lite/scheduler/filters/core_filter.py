"""CoreFilter: only hosts with enough VCPUs for the flavor (seed 002)."""

from nova_lite.scheduler import filters


class BaseCoreFilter(filters.BaseHostFilter):
    """Passes hosts with enough free VCPUs for ``spec_obj.flavor``.

    free = vcpus_total * ratio - vcpus_used. A host passes when free >=
    the flavor's vcpus and the flavor has no more vcpus than the host has
    physical CPUs (an instance may overcommit against others, never
    against itself). A host reporting no CPUs at all passes, as in Nova:
    the placement step already rejects hosts without VCPU inventory.
    Subclasses choose the ratio.
    """

    population_twins = filters.BaseHostFilter.population_twins + (
        ('_get_cpu_allocation_ratio', '_cpu_ratio_population'),)

    def _get_cpu_allocation_ratio(self, host_state, spec_obj):
        raise NotImplementedError()

    def _cpu_ratio_population(self, population, spec_obj):
        """The ratio of every row (an array, or one number)."""
        raise NotImplementedError()

    def _free_vcpus(self, host_state, spec_obj):
        ratio = self._get_cpu_allocation_ratio(host_state, spec_obj)
        return host_state.vcpus_total * ratio - host_state.vcpus_used

    def _passes(self, host_state, spec_obj, requested):
        if not host_state.vcpus_total:
            return True
        if requested > host_state.vcpus_total:
            return False
        return self._free_vcpus(host_state, spec_obj) >= requested

    def host_passes(self, host_state, spec_obj):
        return self._passes(host_state, spec_obj, spec_obj.flavor.vcpus)

    def filter_all(self, host_states, spec_obj):
        # The flavor is read once, not per host.
        requested = spec_obj.flavor.vcpus
        passes = self._passes
        return [h for h in host_states if passes(h, spec_obj, requested)]

    def filter_population(self, population, spec_obj):
        requested = spec_obj.flavor.vcpus
        total = population.column('vcpus_total')
        ratio = self._cpu_ratio_population(population, spec_obj)
        free = total * ratio - population.column('vcpus_used')
        return (total == 0) | ((requested <= total) & (free >= requested))

    def rejection_reason(self, host_state, spec_obj):
        if self.host_passes(host_state, spec_obj):
            return None
        requested = spec_obj.flavor.vcpus
        if requested > host_state.vcpus_total:
            return 'have fewer than %d CPUs' % requested
        return 'need %d VCPU' % requested

    def summarize_rejections(self, host_states, spec_obj):
        return filters.summarize_capacity(
            host_states, spec_obj.flavor.vcpus,
            total=lambda h: h.vcpus_total,
            free=lambda h: self._free_vcpus(h, spec_obj), unit='VCPU',
            too_small='%d have fewer than %d CPUs')


class CoreFilter(BaseCoreFilter):
    """BaseCoreFilter with the ratio of the host's VCPU inventory."""

    def _get_cpu_allocation_ratio(self, host_state, spec_obj):
        return host_state.cpu_allocation_ratio

    def _cpu_ratio_population(self, population, spec_obj):
        return population.column('cpu_allocation_ratio')
