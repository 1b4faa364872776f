"""Bundled, cited reference tables (drug classes, countries and cities) and lookups over them.

`factlog.reference.drugs` and `factlog.reference.countries` answer questions through the
tables; `factlog.reference.tables` loads and validates them (once per process).
"""
