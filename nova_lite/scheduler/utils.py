"""Small helpers shared by filters and weighers."""


def get_weight_multiplier(host_state, multiplier_name, multiplier_config):
    """The multiplier of weigher option ``multiplier_name`` for a host.

    This is the single hook for per-aggregate overrides: Nova (since Stein)
    takes the smallest ``multiplier_name`` value found in the metadata of
    the host's aggregates, falling back to ``multiplier_config``. Until
    host aggregates carry metadata here, every host gets the configured
    value.
    """
    return multiplier_config
