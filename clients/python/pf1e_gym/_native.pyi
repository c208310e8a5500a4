"""Type stub of the native extension ``pf1e_gym._native`` (Rust, crate ``native/``, built by
maturin). The signatures mirror ``native/src/lib.rs``; :mod:`pf1e_gym.native` is its only user.
"""

import numpy as np
import numpy.typing as npt

ENGINE_VERSION: str

def spec(data_dir: str, scenario: bytes) -> bytes:
    """The scenario's serialized ``pf1e.env.v1.Spec`` (``ValueError`` naming the field)."""

class VecCore:
    """``num_envs`` episode slots of one scenario and a pool of reset episodes."""

    def __init__(
        self,
        data_dir: str,
        scenario: bytes,
        controlled_sides: list[str],
        controlled_ids: list[str],
        num_envs: int,
        threads: int = 0,
        reward: bytes | None = None,
    ) -> None: ...
    def set_reward(self, reward: bytes | None = None) -> None: ...
    def row_lengths(self) -> tuple[int, int, int]:
        """Values per row: ``(planes, features, actions)``."""
    @property
    def threads(self) -> int: ...
    def pool_len(self) -> int: ...
    def clear(self) -> None: ...
    def bind(
        self,
        planes: npt.NDArray[np.float32],
        features: npt.NDArray[np.float32],
        masks: npt.NDArray[np.int8],
        rewards: npt.NDArray[np.float32],
        terminated: npt.NDArray[np.bool_],
        truncated: npt.NDArray[np.bool_],
        decision_ids: npt.NDArray[np.int64],
        actor: npt.NDArray[np.int64],
        rounds: npt.NDArray[np.int64],
        kinds: npt.NDArray[np.int64],
        result_ok: npt.NDArray[np.bool_],
        result_codes: npt.NDArray[np.int64],
        winners: npt.NDArray[np.int64],
    ) -> None: ...
    def run(
        self,
        codes: npt.NDArray[np.int64],
        args: npt.NDArray[np.uint64],
        pool_seeds: npt.NDArray[np.uint64],
    ) -> int: ...
    def decision(self, i: int) -> bytes | None: ...
