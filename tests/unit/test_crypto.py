"""crypto.random_string: uniform characters of the alphabet, one read of
the system's random source."""

import collections
from unittest import mock

import pytest

from nova_lite import crypto


def test_length_and_alphabet():
    for length in (0, 1, 8, 12, 100):
        text = crypto.random_string('abc', length)
        assert len(text) == length and set(text) <= set('abc')


def test_every_character_comes_about_equally_often():
    # 36 characters: bytes from 252 up are dropped, not folded onto the
    # first four characters.
    alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789'
    counts = collections.Counter(crypto.random_string(alphabet, 72000))
    assert set(counts) == set(alphabet)
    # 2000 expected each; 5 standard deviations (about 44) either way.
    assert all(1780 < count < 2220 for count in counts.values()), counts


def test_biased_bytes_are_dropped():
    # 3 characters: 255 is at the limit (255 = 256 - 256 % 3) and must be
    # dropped, not read as 255 % 3 = 0 ('a').
    draws = iter([bytes([255, 255, 1, 2]), bytes([4, 255, 255, 255])])
    with mock.patch('os.urandom', side_effect=lambda n: next(draws)):
        assert crypto.random_string('abc', 3) == 'bcb'


def test_an_alphabet_too_large_or_empty_is_refused():
    with pytest.raises(ValueError):
        crypto.random_string('', 3)
    with pytest.raises(ValueError):
        crypto.random_string(''.join(map(chr, range(257))), 3)
