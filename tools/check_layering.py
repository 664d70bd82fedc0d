#!/usr/bin/env python3
"""Mechanical checks of nova_lite's layering rules (STYLE.md rule 15).

* ``nova_lite/virt`` and ``nova_lite/compute`` never import the database
  layer (``nova_lite.db``) or the placement tables (``nova_lite.placement``):
  computes reach data only through objects and the conductor;
* options are defined only in ``nova_lite/conf``;
* policy rules are defined only in ``nova_lite/policies``;
* the enginefacade ``context_manager`` is used only by ``nova_lite/db``,
  so every database entry goes through the access guard;
* nothing imports eventlet.

Usage: tools/check_layering.py [ROOT]. Prints each violation as
``path:line: message`` and exits 1 if there is any.
"""

import ast
import pathlib
import sys

NO_DB_DIRS = ('nova_lite/virt/', 'nova_lite/compute/')
DB_MODULES = ('nova_lite.db', 'nova_lite.placement')
OPT_CLASSES = {'Opt', 'StrOpt', 'IntOpt', 'FloatOpt', 'BoolOpt', 'ListOpt',
               'DictOpt', 'MultiStrOpt', 'PortOpt', 'HostAddressOpt',
               'IPOpt', 'URIOpt', 'MultiOpt', 'SubCommandOpt', 'OptGroup'}
RULE_CLASSES = {'RuleDefault', 'DocumentedRuleDefault'}


def _imported_modules(tree):
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom) and node.module:
            yield node.lineno, node.module
            for alias in node.names:
                yield node.lineno, '%s.%s' % (node.module, alias.name)


def _called_names(tree):
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = (func.attr if isinstance(func, ast.Attribute)
                    else getattr(func, 'id', None))
            if name:
                yield node.lineno, name


def check_file(path, rel):
    tree = ast.parse(path.read_text(), filename=str(path))
    problems = []
    for lineno, module in _imported_modules(tree):
        if module.split('.')[0] == 'eventlet':
            problems.append((lineno, 'eventlet must not be imported'))
        if rel.startswith(NO_DB_DIRS) and module.startswith(DB_MODULES):
            problems.append((lineno, 'computes must not import %s; use '
                                     'objects and the conductor' % module))
    for lineno, name in _called_names(tree):
        if name in OPT_CLASSES and not rel.startswith('nova_lite/conf/'):
            if rel != 'nova_lite/cmd/manage.py' or name != 'SubCommandOpt':
                problems.append((lineno, 'options belong in nova_lite/conf'))
        if name in RULE_CLASSES and not rel.startswith('nova_lite/policies/'):
            problems.append((lineno, 'policies belong in nova_lite/policies'))
    if 'context_manager' in path.read_text() and not rel.startswith(
            'nova_lite/db/'):
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute)
                    and node.attr == 'context_manager'):
                problems.append((node.lineno, 'use db_api.reader/writer, '
                                              'not context_manager'))
    return problems


def main(argv):
    root = pathlib.Path(argv[1] if len(argv) > 1 else '.').resolve()
    failures = 0
    for path in sorted((root / 'nova_lite').rglob('*.py')):
        rel = path.relative_to(root).as_posix()
        for lineno, message in check_file(path, rel):
            print('%s:%d: %s' % (rel, lineno, message))
            failures += 1
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
