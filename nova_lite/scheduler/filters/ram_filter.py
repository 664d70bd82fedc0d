"""RamFilter: only hosts with enough RAM for the flavor (seed 002)."""

from nova_lite.scheduler import filters


class BaseRamFilter(filters.BaseHostFilter):
    """Passes hosts with enough usable RAM for ``spec_obj.flavor``.

    usable = total_usable_ram_mb * ratio - (total_usable_ram_mb -
    free_ram_mb), i.e. the overcommitted total minus what is used and
    reserved. A host passes when usable >= the flavor's memory_mb and its
    physical RAM alone could hold the flavor (an instance may overcommit
    against other instances, never against itself). Subclasses choose the
    ratio.
    """

    population_twins = filters.BaseHostFilter.population_twins + (
        ('_get_ram_allocation_ratio', '_ram_ratio_population'),)

    def _get_ram_allocation_ratio(self, host_state, spec_obj):
        raise NotImplementedError()

    def _ram_ratio_population(self, population, spec_obj):
        """The ratio of every row (an array, or one number)."""
        raise NotImplementedError()

    def _usable_ram_mb(self, host_state, spec_obj):
        total = host_state.total_usable_ram_mb
        ratio = self._get_ram_allocation_ratio(host_state, spec_obj)
        return total * ratio - (total - host_state.free_ram_mb)

    def _passes(self, host_state, spec_obj, requested):
        if host_state.total_usable_ram_mb < requested:
            return False
        return self._usable_ram_mb(host_state, spec_obj) >= requested

    def host_passes(self, host_state, spec_obj):
        return self._passes(host_state, spec_obj, spec_obj.flavor.memory_mb)

    def filter_all(self, host_states, spec_obj):
        # The flavor is read once, not per host.
        requested = spec_obj.flavor.memory_mb
        passes = self._passes
        return [h for h in host_states if passes(h, spec_obj, requested)]

    def filter_population(self, population, spec_obj):
        requested = spec_obj.flavor.memory_mb
        total = population.column('total_usable_ram_mb')
        ratio = self._ram_ratio_population(population, spec_obj)
        usable = total * ratio - (total - population.column('free_ram_mb'))
        return (total >= requested) & (usable >= requested)

    def rejection_reason(self, host_state, spec_obj):
        requested = spec_obj.flavor.memory_mb
        if host_state.total_usable_ram_mb < requested:
            return 'have less than %d MB in all' % requested
        usable = self._usable_ram_mb(host_state, spec_obj)
        if usable < requested:
            return 'need %d MB' % requested
        return None

    def summarize_rejections(self, host_states, spec_obj):
        return filters.summarize_capacity(
            host_states, spec_obj.flavor.memory_mb,
            total=lambda h: h.total_usable_ram_mb,
            free=lambda h: self._usable_ram_mb(h, spec_obj), unit='MB',
            too_small='%d have less than %d MB in all')


class RamFilter(BaseRamFilter):
    """BaseRamFilter with the ratio of the host's MEMORY_MB inventory."""

    def _get_ram_allocation_ratio(self, host_state, spec_obj):
        return host_state.ram_allocation_ratio

    def _ram_ratio_population(self, population, spec_obj):
        return population.column('ram_allocation_ratio')
