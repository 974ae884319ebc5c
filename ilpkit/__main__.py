"""``python -m ilpkit``: the same as the ``ilpkit`` command."""

from ilpkit.cli.entry import main

if __name__ == "__main__":
    main()
