"""The report's output formats: lint-imports' text, GitHub Actions annotations."""
