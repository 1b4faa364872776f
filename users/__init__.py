"""users package."""
