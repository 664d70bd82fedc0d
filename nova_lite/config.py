"""Process start-up: parse configuration, set up logging, register objects."""

from oslo_log import log as logging
from oslo_reports import opts as gmr_opts

from nova_lite.conf import CONF
from nova_lite import objects
from nova_lite import version

_LOG_SETUP = False


def parse_args(argv, default_config_files=None, configure_logging=True,
               log_to_stderr=False):
    """Parse ``argv`` (without the program name) into CONF.

    Accepts oslo.config's --config-file and --config-dir. Safe to call
    once per process. ``log_to_stderr`` keeps standard output for a
    command's own answer (nova-lite-manage).
    """
    global _LOG_SETUP
    if not _LOG_SETUP:
        logging.register_options(CONF)
        # [oslo_reports]: where Guru Meditation reports go (service.py).
        gmr_opts.set_defaults(CONF)
        if log_to_stderr:
            CONF.set_default('use_stderr', True)
        logging.set_defaults(default_log_levels=logging.get_default_log_levels()
                             + ['cheroot=WARN', 'stevedore=WARN',
                                'alembic=WARN'])
    CONF(argv, project='nova_lite', version=version.version_string(),
         default_config_files=default_config_files)
    if configure_logging and not _LOG_SETUP:
        logging.setup(CONF, 'nova_lite')
        _LOG_SETUP = True
    objects.register_all()
