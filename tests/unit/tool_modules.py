"""Load a script of ``tools/`` (not a package) as a module for a test."""

import importlib.util
import pathlib

TOOLS = pathlib.Path(__file__).resolve().parents[2] / 'tools'


def load(name):
    spec = importlib.util.spec_from_file_location(name, TOOLS / (name + '.py'))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
