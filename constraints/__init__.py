"""constraints package."""
