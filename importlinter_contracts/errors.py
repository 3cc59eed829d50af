"""The one error type our contracts raise for a configuration they cannot check."""


class ContractConfigurationError(ValueError):
    """A contract's options do not fit the analysed tree.

    import-linter prints the message of any exception a contract raises as one line, so the
    message names the contract and the option at fault.
    """

    def __init__(self, contract_name: str, option: str, message: str) -> None:
        super().__init__(
            f'Contract "{contract_name}" is not configured correctly: {option}: {message}'
        )
