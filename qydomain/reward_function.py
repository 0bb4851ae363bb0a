"""The qydomain scorers as a reward-function file for RL trainers that load one by path (verl's
`custom_reward_function`): it imports evalkit by absolute name, so it also loads as a lone module.

    custom_reward_function:
      path: <the output of: python -c "import evalkit.qydomain.reward_function as m; print(m.__file__)">
      name: compute_score

verl calls `compute_score(data_source=..., solution_str=..., ground_truth=..., extra_info=...)`.
"""

from evalkit.qydomain.dispatch import compute_score

__all__ = ["compute_score"]
