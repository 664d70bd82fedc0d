"""Version and release names of nova_lite."""

import pbr.version

version_info = pbr.version.VersionInfo('nova_lite')

# The release this tree belongs to (see releases data, issue 3).
RELEASE_NAME = 'acorn'


def version_string():
    try:
        return version_info.version_string()
    except Exception:
        return 'unknown'
