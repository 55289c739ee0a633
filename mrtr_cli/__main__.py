"""`python -m mrtr_cli` runs the same CLI as the `mrtr` console script."""

from mrtr_cli.cli.entry import main

if __name__ == "__main__":
    main()
