"""The Prolog machine behind :mod:`ilpkit.plugins.backends.native.resolution`, by section."""
