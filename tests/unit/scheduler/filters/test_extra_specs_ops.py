"""Every operator of seed 000 (ComputeCapabilitiesFilter's list)."""

import pytest

from nova_lite.scheduler.filters import extra_specs_ops


@pytest.mark.parametrize('value,req,expected', [
    # "=": a number at least the operand (like vcpus)
    ('48', '= 24', True), ('24', '= 24', True), ('12', '= 24', False),
    ('48', '=24', False),  # no space: no operator, string equality
    ('2048', '== 2048.0', True), ('2048', '== 1024', False),
    ('3', '!= 4', True), ('4', '!= 4', False),
    ('10240', '>= 10240', True), ('10239', '>= 10240', False),
    ('10', '<= 10', True), ('11', '<= 10', False),
    ('2.1.0', 's== 2.1.0', True), ('2.1.0', 's== 2.1', False),
    ('QEMU', 's!= ironic', True), ('QEMU', 's!= QEMU', False),
    ('b', 's>= a', True), ('a', 's>= b', False),
    ('b', 's> a', True), ('a', 's> a', False),
    ('a', 's<= a', True), ('b', 's<= a', False),
    ('a', 's< b', True), ('9', 's< 10', False),  # strings, not numbers
    ('gcc-12', '<in> gcc', True), ('clang', '<in> gcc', False),
    ("['aes', 'mmx', 'sse']", '<all-in> aes mmx', True),
    ("['aes', 'sse']", '<all-in> aes mmx', False),
    ('fpu', '<or> fpu <or> gpu', True), ('gpu', '<or> fpu <or> gpu', True),
    ('npu', '<or> fpu <or> gpu', False),
    ('compute_01', 'compute_01', True),  # default s==
    ('compute_01', 'compute_02', False),
])
def test_operators(value, req, expected):
    assert extra_specs_ops.match(value, req) is expected


@pytest.mark.parametrize('req', ['>= 1', '<in> a', '<or> a', 's== a'])
def test_missing_value_never_meets_an_operator(req):
    assert extra_specs_ops.match(None, req) is False


@pytest.mark.parametrize('req', ['>=', '<in>', '<or>', '<all-in>'])
def test_operator_without_operand_fails(req):
    assert extra_specs_ops.match('x', req) is False


def test_non_numeric_value_fails_numeric_operator():
    assert extra_specs_ops.match('QEMU', '>= 5') is False


def test_empty_requirement_matches_only_empty_value():
    assert extra_specs_ops.match('', '') is True
    assert extra_specs_ops.match('x', '') is False
