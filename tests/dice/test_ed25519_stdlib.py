"""The standard library's Ed25519 check in ``transparency.py`` (RFC 8032 §5.1.7), which the
copied-out checker uses where the ``cryptography`` package is not installed: it agrees with
``cryptography`` on valid signatures and on every kind of tampering, and with RFC 8032's own
test vector."""

from __future__ import annotations

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import given, settings
from hypothesis import strategies as st

from boardgammon.dice.transparency import ed25519_verify_stdlib, verify_ed25519


def _public(key: Ed25519PrivateKey) -> bytes:
    return key.public_key().public_bytes(serialization.Encoding.Raw,
                                         serialization.PublicFormat.Raw)


def test_rfc_8032_test_1():
    """RFC 8032 §7.1, TEST 1: the empty message."""
    secret = bytes.fromhex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")
    public = bytes.fromhex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")
    signature = bytes.fromhex(
        "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b")
    assert _public(Ed25519PrivateKey.from_private_bytes(secret)) == public
    assert ed25519_verify_stdlib(public, signature, b"") is True
    assert ed25519_verify_stdlib(public, signature, b"\x00") is False


@settings(max_examples=40, deadline=None)
@given(seed=st.binary(min_size=32, max_size=32), message=st.binary(max_size=100),
       where=st.integers(min_value=0), bit=st.integers(min_value=0, max_value=7),
       part=st.sampled_from(["none", "message", "signature", "key"]))
def test_it_agrees_with_cryptography(seed, message, where, bit, part):
    key = Ed25519PrivateKey.from_private_bytes(seed)
    public, signature = _public(key), key.sign(message)
    if part == "message":
        message = message + b"!" if not message else _flip(message, where, bit)
    elif part == "signature":
        signature = _flip(signature, where, bit)
    elif part == "key":
        public = _flip(public, where, bit)
    expected = verify_ed25519(public, signature, message)
    assert expected is (part == "none") or part == "key"  # a flipped key may be no point
    assert ed25519_verify_stdlib(public, signature, message) is expected


def _flip(data: bytes, where: int, bit: int) -> bytes:
    out = bytearray(data)
    out[where % len(out)] ^= 1 << bit
    return bytes(out)


def test_wrong_lengths_and_non_points_are_refused():
    key = Ed25519PrivateKey.from_private_bytes(bytes(32))
    public, signature = _public(key), key.sign(b"head")
    assert ed25519_verify_stdlib(public[:31], signature, b"head") is False
    assert ed25519_verify_stdlib(public, signature[:63], b"head") is False
    # y = p is no canonical encoding; S = L and above are refused (malleability).
    p_bytes = (2**255 - 19).to_bytes(32, "little")
    assert ed25519_verify_stdlib(p_bytes, signature, b"head") is False
    order = 2**252 + 27742317777372353535851937790883648493
    s = int.from_bytes(signature[32:], "little")
    assert ed25519_verify_stdlib(public, signature[:32] + (s + order).to_bytes(32, "little"),
                                 b"head") is False


def test_without_cryptography_the_checker_still_checks_signatures(monkeypatch):
    """Copied out to a machine without the package, ``verify_ed25519`` used to answer None
    ("not checked"); it now checks with the standard library."""
    import sys

    for name in [m for m in sys.modules if m == "cryptography" or m.startswith("cryptography.")]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, "cryptography", None)
    key = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))
    public, signature = _public(key), key.sign(b"tree head")
    assert verify_ed25519(public, signature, b"tree head") is True
    assert verify_ed25519(public, signature, b"tree heads") is False


def test_a_key_of_small_order_verifies_nothing():
    """Found by the audit's second look: with the identity as the key and the identity with
    S = 0 as the signature, every message verifies (OpenSSL accepts it too), so a log with
    that key could disown any head. Keys of small order are refused."""
    identity = (1).to_bytes(32, "little")
    signature = identity + bytes(32)
    assert ed25519_verify_stdlib(identity, signature, b"any head") is True  # the arithmetic
    for message in (b"any head", b"another"):
        assert verify_ed25519(identity, signature, message) is False
    # A point of order 2 (x = 0, y = -1) is refused the same way.
    order_two = (2**255 - 19 - 1).to_bytes(32, "little")
    assert verify_ed25519(order_two, order_two + bytes(32), b"head") is False
