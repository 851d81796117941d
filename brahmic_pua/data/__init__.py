"""The sample corpus bundled for ``brahmic-pua demo`` (see ATTRIBUTION.md)."""
