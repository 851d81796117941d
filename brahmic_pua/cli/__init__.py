"""The ``brahmic-pua`` command line: click commands over library functions (installed as
``brahmic_pua.cli``)."""
