"""Clusters ↔ Private Use Area code points, exact for every input."""

from brahmic_pua.codec.codec import PUACodec, cluster_script
from brahmic_pua.codec.table_file import CodecFileError

__all__ = ["CodecFileError", "PUACodec", "cluster_script"]
