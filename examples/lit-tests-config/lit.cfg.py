# A lit.cfg.py of a user's own test folder that reuses opal's set-up
# (docs/testing.md): copied next to examples/lit-tests by
# python/test/test_install.py, which runs the folder with it.
import opal.lit

opal.lit.configure(config)           # format, suffixes, PATH, %python, PYTHONPATH
config.name = "mylib"
