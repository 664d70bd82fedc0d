"""DiskFilter: only hosts with enough disk for the flavor (seed 002)."""

from nova_lite.scheduler import filters


def requested_disk_mb(flavor):
    """Root and ephemeral disks (GB) plus swap (MB), in MB."""
    return 1024 * (flavor.root_gb + flavor.ephemeral_gb) + flavor.swap


class BaseDiskFilter(filters.BaseHostFilter):
    """Passes hosts with enough usable disk for ``spec_obj.flavor``.

    usable = total_usable_disk_gb * 1024 * ratio - (total - free_disk_mb),
    in MB. A host passes when usable >= the flavor's root + ephemeral +
    swap and its physical disk alone could hold them (an instance may
    overcommit against others, never against itself). Subclasses choose
    the ratio.
    """

    population_twins = filters.BaseHostFilter.population_twins + (
        ('_get_disk_allocation_ratio', '_disk_ratio_population'),)

    def _get_disk_allocation_ratio(self, host_state, spec_obj):
        raise NotImplementedError()

    def _disk_ratio_population(self, population, spec_obj):
        """The ratio of every row (an array, or one number)."""
        raise NotImplementedError()

    def _usable_disk_mb(self, host_state, spec_obj):
        total = host_state.total_usable_disk_gb * 1024
        ratio = self._get_disk_allocation_ratio(host_state, spec_obj)
        return total * ratio - (total - host_state.free_disk_mb)

    def _passes(self, host_state, spec_obj, requested):
        if host_state.total_usable_disk_gb * 1024 < requested:
            return False
        return self._usable_disk_mb(host_state, spec_obj) >= requested

    def host_passes(self, host_state, spec_obj):
        return self._passes(host_state, spec_obj,
                            requested_disk_mb(spec_obj.flavor))

    def filter_all(self, host_states, spec_obj):
        # The flavor is read once, not per host.
        requested = requested_disk_mb(spec_obj.flavor)
        passes = self._passes
        return [h for h in host_states if passes(h, spec_obj, requested)]

    def filter_population(self, population, spec_obj):
        requested = requested_disk_mb(spec_obj.flavor)
        total = population.column('total_usable_disk_gb') * 1024
        ratio = self._disk_ratio_population(population, spec_obj)
        usable = total * ratio - (total - population.column('free_disk_mb'))
        return (total >= requested) & (usable >= requested)

    def rejection_reason(self, host_state, spec_obj):
        if self.host_passes(host_state, spec_obj):
            return None
        requested = requested_disk_mb(spec_obj.flavor)
        if host_state.total_usable_disk_gb * 1024 < requested:
            return 'have less than %d MB in all' % requested
        return 'need %d MB' % requested

    def summarize_rejections(self, host_states, spec_obj):
        return filters.summarize_capacity(
            host_states, requested_disk_mb(spec_obj.flavor),
            total=lambda h: h.total_usable_disk_gb * 1024,
            free=lambda h: self._usable_disk_mb(h, spec_obj), unit='MB',
            too_small='%d have less than %d MB in all')


class DiskFilter(BaseDiskFilter):
    """BaseDiskFilter with the ratio of the host's DISK_GB inventory."""

    def _get_disk_allocation_ratio(self, host_state, spec_obj):
        return host_state.disk_allocation_ratio

    def _disk_ratio_population(self, population, spec_obj):
        return population.column('disk_allocation_ratio')
