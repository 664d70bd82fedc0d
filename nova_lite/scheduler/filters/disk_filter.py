"""DiskFilter: only hosts with enough disk for the flavor (seed 002)."""

from nova_lite.scheduler import filters


def requested_disk_mb(flavor):
    """Root and ephemeral disks (GB) plus swap (MB), in MB."""
    return 1024 * (flavor.root_gb + flavor.ephemeral_gb) + flavor.swap


def usable_disk_mb(total_gb, free_mb, ratio):
    """The overcommitted total minus what is used and reserved, in MB."""
    total = total_gb * 1024
    return total * ratio - (total - free_mb)


def disk_rule(total_gb, free_mb, ratio, requested):
    """The disk rule, stated once for one host's numbers and for whole
    columns alike (numpy operands broadcast): ``(too_small, short)``,
    the host's own disk is less than ``requested`` MB, its usable disk
    is. A host passes when neither holds; the reason names the first."""
    return (total_gb * 1024 < requested,
            usable_disk_mb(total_gb, free_mb, ratio) < requested)


class BaseDiskFilter(filters.BaseHostFilter):
    """Passes hosts with enough usable disk for ``spec_obj.flavor``.

    usable = total_usable_disk_gb * 1024 * ratio - (total - free_disk_mb),
    in MB. A host passes when usable >= the flavor's root + ephemeral +
    swap and its physical disk alone could hold them (an instance may
    overcommit against others, never against itself). Subclasses choose
    the ratio.
    """

    # Its answer for a host depends on that host alone (see
    # BaseHostFilter.incremental).
    incremental = True

    population_twins = filters.BaseHostFilter.population_twins + (
        ('_get_disk_allocation_ratio', '_disk_ratio_population'),)

    def _get_disk_allocation_ratio(self, host_state, spec_obj):
        raise NotImplementedError()

    def _disk_ratio_population(self, population, spec_obj):
        """The ratio of every row (an array, or one number)."""
        raise NotImplementedError()

    def _usable_disk_mb(self, host_state, spec_obj):
        return usable_disk_mb(
            host_state.total_usable_disk_gb, host_state.free_disk_mb,
            self._get_disk_allocation_ratio(host_state, spec_obj))

    def _verdict(self, host_state, spec_obj):
        return disk_rule(host_state.total_usable_disk_gb,
                         host_state.free_disk_mb,
                         self._get_disk_allocation_ratio(host_state,
                                                         spec_obj),
                         requested_disk_mb(spec_obj.flavor))

    def host_passes(self, host_state, spec_obj):
        too_small, short = self._verdict(host_state, spec_obj)
        return not (too_small or short)

    def filter_population(self, population, spec_obj, among=None):
        too_small, short = disk_rule(
            population.column('total_usable_disk_gb'),
            population.column('free_disk_mb'),
            self._disk_ratio_population(population, spec_obj),
            requested_disk_mb(spec_obj.flavor))
        return ~(too_small | short)

    def rejection_reason(self, host_state, spec_obj):
        too_small, short = self._verdict(host_state, spec_obj)
        requested = requested_disk_mb(spec_obj.flavor)
        if too_small:
            return 'have less than %d MB in all' % requested
        if short:
            return 'need %d MB' % requested
        return None

    def summarize_rejections(self, host_states, spec_obj):
        return filters.summarize_capacity(
            host_states, requested_disk_mb(spec_obj.flavor),
            verdict=lambda h: self._verdict(h, spec_obj),
            free=lambda h: self._usable_disk_mb(h, spec_obj), unit='MB',
            too_small='%d have less than %d MB in all')


class DiskFilter(BaseDiskFilter):
    """BaseDiskFilter with the ratio of the host's DISK_GB inventory."""

    def _get_disk_allocation_ratio(self, host_state, spec_obj):
        return host_state.disk_allocation_ratio

    def _disk_ratio_population(self, population, spec_obj):
        return population.column('disk_allocation_ratio')
