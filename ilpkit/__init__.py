"""ilpkit: ensembles of first-order rules from large, skewed relational data."""

from ilpkit.core.errors import IlpkitError

__version__ = "0.1.0"
__all__ = ["IlpkitError", "__version__"]
