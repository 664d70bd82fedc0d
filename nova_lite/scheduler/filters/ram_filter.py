"""RamFilter: only hosts with enough RAM for the flavor (seed 002)."""

from nova_lite.scheduler import filters


def usable_ram_mb(total, free, ratio):
    """The overcommitted total minus what is used and reserved."""
    return total * ratio - (total - free)


def ram_rule(total, free, ratio, requested):
    """The RAM rule, stated once for one host's numbers and for whole
    columns alike (numpy operands broadcast): ``(too_small, short)``,
    the host's own RAM is less than ``requested``, its usable RAM is.
    A host passes when neither holds; the reason names the first."""
    return (total < requested,
            usable_ram_mb(total, free, ratio) < requested)


class BaseRamFilter(filters.BaseHostFilter):
    """Passes hosts with enough usable RAM for ``spec_obj.flavor``.

    usable = total_usable_ram_mb * ratio - (total_usable_ram_mb -
    free_ram_mb), i.e. the overcommitted total minus what is used and
    reserved. A host passes when usable >= the flavor's memory_mb and its
    physical RAM alone could hold the flavor (an instance may overcommit
    against other instances, never against itself). Subclasses choose the
    ratio.
    """

    # Its answer for a host depends on that host alone (see
    # BaseHostFilter.incremental).
    incremental = True

    population_twins = filters.BaseHostFilter.population_twins + (
        ('_get_ram_allocation_ratio', '_ram_ratio_population'),)

    def _get_ram_allocation_ratio(self, host_state, spec_obj):
        raise NotImplementedError()

    def _ram_ratio_population(self, population, spec_obj):
        """The ratio of every row (an array, or one number)."""
        raise NotImplementedError()

    def _usable_ram_mb(self, host_state, spec_obj):
        return usable_ram_mb(
            host_state.total_usable_ram_mb, host_state.free_ram_mb,
            self._get_ram_allocation_ratio(host_state, spec_obj))

    def _verdict(self, host_state, spec_obj):
        return ram_rule(host_state.total_usable_ram_mb,
                        host_state.free_ram_mb,
                        self._get_ram_allocation_ratio(host_state, spec_obj),
                        spec_obj.flavor.memory_mb)

    def host_passes(self, host_state, spec_obj):
        too_small, short = self._verdict(host_state, spec_obj)
        return not (too_small or short)

    def filter_population(self, population, spec_obj, among=None):
        too_small, short = ram_rule(
            population.column('total_usable_ram_mb'),
            population.column('free_ram_mb'),
            self._ram_ratio_population(population, spec_obj),
            spec_obj.flavor.memory_mb)
        return ~(too_small | short)

    def rejection_reason(self, host_state, spec_obj):
        too_small, short = self._verdict(host_state, spec_obj)
        requested = spec_obj.flavor.memory_mb
        if too_small:
            return 'have less than %d MB in all' % requested
        if short:
            return 'need %d MB' % requested
        return None

    def summarize_rejections(self, host_states, spec_obj):
        return filters.summarize_capacity(
            host_states, spec_obj.flavor.memory_mb,
            verdict=lambda h: self._verdict(h, spec_obj),
            free=lambda h: self._usable_ram_mb(h, spec_obj), unit='MB',
            too_small='%d have less than %d MB in all')


class RamFilter(BaseRamFilter):
    """BaseRamFilter with the ratio of the host's MEMORY_MB inventory."""

    def _get_ram_allocation_ratio(self, host_state, spec_obj):
        return host_state.ram_allocation_ratio

    def _ram_ratio_population(self, population, spec_obj):
        return population.column('ram_allocation_ratio')
