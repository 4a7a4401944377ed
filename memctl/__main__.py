"""`python -m memctl`."""

from memctl.cli.app import main

main()
