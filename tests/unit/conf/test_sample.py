"""The committed sample configuration is what the generator produces.

After changing an option, run ``tox -e genconfig`` and commit the sample.
"""

import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[3]
GENERATOR_CONF = ROOT / 'etc' / 'nova_lite' / 'nova_lite-config-generator.conf'
SAMPLE = ROOT / 'etc' / 'nova_lite' / 'nova_lite.conf.sample'


def test_sample_config_is_current(tmp_path):
    output = tmp_path / 'sample.conf'
    generator = os.path.join(os.path.dirname(sys.executable),
                             'oslo-config-generator')
    subprocess.run([generator, '--config-file', str(GENERATOR_CONF),
                    '--output-file', str(output)], check=True, cwd=ROOT,
                   capture_output=True)
    assert output.read_text() == SAMPLE.read_text(), (
        'etc/nova_lite/nova_lite.conf.sample is stale: run tox -e genconfig')


def test_every_nova_lite_option_has_help():
    from nova_lite.conf import opts
    for group, options in opts.list_opts():
        for opt in options:
            assert opt.help and len(opt.help) > 20, (group, opt.name)
