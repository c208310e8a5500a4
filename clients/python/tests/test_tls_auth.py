"""Pf1eClient over TLS (certificates from ``trustme``) with bearer tokens, against the real
server binary: the right token works, a wrong one is UNAUTHENTICATED, another token's episode
is NOT_FOUND; the token also works over plaintext loopback, and mTLS takes a client
certificate."""

from __future__ import annotations

import grpc
import pytest
from conftest import running_server

from pf1e_gym import Pf1eClient

trustme = pytest.importorskip("trustme")

ALICE = "alice-token-0123456789"
BOB = "bob-token-0123456789ab"


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory):
    d = tmp_path_factory.mktemp("pki")
    ca = trustme.CA()
    server = ca.issue_cert("127.0.0.1", "localhost")
    server.private_key_and_cert_chain_pem.write_to_path(str(d / "server.pem"))
    server.cert_chain_pems[0].write_to_path(str(d / "cert.pem"))
    server.private_key_pem.write_to_path(str(d / "key.pem"))
    ca.cert_pem.write_to_path(str(d / "ca.pem"))
    client = ca.issue_cert("client@example.org")
    (d / "tokens.yaml").write_text(
        f"- name: alice\n  token: {ALICE}\n- name: bob\n  token: {BOB}\n", encoding="utf-8"
    )
    return {"dir": d, "ca": ca, "client": client}


def test_tls_with_tokens(pki) -> None:
    d = pki["dir"]
    with running_server(
        "--tls-cert", str(d / "cert.pem"), "--tls-key", str(d / "key.pem"),
        "--tokens", str(d / "tokens.yaml"),
    ) as address:  # fmt: skip
        roots = pki["ca"].cert_pem.bytes()
        alice = Pf1eClient(address, token=ALICE, root_certificates=roots, timeout=20)
        bob = Pf1eClient(address, token=BOB, root_certificates=str(d / "ca.pem"), timeout=20)
        wrong = Pf1eClient(address, token=ALICE + "x", tls=True, root_certificates=roots)
        nobody = Pf1eClient(address, root_certificates=roots)
        try:
            assert alice.list_scenarios()
            state = alice.reset("sample_arena", 1, controlled_sides=["players"])
            assert alice.observe(state.episode_id).episode_id == state.episode_id
            for c in (wrong, nobody):
                with pytest.raises(grpc.RpcError) as e:
                    c.observe(state.episode_id)
                assert e.value.code() == grpc.StatusCode.UNAUTHENTICATED
            with pytest.raises(grpc.RpcError) as e:
                bob.observe(state.episode_id)
            assert e.value.code() == grpc.StatusCode.NOT_FOUND
        finally:
            for c in (alice, bob, wrong, nobody):
                c.close()


def test_token_from_env_over_plaintext(pki, monkeypatch: pytest.MonkeyPatch) -> None:
    with running_server("--tokens", str(pki["dir"] / "tokens.yaml")) as address:
        monkeypatch.setenv("PF1E_TOKEN", BOB)
        c = Pf1eClient(address, timeout=20)
        try:
            assert c.reset("sample_arena", 1).episode_id
        finally:
            c.close()
        monkeypatch.delenv("PF1E_TOKEN")
        c = Pf1eClient(address, timeout=20)
        try:
            with pytest.raises(grpc.RpcError) as e:
                c.list_scenarios()
            assert e.value.code() == grpc.StatusCode.UNAUTHENTICATED
        finally:
            c.close()


def test_mtls_and_roots_from_env(pki, monkeypatch: pytest.MonkeyPatch) -> None:
    d = pki["dir"]
    with running_server(
        "--tls-cert", str(d / "cert.pem"), "--tls-key", str(d / "key.pem"),
        "--tls-client-ca", str(d / "ca.pem"),
    ) as address:  # fmt: skip
        monkeypatch.setenv("PF1E_TLS_ROOTS", str(d / "ca.pem"))
        cert = pki["client"]
        ok = Pf1eClient(
            address,
            client_cert=cert.cert_chain_pems[0].bytes(),
            client_key=cert.private_key_pem.bytes(),
            timeout=20,
        )
        anon = Pf1eClient(address, timeout=5)
        try:
            assert ok.list_scenarios()
            with pytest.raises(grpc.RpcError) as e:
                anon.list_scenarios()
            assert e.value.code() == grpc.StatusCode.UNAVAILABLE
        finally:
            ok.close()
            anon.close()


def test_client_cert_needs_key_and_tls() -> None:
    with pytest.raises(ValueError, match="client_key"):
        Pf1eClient("127.0.0.1:1", client_cert=b"x")
    with pytest.raises(ValueError, match="need TLS"):
        Pf1eClient("127.0.0.1:1", client_cert=b"x", client_key=b"y")


def test_ray_helpers_pass_client_options(pki) -> None:
    from pf1e_gym.ray_sweep import SweepServerError, check_client_options, server_capacity

    d = pki["dir"]
    with running_server(
        "--tls-cert", str(d / "cert.pem"), "--tls-key", str(d / "key.pem"),
        "--tokens", str(d / "tokens.yaml"),
    ) as address:  # fmt: skip
        opts = {"token": ALICE, "root_certificates": str(d / "ca.pem")}
        assert server_capacity(address, client_options=opts) >= 1
        with pytest.raises(SweepServerError) as e:
            server_capacity(address, client_options={**opts, "token": BOB + "x"})
        assert e.value.code == "UNAUTHENTICATED"
    with pytest.raises(ValueError, match="unknown key 'tokn'"):
        check_client_options({"tokn": ALICE})
