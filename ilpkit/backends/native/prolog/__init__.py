"""The Prolog machine behind :mod:`ilpkit.backends.native.resolution`, by section."""
