"""`python -m memctl`."""

from memctl.cli.entry import main

main()
