"""The two sides of a rolling upgrade: which code, installed where.

The new side is usually the working tree, already installed in the running
interpreter's environment. The old side is a release (by name, through
nova_lite/releases.json) or any git ref: it is checked out and installed
into a virtualenv of its own, cached by commit so a second drill starts at
once.
"""

import json
import os
import subprocess
import sys

from nova_lite import releases

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
WORKING_TREE = 'working-tree'
_RPC_PROBE = ('import json; '
              'from nova_lite.conductor import rpcapi as a; '
              'from nova_lite.scheduler import rpcapi as b; '
              'from nova_lite.compute import rpcapi as c; '
              'print(json.dumps({"conductor": a.RPC_VERSION, '
              '"scheduler": b.RPC_VERSION, "compute": c.RPC_VERSION}))')


def probe_rpc_versions(bin_dir):
    """{service: RPC version} of the nova_lite installed beside ``bin_dir``.

    Asked of that side's own interpreter in isolated mode (``-I``: neither
    the current directory nor PYTHONPATH on sys.path) from a directory
    with no nova_lite in it: run from the project root, ``python -c``
    would import the working tree's nova_lite instead and report the new
    versions for the old side.
    """
    out = subprocess.run(
        [os.path.join(bin_dir, 'python'), '-I', '-c', _RPC_PROBE],
        check=True, capture_output=True, text=True, cwd=bin_dir).stdout
    return json.loads(out)


class Side:
    """One release of the code: a label and the directory of its scripts."""

    def __init__(self, label, bin_dir, release=None):
        self.label = label
        self.bin_dir = bin_dir
        self.release = release
        self.rpc_versions = probe_rpc_versions(bin_dir)

    def script(self, name):
        return os.path.join(self.bin_dir, name)

    def __repr__(self):
        return '<Side %s>' % self.label


def _git(*args):
    return subprocess.run(['git', '-C', ROOT, *args], check=True,
                          capture_output=True, text=True).stdout.strip()


def resolve(ref):
    """(commit sha, release name or None) for a release name or git ref."""
    try:
        release = releases.get(ref)
    except KeyError:
        return _git('rev-parse', '--verify', ref + '^{commit}'), None
    if not release['commit']:
        raise SystemExit('release %s has no commit yet; use --to %s'
                         % (ref, WORKING_TREE))
    return release['commit'], ref


def _cache_dir():
    base = os.environ.get('XDG_CACHE_HOME',
                          os.path.join(os.path.expanduser('~'), '.cache'))
    return os.path.join(base, 'nova_lite', 'drill')


def _checkout(sha, dest):
    # A real checkout, not an archive: pbr finds the package's data files
    # (migrations, releases.json) through git.
    subprocess.run(['git', 'clone', '--quiet', '--shared', '--no-checkout',
                    ROOT, dest], check=True)
    subprocess.run(['git', '-C', dest, 'checkout', '--quiet', '--detach',
                    sha], check=True)


def build(ref, log=print):
    """A Side for ``ref`` (release name, git ref or 'working-tree')."""
    if ref == WORKING_TREE:
        return Side(WORKING_TREE, os.path.dirname(sys.executable))
    sha, release = resolve(ref)
    home = os.path.join(_cache_dir(), sha)
    bin_dir = os.path.join(home, 'venv', 'bin')
    marker = os.path.join(home, 'installed')
    if not os.path.exists(marker):
        log('building %s (%s) in %s' % (release or ref, sha[:12], home))
        if os.path.exists(home):
            subprocess.run(['rm', '-rf', home], check=True)
        _checkout(sha, os.path.join(home, 'src'))
        subprocess.run([sys.executable, '-m', 'venv',
                        os.path.join(home, 'venv')], check=True)
        # The same dependency versions as the new side (CI's constraints),
        # so a drill measures the code, not a newer library.
        constraints = os.path.join(ROOT, 'upper-constraints.txt')
        pin = ['-c', constraints] if os.path.exists(constraints) else []
        subprocess.run([os.path.join(bin_dir, 'pip'), 'install', '-q',
                        *pin, os.path.join(home, 'src')], check=True)
        open(marker, 'w').close()
    return Side(release or ref[:12], bin_dir, release=release)
