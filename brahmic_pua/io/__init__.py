"""Support: files in and out. Atomic writes, the line reader, ``.npy`` files.

The bottom of the pipeline: nothing here imports another brahmic_pua package.
"""
