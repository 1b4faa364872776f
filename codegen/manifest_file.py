"""The name of a version's manifest file; what it holds is `codegen.manifest`. Apart, so
readers that only name the file (integrity checks, gc) do not load the manifest's code."""

MANIFEST_FILE = "manifest.json"
