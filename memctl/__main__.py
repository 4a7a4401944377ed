"""`python -m memctl`."""

from memctl.cli.main import main

main()
