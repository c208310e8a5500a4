"""The statistics of :mod:`pf1e_gym.stats`, under their ``pf1e_gym.llm`` name (they live in the
package root so that the leaderboard can use them without the ``llm`` extra)."""

from pf1e_gym.stats import band_3sigma, percentile, two_proportion_z, wilson_interval

__all__ = ["band_3sigma", "percentile", "two_proportion_z", "wilson_interval"]
