"""Jobs: each is an environment of training.loop (a prompt plus a verifier) with its config, reward and outputs."""
