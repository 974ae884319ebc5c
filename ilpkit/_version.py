"""The version of ilpkit (a module of its own: every layer may name it, none through the
package face)."""

__version__ = "0.1.0"
