"""Comparing story bodies: similarity features, repeated stories (LP040) and related stories."""
