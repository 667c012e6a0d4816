"""The CLI's commands, by what they do; agent.cli imports them all onto one typer app."""
