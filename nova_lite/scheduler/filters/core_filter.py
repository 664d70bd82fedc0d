"""CoreFilter: only hosts with enough VCPUs for the flavor (seed 002)."""

from nova_lite.scheduler import filters


def free_vcpus(total, used, ratio):
    """The overcommitted CPUs minus those in use."""
    return total * ratio - used


def cpu_rule(total, used, ratio, requested):
    """The CPU rule, stated once for one host's numbers and for whole
    columns alike (numpy operands broadcast): ``(too_small, short)``,
    the flavor has more vCPUs than the host has CPUs, the host has too
    few free. A host reporting no CPUs is neither (the placement step
    already rejects hosts without VCPU inventory)."""
    reports = total != 0
    return (reports & (requested > total),
            reports & (free_vcpus(total, used, ratio) < requested))


class BaseCoreFilter(filters.BaseHostFilter):
    """Passes hosts with enough free VCPUs for ``spec_obj.flavor``.

    free = vcpus_total * ratio - vcpus_used. A host passes when free >=
    the flavor's vcpus and the flavor has no more vcpus than the host has
    physical CPUs (an instance may overcommit against others, never
    against itself). A host reporting no CPUs at all passes, as in Nova:
    the placement step already rejects hosts without VCPU inventory.
    Subclasses choose the ratio.
    """

    # Its answer for a host depends on that host alone (see
    # BaseHostFilter.incremental).
    incremental = True

    population_twins = filters.BaseHostFilter.population_twins + (
        ('_get_cpu_allocation_ratio', '_cpu_ratio_population'),)

    def _get_cpu_allocation_ratio(self, host_state, spec_obj):
        raise NotImplementedError()

    def _cpu_ratio_population(self, population, spec_obj):
        """The ratio of every row (an array, or one number)."""
        raise NotImplementedError()

    def _free_vcpus(self, host_state, spec_obj):
        return free_vcpus(
            host_state.vcpus_total, host_state.vcpus_used,
            self._get_cpu_allocation_ratio(host_state, spec_obj))

    def _verdict(self, host_state, spec_obj):
        return cpu_rule(host_state.vcpus_total, host_state.vcpus_used,
                        self._get_cpu_allocation_ratio(host_state, spec_obj),
                        spec_obj.flavor.vcpus)

    def host_passes(self, host_state, spec_obj):
        too_small, short = self._verdict(host_state, spec_obj)
        return not (too_small or short)

    def filter_population(self, population, spec_obj, among=None):
        too_small, short = cpu_rule(
            population.column('vcpus_total'),
            population.column('vcpus_used'),
            self._cpu_ratio_population(population, spec_obj),
            spec_obj.flavor.vcpus)
        return ~(too_small | short)

    def rejection_reason(self, host_state, spec_obj):
        too_small, short = self._verdict(host_state, spec_obj)
        requested = spec_obj.flavor.vcpus
        if too_small:
            return 'have fewer than %d CPUs' % requested
        if short:
            return 'need %d VCPU' % requested
        return None

    def summarize_rejections(self, host_states, spec_obj):
        return filters.summarize_capacity(
            host_states, spec_obj.flavor.vcpus,
            verdict=lambda h: self._verdict(h, spec_obj),
            free=lambda h: self._free_vcpus(h, spec_obj), unit='VCPU',
            too_small='%d have fewer than %d CPUs')


class CoreFilter(BaseCoreFilter):
    """BaseCoreFilter with the ratio of the host's VCPU inventory."""

    def _get_cpu_allocation_ratio(self, host_state, spec_obj):
        return host_state.cpu_allocation_ratio

    def _cpu_ratio_population(self, population, spec_obj):
        return population.column('cpu_allocation_ratio')
