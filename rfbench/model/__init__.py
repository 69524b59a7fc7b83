"""Models and their solvers: every estimator a run can train and select.

- :mod:`~rfbench.model.liblinear`: linear SVMs on feature maps (LIBLINEAR, or the exact Newton path
  of :mod:`~rfbench.model.newton_svc` on dense features), C chosen by :mod:`~rfbench.model.grid_search`.
- :mod:`~rfbench.model.ridge`: kernel-free ridge regression on features, the regularization chosen by CV.
- :mod:`~rfbench.model.kernel_svm`: exact kernel SVMs on a precomputed Gram (libsvm), the RBF and
  Li's cosine RBF over a gamma grid, or a kernel by name.
"""
