"""The runtime-isolation check: the contract type (`contract`), the fresh interpreter it
starts (`process`), and the code that runs inside it (`probe`)."""
