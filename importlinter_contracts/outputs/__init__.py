"""The report's output formats of `importlinter-contracts check` and `review`: GitHub Actions
annotations, SARIF, Markdown, DOT and Mermaid. lint-imports' own text, which the contracts
print, is `rendering`: registering the contract types loads none of these."""
