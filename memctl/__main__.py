"""`python -m memctl`."""

from memctl.cli import main

main()
