

def run_cli(argv, capsys):
    """(exit code, stderr) of ``lexprobe argv``; parser errors count as exit code 2 (every robustness file's
    way to run the command line)."""
    from lexprobe.cli import main

    capsys.readouterr()
    try:
        code = main([str(a) for a in argv])
    except SystemExit as stop:
        code = stop.code
    return code, capsys.readouterr().err.strip()
