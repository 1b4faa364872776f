"""factlog package."""
