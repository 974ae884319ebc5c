"""``python -m ilpkit.core.engine_names STEM EXECUTABLE``: rewrite a shipped engine list."""

import sys

from ilpkit.core.engine_names import _main

sys.exit(_main(sys.argv[1:]))
