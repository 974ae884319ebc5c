"""The experiment runner: composing a run once (compose), its configuration, cross-validation,
run folders and reports, and the Python API and estimator built on them."""
