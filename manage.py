#!/usr/bin/env python
"""Django's command-line utility for administrative tasks (``help`` describes every command: config/cli.py)."""

import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    from config.cli import main as run

    run(sys.argv)


if __name__ == "__main__":
    main()
