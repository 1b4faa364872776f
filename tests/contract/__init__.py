"""The store contract suite: every test runs against every store implementation."""
