"""nova-lite-manage image create --id on each real database."""

import os
import subprocess
import sys

IMAGE_ID = '0b0a8f3c-6d1e-4f7a-9c2b-3e4d5f6a7b8c'


def _manage(conf, *args):
    return subprocess.run(
        [os.path.join(os.path.dirname(sys.executable), 'nova-lite-manage'),
         '--config-file', str(conf), *args],
        capture_output=True, text=True)


def test_create_with_id_and_refuse_a_duplicate(database, tmp_path):
    conf = tmp_path / 'nova_lite.conf'
    conf.write_text('[database]\nconnection = %s\n' % database.url)
    first = _manage(conf, 'image', 'create', 'cirros', '--id', IMAGE_ID,
                    '--property', 'os_distro=cirros')
    assert first.returncode == 0, first.stderr
    assert first.stdout == IMAGE_ID + '\n'

    again = _manage(conf, 'image', 'create', 'other', '--id', IMAGE_ID,
                    '--property', 'os_distro=other')
    assert again.returncode == 1
    assert 'Error: Image %s already exists.' % IMAGE_ID in again.stderr

    # The first image is intact and nothing of the second was written.
    listed = _manage(conf, 'image', 'list')
    assert listed.returncode == 0, listed.stderr
    [line] = listed.stdout.splitlines()
    assert line.split() == [IMAGE_ID, 'cirros', 'raw', 'os_distro=cirros']
