"""Support: files in and out. Atomic writes, the line reader, ``.npy`` files, one-holder locks.

The bottom of the pipeline: nothing here imports another brahmic_pua package.
"""
