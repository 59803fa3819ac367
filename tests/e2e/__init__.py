"""End-to-end tests that drive the real Claude Code CLI against a local Messages API stand-in."""
