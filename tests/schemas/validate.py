#!/usr/bin/env python3
"""Validates a JSON file against a JSON schema (draft 4 and later, as the schema says).

Usage: validate.py SCHEMA FILE. Exit 0: valid; 1: not valid (the first error, with its path); 77:
python3-jsonschema is not installed (a test then skips, saying so).
"""
import json
import sys

try:
    import jsonschema
except ImportError:
    print("python3-jsonschema is not installed (scripts/setup.sh installs it)")
    sys.exit(77)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: validate.py SCHEMA FILE")
    with open(sys.argv[1], encoding="utf-8") as f:
        schema = json.load(f)
    with open(sys.argv[2], encoding="utf-8") as f:
        document = json.load(f)
    validator = jsonschema.validators.validator_for(schema)(schema)
    errors = sorted(validator.iter_errors(document), key=lambda e: list(e.absolute_path))
    if errors:
        first = errors[0]
        where = "/".join(str(p) for p in first.absolute_path) or "(the top)"
        print(f"{sys.argv[2]}: {len(errors)} schema error(s); the first at {where}: {first.message}")
        sys.exit(1)
    print(f"{sys.argv[2]}: valid")


if __name__ == "__main__":
    main()
