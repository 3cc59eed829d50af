from .working_directory import working_directory_off_sys_path

# `python -m` puts the working directory first on sys.path, where lint-imports (and our
# console script) have none until the contracts run: without it, nothing there can stand in
# for a module that ours, click's or the standard library's code imports on the way.
with working_directory_off_sys_path():
    from .console import main

    main()
