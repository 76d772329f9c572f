#!/usr/bin/env python3
"""Every file in data/ against its JSON schema in data/schema/ (Draft 2020-12).

The loader (core/) is what the app trusts and checks more (cross-references, ranges that depend
on each other); this keeps the published schemas honest: a field the loader takes but the schema
does not describe, or the other way round, fails here. Also checks that a file's name is its id.
Usage: check_schemas.py [REPO_ROOT]. Exit 77 (skipped) without python3-jsonschema.
"""
import glob
import json
import os
import sys

try:
    import jsonschema
except ImportError:
    print("skipped: python3-jsonschema is not installed (apt-get install python3-jsonschema)")
    sys.exit(77)

root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
data = os.path.join(root, "data")
PAIRS = [
    ("gpus/*.json", "gpu.schema.json"),
    ("instances/*.json", "instance.schema.json"),
    ("providers/*.json", "provider.schema.json"),
    ("models/*.json", "model.schema.json"),
    ("pricing_rules.json", "pricing_rules.schema.json"),
    ("assumptions.json", "assumptions.schema.json"),
    ("published/*.json", "published.schema.json"),
    ("accuracy.json", "accuracy.schema.json"),
]

failures, checked = [], 0
for pattern, schema_name in PAIRS:
    with open(os.path.join(data, "schema", schema_name)) as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    files = sorted(glob.glob(os.path.join(data, pattern)))
    if not files:
        failures.append(f"{pattern}: no files")
    for path in files:
        rel = os.path.relpath(path, data)
        with open(path) as f:
            doc = json.load(f)
        checked += 1
        for error in validator.iter_errors(doc):
            where = "/".join(str(p) for p in error.absolute_path) or "(top)"
            failures.append(f"{rel}: {where}: {error.message[:200]}")
        if "*" in pattern and doc.get("id") != os.path.splitext(os.path.basename(path))[0]:
            failures.append(f"{rel}: id '{doc.get('id')}' is not the file name")

for line in failures:
    print("FAIL", line)
print(f"check_schemas: {checked} files, {len(failures)} problems")
sys.exit(1 if failures else 0)
