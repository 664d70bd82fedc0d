"""Small JSON files a compute host keeps under [DEFAULT] state_path.

The fake driver keeps its node identities here and the resource tracker
the traits it last reported, so both survive a restart. Writes are atomic
(a temporary file renamed over the old one), so a crash leaves either the
old or the new content, never half of one.
"""

import json
import os
import tempfile

from nova_lite.conf import CONF
from nova_lite import exception


def state_file(subdir, host):
    """Path of ``host``'s file in ``subdir`` of [DEFAULT] state_path."""
    safe_host = host.replace(os.sep, '_')
    return os.path.join(CONF.state_path, subdir, '%s.json' % safe_host)


def load(path):
    """Return the dict stored at ``path``, or {} if there is no file.

    Raises ConfigInvalid naming the file when it cannot be read or is not
    a JSON object: silently starting over would change identities.
    """
    try:
        with open(path, encoding='utf-8') as f:
            data = json.load(f)
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise exception.ConfigInvalid(
            reason='state file %s is unreadable (%s); restore it or remove '
                   'it to start over' % (path, exc))
    if not isinstance(data, dict):
        raise exception.ConfigInvalid(
            reason='state file %s does not hold a JSON object' % path)
    return data


def save(path, data):
    """Write ``data`` (a JSON-able dict) to ``path`` atomically."""
    directory = os.path.dirname(path)
    os.makedirs(directory, exist_ok=True)
    fd, tmp_path = tempfile.mkstemp(prefix='.tmp-', dir=directory)
    try:
        with os.fdopen(fd, 'w', encoding='utf-8') as f:
            json.dump(data, f, indent=1, sort_keys=True)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp_path, path)
    except BaseException:
        try:
            os.unlink(tmp_path)
        except OSError:
            pass
        raise
