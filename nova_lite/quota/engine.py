"""The quota decisions, as pure functions of limits, usage and the clock.

No database here: ``reservations`` and ``usages`` read and lock the rows,
then ask these functions what to do, so every rule is unit-tested with
plain objects and a clock the test controls.

A usage record is anything with ``in_use`` (-1: unknown), ``reserved``,
``until_refresh`` (None: off) and ``refreshed_at`` (None: never counted).
"""

import dataclasses

from nova_lite import exception

UNLIMITED = -1


@dataclasses.dataclass(frozen=True)
class Check:
    """One limit a request must fit: ``resource`` at ``level`` ('project'
    or 'user'), ``limit`` (-1 unlimited) and ``used`` (in use plus
    reserved)."""
    resource: str
    level: str
    limit: int
    used: int


def age_seconds(then, now):
    """Whole seconds from ``then`` to ``now``, days included (Nova took
    ``timedelta.seconds``, which drops whole days)."""
    return int((now - then).total_seconds())


def tick(usage):
    """Count one reservation against ``usage.until_refresh``."""
    if usage.until_refresh is not None:
        usage.until_refresh -= 1


def refresh_due(usage, now, max_age):
    """Whether ``usage`` must be recounted before it is trusted.

    True when it is unknown (in_use < 0), when its until_refresh counter
    ran out, or when ``max_age`` (seconds, 0 off) has passed since it was
    last counted (or it never was).
    """
    if usage.in_use < 0:
        return True
    if usage.until_refresh is not None and usage.until_refresh <= 0:
        return True
    if max_age:
        return (usage.refreshed_at is None
                or age_seconds(usage.refreshed_at, now) >= max_age)
    return False


def fits(limit, used, amount):
    return limit == UNLIMITED or used + amount <= limit


def how_many_fit(per_unit, min_count, max_count, checks):
    """The largest count in [min_count, max_count] whose usage fits every
    check; ``per_unit`` is {resource: amount per unit requested}.

    Raises OverQuota naming every resource that refuses ``min_count``.
    """
    count = max_count
    for check in checks:
        amount = per_unit.get(check.resource, 0)
        if amount <= 0 or check.limit == UNLIMITED:
            continue
        count = min(count, max(check.limit - check.used, 0) // amount)
    if count >= min_count:
        return count
    raise over_quota(per_unit, min_count, checks)


def over_quota(per_unit, count, checks):
    """The OverQuota of a request for ``count`` units: per refusing
    resource, the amount requested, the usage and the limit (the
    tightest level's when both refuse)."""
    refused = {}
    for check in checks:
        amount = per_unit.get(check.resource, 0) * count
        if amount <= 0 or fits(check.limit, check.used, amount):
            continue
        known = refused.get(check.resource)
        if known is None or (check.limit - check.used
                             < known.limit - known.used):
            refused[check.resource] = check
    resources = sorted(refused)
    requested = {r: per_unit[r] * count for r in resources}
    details = '; '.join(
        'Requested %d, but already used %d of %d %s%s' % (
            requested[r], refused[r].used, refused[r].limit, r,
            ' (user quota)' if refused[r].level == 'user' else '')
        for r in resources)
    return exception.OverQuota(
        overs=', '.join(resources), details=details, requested=requested,
        used={r: refused[r].used for r in resources},
        limits={r: refused[r].limit for r in resources})


def released(in_use, amount):
    """``in_use`` after releasing ``amount``; -1 (unknown, recounted at
    the next reservation) if that would go below zero (an "under": the
    record had drifted)."""
    if in_use < 0 or in_use - amount < 0:
        return -1
    return in_use - amount


def check_new_limit(resource, limit, minimum, maximum):
    """Raise InvalidQuotaLimit unless ``limit`` is in [minimum, maximum]
    (-1 counting as infinity on both sides)."""
    def inf(value):
        return float('inf') if value == UNLIMITED else value
    if inf(limit) < inf(minimum):
        raise exception.QuotaLimitBelowUsage(resource=resource,
                                             limit=limit, minimum=minimum)
    if inf(limit) > inf(maximum):
        raise exception.QuotaLimitAboveProject(resource=resource,
                                               limit=limit, maximum=maximum)
