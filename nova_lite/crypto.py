"""Key pair material: generate an SSH key pair, fingerprint a public key;
and random strings (passwords, reservation ids).

Uses the ``cryptography`` library (never hand-written crypto). Formats as
Nova's: an OpenSSH public key line, a PEM private key, and the MD5
fingerprint of the key blob in colon-separated hex (``ab:cd:...``), which
is what ``ssh-keygen -l -E md5`` prints.
"""

import base64
import binascii
import hashlib
import os

from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.hazmat.primitives import serialization

from nova_lite import exception

_KEY_BITS = 2048


def generate_key_pair():
    """(private_key PEM, public_key OpenSSH line, fingerprint) of a new
    RSA key."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=_KEY_BITS)
    private = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.TraditionalOpenSSL,
        serialization.NoEncryption()).decode('ascii')
    public = key.public_key().public_bytes(
        serialization.Encoding.OpenSSH,
        serialization.PublicFormat.OpenSSH).decode('ascii')
    public += ' Generated-by-Nova-lite'
    return private, public, ssh_fingerprint(public)


def ssh_fingerprint(public_key):
    """The MD5 fingerprint of an OpenSSH public key line; InvalidKeypair
    (400) if it is not one."""
    parts = public_key.strip().split()
    if len(parts) < 2:
        raise exception.InvalidKeypair(
            reason='the public key is not "<type> <base64 key> [comment]"')
    try:
        serialization.load_ssh_public_key(
            ('%s %s' % (parts[0], parts[1])).encode('ascii'))
        blob = base64.b64decode(parts[1].encode('ascii'), validate=True)
    except (ValueError, UnicodeError, binascii.Error,
            exception.NovaLiteException) as exc:
        raise exception.InvalidKeypair(
            reason='failed to read the public key (%s)' % exc)
    digest = hashlib.md5(blob, usedforsecurity=False).hexdigest()
    return ':'.join(digest[i:i + 2] for i in range(0, len(digest), 2))


def random_string(alphabet, length):
    """``length`` characters drawn uniformly from ``alphabet`` (at most
    256 characters) with the system's random source, as
    ``secrets.choice`` per character does, but in one read of it instead
    of one per character (every server create makes a password and a
    reservation id)."""
    size = len(alphabet)
    if not 0 < size <= 256:
        raise ValueError('an alphabet of 1 to 256 characters is needed')
    # A byte at or above ``limit`` would favour the first characters.
    limit = 256 - 256 % size
    chars = []
    while len(chars) < length:
        chars.extend(alphabet[byte % size]
                     for byte in os.urandom(length + length // 2 + 1)
                     if byte < limit)
    return ''.join(chars[:length])
