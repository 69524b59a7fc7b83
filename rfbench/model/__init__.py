"""Models and their solvers: every estimator a run can train and select.

- :mod:`~rfbench.model.liblinear`: linear SVMs on feature maps (LIBLINEAR, or ``solver="newton"``: the
  exact path that fits, chosen by :mod:`~rfbench.model.newton_cost`, :mod:`~rfbench.model.newton_svc` on
  the dense design or LibLinear -s 2 at a tight tolerance on wide sparse codes), C chosen by
  :mod:`~rfbench.model.grid_search`.
- :mod:`~rfbench.model.ridge`: kernel-free ridge regression on features, the regularization chosen by CV.
- :mod:`~rfbench.model.kernel_svm`: exact kernel SVMs on a precomputed Gram (libsvm), the RBF and
  Li's cosine RBF over a gamma grid, or a kernel by name.
"""
