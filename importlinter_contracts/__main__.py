from .console import main

# (The console script's own: it imports and runs the command with the working directory,
# which `python -m` puts first on sys.path, off it.)
main()
